/// An answer made for one request: a miss, an error, an admin answer, an upstream's answer relayed. A stub's answer
/// is a `PreparedResponse` instead, encoded once when the stubs load; both go out as an `EncodedResponse`.
public struct Response: Sendable {
    public var status: HTTPStatus
    /// The reason phrase to send; empty for the registry's.
    public var reason: String
    public var headers: HTTPHeaders
    public var body: Payload
    /// The length to declare when it is not the body's: the upstream's answer to a `HEAD`.
    public var contentLength: Int?
    /// Fields sent after the body (an HTTP/2 upstream's `grpc-status`); nil for nearly every answer.
    public var trailers: HTTPHeaders?

    public init(status: HTTPStatus, reason: String = "", headers: HTTPHeaders, body: Payload, contentLength: Int? = nil) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body
        self.contentLength = contentLength
    }

    /// An error Orrery makes itself, with its kind in `X-Orrery-Error` when it has one.
    public init(_ error: ErrorResponse, kind: String? = nil) {
        var headers = error.headers
        if let kind { headers.add("X-Orrery-Error", kind) }
        self.init(status: error.status, headers: headers, body: Payload(error.body))
    }

    /// The bytes to send.
    public var encoded: EncodedResponse {
        var encoded = EncodedResponse(
            status: status.code, reason: reason, headers: headers, body: body, contentLength: contentLength)
        encoded.trailers = trailers
        return encoded
    }
}
