import ArgumentParser
import OrreryCore

/// The secrets redacted besides the usual headers; shared by `serve` and `import har`.
struct RedactionOptions: ParsableArguments {
    @Option(
        name: .customLong("redact-header"),
        help: ArgumentHelp(
            "A header whose value is replaced by [REDACTED] in the journal, logs, HAR and recordings (repeatable; "
                + "Authorization, Proxy-Authorization, Cookie and Set-Cookie always are).", valueName: "name"))
    var headers: [String] = []

    @Option(
        name: .customLong("redact-query"),
        help: ArgumentHelp("A query parameter or form field to redact (repeatable), besides the common secret names.", valueName: "name"))
    var queryParameters: [String] = []

    @Option(
        name: .customLong("redact-json-field"),
        help: ArgumentHelp("A JSON body field to redact (repeatable), besides the common secret names.", valueName: "name"))
    var jsonFields: [String] = []

    @Flag(
        help: """
            Do not redact the common secret names (password, token, access_token, refresh_token, api_key, apiKey, \
            secret, client_secret, ...) in JSON fields, query parameters and form fields of exchanges no stub answered.
            """)
    var noDefaultRedaction = false

    var redactor: Redactor {
        Redactor(headers: headers, queryParameters: queryParameters, jsonFields: jsonFields, usesCommonNames: !noDefaultRedaction)
    }
}
