/// Replaces secrets with a placeholder before an exchange is kept, logged, exported or recorded.
///
/// Sensitive headers (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie` and configured names), query
/// parameters, form fields and JSON body fields with secret names (the common ones, see `SecretNames`, and those
/// configured) lose their values; each value taken, and each value the proxy injects into upstream requests, is then
/// also scrubbed wherever else it appears in the exchange (an upstream that echoes the token back), in headers, the
/// target and both bodies, in the forms it travels in: as it is, percent-encoded, JSON-escaped and in base64 (see
/// `SecretScrubber`). Basic credentials are decoded, and scrubbed whole and by their password.
///
/// The common names apply to exchanges no stub answered (forwarded, unmatched, refused): a stub's answer is the
/// user's own text, and a test that checks what it sent to a stub finds it as sent.
public struct Redactor: Sendable {
    public static let placeholder = "[REDACTED]"
    public static let defaultHeaders = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]
    /// Values shorter than this are replaced where they stand but not searched for elsewhere: scrubbing "1" or
    /// "yes" everywhere would ruin the exchange and protect nothing.
    static let minimumScrubbedLength = 6

    /// A value the proxy adds to upstream requests (`inject_headers`), by the header that carries it.
    public struct InjectedSecret: Sendable, Equatable {
        public var header: String
        public var value: String

        public init(header: String, value: String) {
            self.header = header
            self.value = value
        }
    }

    /// Compared without regard to case and without allocating: this runs for every exchange.
    private let headerNames: HeaderNameSet
    private let names: SecretNames
    /// Injected values long enough to search for.
    private let injected: [InjectedSecret]

    /// - Parameters:
    ///   - queryParameters: configured names of query parameters and form fields.
    ///   - usesCommonNames: whether the common secret names count (`--no-default-redaction` turns them off).
    ///   - injectedSecrets: the values the proxy injects; they are scrubbed from every forwarded exchange.
    public init(
        headers: [String] = [], queryParameters: [String] = [], jsonFields: [String] = [], usesCommonNames: Bool = true,
        injectedSecrets: [InjectedSecret] = []
    ) {
        headerNames = HeaderNameSet(
            Self.defaultHeaders + headers.filter { name in !Self.defaultHeaders.contains { $0.equalsIgnoringASCIICase(name) } })
        names = SecretNames(usesCommonNames: usesCommonNames, parameters: queryParameters, jsonFields: jsonFields)
        injected = injectedSecrets.filter { $0.value.utf8.count >= Self.minimumScrubbedLength }
    }

    /// The entry with every secret replaced.
    public func redact(_ entry: JournalEntry) -> JournalEntry {
        var entry = entry
        redact(&entry)
        return entry
    }

    /// Replaces every secret of the entry in place; an exchange without secrets is only read. Returns what was
    /// redacted, by kind and name (`JSON field password`, `query access_token`), for a recording's summary.
    @discardableResult
    public func redact(_ entry: inout JournalEntry) -> [String] {
        let common = Self.usesCommonNames(for: entry.outcome)
        let isForwarded = Self.isForwarded(entry.outcome)
        guard mayHoldSecrets(entry, common: common, isForwarded: isForwarded) else { return [] }
        return redactSecrets(&entry, common: common, isForwarded: isForwarded)
    }

    private static func usesCommonNames(for outcome: JournalEntry.Outcome) -> Bool {
        if case .stub = outcome { return false }
        return true
    }

    private static func isForwarded(_ outcome: JournalEntry.Outcome) -> Bool {
        if case .proxied = outcome { return true }
        return false
    }

    /// Whether a target has a query, over its bytes in place: the generic `contains` over a string's UTF-8 view
    /// cost about 200 instructions for every exchange journaled.
    private static func hasQuery(_ target: String) -> Bool {
        target.utf8.withContiguousStorageIfAvailable { ByteSearch.firstIndex(of: UInt8(ascii: "?"), in: $0) != nil }
            ?? target.utf8.contains(UInt8(ascii: "?"))
    }

    /// The usual exchange holds no secret: found out without building anything.
    private func mayHoldSecrets(_ entry: JournalEntry, common: Bool, isForwarded: Bool) -> Bool {
        if isForwarded && !injected.isEmpty { return true }
        if entry.request.headers.containsName(in: headerNames) || entry.response.headers.containsName(in: headerNames) {
            return true
        }
        guard names.applies(common: common) else { return false }
        return Self.hasQuery(entry.request.target) || names.mayName(entry.request.body, common: common)
            || entry.response.body.withUnsafeBytes { names.mayName($0, common: common) }
    }

    private func redactSecrets(_ entry: inout JournalEntry, common: Bool, isForwarded: Bool) -> [String] {
        var secrets: [String] = []
        var redacted: [String] = []
        entry.request.headers = redactHeaders(entry.request.headers, into: &secrets, names: &redacted)
        entry.response.headers = redactHeaders(entry.response.headers, into: &secrets, names: &redacted)
        let query = names.applies(common: common) && entry.request.target.contains("?") ? entry.request.query : []
        if query.contains(where: { names.isSecretParameter($0.name, common: common) }) {
            for item in query where names.isSecretParameter(item.name, common: common) {
                if !item.value.isEmpty { secrets.append(item.value) }
                redacted.append("query \(item.name)")
            }
            entry.request = HTTPRequest(
                method: entry.request.method, target: redactQuery(entry.request.target, common: common),
                headers: entry.request.headers, body: entry.request.body)
        }
        if names.applies(common: common) {
            if Self.isForm(entry.request.headers), names.mayName(entry.request.body, common: common),
                let form = redactForm(entry.request.body, common: common, into: &secrets, names: &redacted)
            {
                entry.request.body = form
            }
            if Self.isForm(entry.response.headers), entry.response.body.withUnsafeBytes({ names.mayName($0, common: common) }),
                let form = entry.response.body.withUnsafeBytes({ redactForm(Array($0), common: common, into: &secrets, names: &redacted) })
            {
                entry.response.bodySize += form.count - entry.response.body.count
                entry.response.body = Payload(form)
            }
            if names.mayName(entry.request.body, common: common),
                let body = redactJSON(entry.request.body, common: common, into: &secrets, names: &redacted)
            {
                entry.request.body = body
            }
            if entry.response.body.withUnsafeBytes({ names.mayName($0, common: common) }),
                let body = entry.response.body.withUnsafeBytes({
                    redactJSON(Array($0), common: common, into: &secrets, names: &redacted)
                })
            {
                entry.response.bodySize += body.count - entry.response.body.count
                entry.response.body = Payload(body)
            }
        }
        var scrubbed = Set(secrets.filter { $0.utf8.count >= Self.minimumScrubbedLength })
        if isForwarded { scrubbed.formUnion(injected.map(\.value)) }
        guard !scrubbed.isEmpty else { return Self.unique(redacted) }
        let needles = SecretScrubber(secrets: scrubbed.sorted().map { Array($0.utf8) })
        if isForwarded && !injected.isEmpty {
            // Named by the header that carried each, when the exchange shows it (the upstream echoed it).
            for secret in injected where Self.shows(entry, SecretScrubber(secrets: [Array(secret.value.utf8)])) {
                redacted.append("injected \(secret.header)")
            }
        }
        // Only what contains a secret is rebuilt: the request is parsed again only when its target changes.
        let target = Self.scrub(entry.request.target, needles)
        if target != entry.request.target {
            entry.request = HTTPRequest(
                method: entry.request.method, target: target, headers: entry.request.headers, body: entry.request.body)
        }
        entry.request.headers = Self.scrub(entry.request.headers, needles)
        entry.request.body = Self.scrub(entry.request.body, needles)
        entry.response.headers = Self.scrub(entry.response.headers, needles)
        if let scrubbedBody = entry.response.body.withUnsafeBytes({ Self.scrubbed($0, needles) }) {
            entry.response.bodySize += scrubbedBody.count - entry.response.body.count
            entry.response.body = Payload(scrubbedBody)
        }
        return Self.unique(redacted)
    }

    /// Whether the secret occurs anywhere in the exchange.
    private static func shows(_ entry: JournalEntry, _ needles: SecretScrubber) -> Bool {
        scrub(entry.request.target, needles) != entry.request.target
            || entry.request.headers.entries.contains { scrub($0.value, needles) != $0.value }
            || entry.response.headers.entries.contains { scrub($0.value, needles) != $0.value }
            || entry.request.body.withUnsafeBytes { needles.scrubbed($0) } != nil
            || entry.response.body.withUnsafeBytes { needles.scrubbed($0) } != nil
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    private static func isForm(_ headers: HTTPHeaders) -> Bool {
        headers["Content-Type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") ?? false
    }

    /// The form with the values of secret fields replaced where they stand (short ones included); nil when it has
    /// none. Decoded values go to `secrets`, to be scrubbed elsewhere.
    private func redactForm(_ body: [UInt8], common: Bool, into secrets: inout [String], names redacted: inout [String]) -> [UInt8]? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        var isChanged = false
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(Substring(String(parts[0].map { $0 == "+" ? " " : $0 })))
            guard parts.count == 2, names.isSecretParameter(name, common: common) else { return String(pair) }
            let value = PercentDecoding.decode(Substring(String(parts[1].map { $0 == "+" ? " " : $0 })))
            if !value.isEmpty { secrets.append(value) }
            redacted.append("form field \(name)")
            isChanged = true
            return "\(parts[0])=\(Self.placeholder)"
        }
        return isChanged ? Array(pairs.joined(separator: "&").utf8) : nil
    }

    /// A JSON body with the values of secret fields replaced; nil when it has none. Values long enough to search
    /// for go to `secrets` and are scrubbed where they stand, so the body keeps its bytes around them; a body with
    /// a shorter one is written anew with the placeholder in its place.
    private func redactJSON(_ body: [UInt8], common: Bool, into secrets: inout [String], names redacted: inout [String]) -> [UInt8]? {
        guard let first = body.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            first == UInt8(ascii: "{") || first == UInt8(ascii: "["), let value = try? JSONValue.parse(body)
        else { return nil }
        var hasShortValue = false
        func walk(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let members):
                return .object(
                    members.map { key, member in
                        guard names.isSecretField(key, common: common) else { return (key, walk(member)) }
                        let text: String
                        switch member {
                        case .string(let string): text = string
                        case .number(_, let written): text = written
                        case .null, .bool: return (key, member)
                        default: return (key, walk(member))
                        }
                        redacted.append("JSON field \(key)")
                        if text.utf8.count < Self.minimumScrubbedLength {
                            hasShortValue = true
                        } else {
                            secrets.append(text)
                        }
                        return (key, .string(Self.placeholder))
                    })
            case .array(let items): return .array(items.map(walk))
            default: return value
            }
        }
        let replaced = walk(value)
        return hasShortValue ? replaced.encodedBytes : nil
    }

    private func redactHeaders(_ headers: HTTPHeaders, into secrets: inout [String], names found: inout [String]) -> HTTPHeaders {
        guard headers.containsName(in: headerNames) else { return headers }
        var redacted = HTTPHeaders()
        for (name, value) in headers.entries {
            if isSensitive(name) {
                secrets += Self.secretParts(of: value, header: name)
                found.append("header \(name)")
                redacted.add(name, Self.placeholder)
            } else {
                redacted.add(name, value)
            }
        }
        return redacted
    }

    /// The target with the values of configured query parameters replaced, short ones included.
    private func redactQuery(_ target: String, common: Bool) -> String {
        guard let questionMark = target.firstIndex(of: "?") else { return target }
        let pairs = target[target.index(after: questionMark)...].split(separator: "&", omittingEmptySubsequences: false)
        let redacted = pairs.map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1).first.map { PercentDecoding.decode($0) } ?? ""
            return names.isSecretParameter(name, common: common) ? "\(pair.split(separator: "=", maxSplits: 1).first ?? "")=\(Self.placeholder)" : String(pair)
        }
        return target[...questionMark] + redacted.joined(separator: "&")
    }

    private func isSensitive(_ name: String) -> Bool {
        headerNames.contains(name)
    }

    /// The value, and the parts of it that travel alone: a bearer token, each cookie's value, and Basic
    /// credentials decoded (`user:password`, and the password).
    static func secretParts(of value: String, header: String) -> [String] {
        var parts = [value]
        if let space = value.firstIndex(of: " ") {
            let credentials = String(value[value.index(after: space)...]).trimmingSpaces
            parts.append(credentials)
            if String(value[..<space]).equalsIgnoringASCIICase("Basic"), let decoded = Base64.decode(Substring(credentials)),
                let text = String(validating: decoded, as: UTF8.self)
            {
                parts.append(text)
                if let colon = text.firstIndex(of: ":") { parts.append(String(text[text.index(after: colon)...])) }
            }
        }
        let lower = header.lowercased()
        if lower == "cookie" || lower == "set-cookie" {
            // Every pair of a Cookie; only the first of a Set-Cookie (the rest are attributes such as Path).
            let pairs = value.split(separator: ";")
            for pair in lower == "cookie" ? pairs : Array(pairs.prefix(1)) {
                if let equals = pair.firstIndex(of: "=") { parts.append(String(pair[pair.index(after: equals)...]).trimmingSpaces) }
            }
        }
        return parts
    }

    static func scrub(_ text: String, _ needles: SecretScrubber) -> String {
        var text = text
        guard let scrubbed = text.withUTF8({ needles.scrubbed(UnsafeRawBufferPointer($0)) }) else { return text }
        return String(decoding: scrubbed, as: UTF8.self)
    }

    static func scrub(_ headers: HTTPHeaders, _ needles: SecretScrubber) -> HTTPHeaders {
        var scrubbed = headers
        for (index, entry) in headers.entries.enumerated() {
            let value = scrub(entry.value, needles)
            if value != entry.value { scrubbed.entries[index].value = value }
        }
        return scrubbed
    }

    static func scrub(_ bytes: [UInt8], _ needles: SecretScrubber) -> [UInt8] {
        bytes.withUnsafeBytes { needles.scrubbed($0) } ?? bytes
    }

    static func scrubbed(_ bytes: UnsafeRawBufferPointer, _ needles: SecretScrubber) -> [UInt8]? {
        needles.scrubbed(bytes)
    }

    /// `text` with the secrets (given as bytes) scrubbed in every form.
    static func scrub(_ text: String, _ secrets: [[UInt8]]) -> String {
        scrub(text, SecretScrubber(secrets: secrets))
    }

    /// `bytes` with the secrets (given as bytes) scrubbed in every form; nil when none occurs.
    static func scrubbed(_ bytes: UnsafeRawBufferPointer, _ secrets: [[UInt8]]) -> [UInt8]? {
        SecretScrubber(secrets: secrets).scrubbed(bytes)
    }
}
