import OrreryCore
import OrreryEvent

/// An admin API answer: a `Response`, or an answer streamed as it happens.
struct AdminReply {
    var response: Response
    /// For an answer streamed as it happens (server-sent events): starts it on the responder instead of sending
    /// `response`.
    var stream: (@Sendable (Responder) -> Void)?

    init(status: HTTPStatus, headers: HTTPHeaders, body: [UInt8]) {
        response = Response(status: status, headers: headers, body: Payload(body))
    }

    var status: HTTPStatus { response.status }

    var headers: HTTPHeaders {
        get { response.headers }
        set { response.headers = newValue }
    }

    /// The body's bytes, copied: for reading an answer, not for sending it.
    var body: [UInt8] { response.body.withUnsafeBytes { Array($0) } }

    /// An answer streamed by `start` once the request is authorized.
    static func streamed(_ start: @escaping @Sendable (Responder) -> Void) -> AdminReply {
        var reply = AdminReply(status: 200, headers: [:], body: [])
        reply.stream = start
        return reply
    }

    static func json(_ value: JSONValue, status: HTTPStatus = 200) -> AdminReply {
        AdminReply(
            status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: Array((value.prettyEncoded + "\n").utf8))
    }

    /// Every admin error: JSON with the status's `failureReason` and `recoverySuggestion`.
    static func error(
        _ code: HTTPStatusCode, _ message: String, details: [(String, JSONValue)] = [], failureReason: String? = nil,
        recoverySuggestion: String? = nil
    ) -> AdminReply {
        let error = ErrorResponse(
            code, message: message, details: details, failureReason: failureReason, recoverySuggestion: recoverySuggestion)
        return AdminReply(status: error.status, headers: error.headers, body: error.body)
    }

    /// 405 with the `Allow` header a client needs to try again.
    static func methodNotAllowed(_ request: HTTPRequest, allowed: [String]) -> AdminReply {
        let list = allowed.joined(separator: ", ")
        var reply = AdminReply.error(.Code405MethodNotAllowed, "\(request.method) is not supported on \(request.path); use \(list).")
        reply.headers.add("Allow", list)
        return reply
    }

    static func noSuchStub(_ id: String) -> AdminReply {
        .error(.Code404NotFound, "There is no stub with id '\(id)'.")
    }

    /// 422 listing every error with its file and line.
    static func sourceErrors(
        _ errors: SourceErrors, message: String, details: [(String, JSONValue)] = [], failureReason: String? = nil,
        recoverySuggestion: String? = nil
    ) -> AdminReply {
        let list: [JSONValue] = errors.errors.map { error in
            .object([
                ("file", .string(error.file)), ("line", .int(error.line)), ("message", .string(error.message)),
                ("text", .string(error.description)),
            ])
        }
        return .error(
            .Code422UnprocessableContent, message, details: details + [("errors", .array(list))], failureReason: failureReason,
            recoverySuggestion: recoverySuggestion)
    }
}

/// What an endpoint read from a request: the value it needs, or the answer that says why it cannot have it.
enum AdminInput<Value> {
    case success(Value)
    case failure(AdminReply)
}
