/// A response Orrery makes itself (no stub, a bad request, an admin error): JSON that carries the status's
/// `failureReason` and `recoverySuggestion`, so a developer reading a failed test sees what to do.
public struct ErrorResponse: Sendable {
    public var status: HTTPStatus
    public var message: String
    /// Extra members (near misses, the file and line of an error).
    public var details: [(String, JSONValue)]
    /// The reason in place of the status's own, when Orrery knows better (a certificate that failed its check).
    public var failureReason: String?
    /// The suggestion in place of the status's own, when the status's would mislead (a reload has no request body
    /// to fix).
    public var recoverySuggestion: String?

    public init(
        status: HTTPStatus, message: String, details: [(String, JSONValue)] = [], failureReason: String? = nil,
        recoverySuggestion: String? = nil
    ) {
        self.status = status
        self.message = message
        self.details = details
        self.failureReason = failureReason
        self.recoverySuggestion = recoverySuggestion
    }

    public init(
        _ code: HTTPStatusCode, message: String, details: [(String, JSONValue)] = [], failureReason: String? = nil,
        recoverySuggestion: String? = nil
    ) {
        self.init(
            status: HTTPStatus(code), message: message, details: details, failureReason: failureReason,
            recoverySuggestion: recoverySuggestion)
    }

    public var json: JSONValue {
        let code = status.known
        var members: [(String, JSONValue)] = [
            ("status", .int(status.code)),
            ("error", .string(status.reasonPhrase)),
            ("message", .string(message)),
            ("failureReason", .string(failureReason ?? code?.failureReason ?? "The request failed with status \(status).")),
            ("recoverySuggestion", .string(recoverySuggestion ?? code?.recoverySuggestion ?? "Check the request and try again.")),
        ]
        members += details
        return .object(members)
    }

    public var body: [UInt8] { Array((json.prettyEncoded + "\n").utf8) }

    public var headers: HTTPHeaders {
        ["Content-Type": "application/json", "Cache-Control": "no-store"]
    }
}
