/// A response made into bytes: the head (status line, fields, `Content-Length`) and the body, both held by
/// reference so a server writes them without copying. A stub's responses are encoded once, when stubs load; the
/// end of the head (`Date`, `Connection`, the blank line) is added as each goes out.
public struct EncodedResponse: Sendable {
    public let status: Int
    /// The head without its end (see `HTTP1Encoder.tail`).
    public let head: Payload
    public let body: Payload
    /// The fields carry a `Date` of their own (a stub's or a recording's), which is kept.
    public let hasDate: Bool
    /// The fields said `Connection: close`: the connection ends after this answer.
    public let closesConnection: Bool
    /// Fields sent after the body: HTTP/2 trailers, or chunked trailers for an HTTP/1.1 client that sent
    /// `TE: trailers` (other clients get none). Nil for nearly every answer.
    public var trailers: HTTPHeaders?

    /// - Parameter contentLength: the length to declare when it is not the body's: the answer to a `HEAD`.
    public init(status: Int, reason: String = "", headers: HTTPHeaders, body: Payload, contentLength: Int? = nil) {
        self.status = status
        let encoded = HTTP1Encoder.responseHead(
            status: status, reason: reason, headers: headers, contentLength: contentLength ?? body.count)
        head = encoded.bytes
        self.body = HTTP1Encoder.allowsBody(status: status) ? body : Payload.empty
        hasDate = encoded.hasDate
        closesConnection = encoded.closesConnection
    }

    /// A body made for this request under a head encoded beforehand (`HTTP1Encoder.PreparedHead`): the same bytes
    /// as the fields would give, without encoding them again.
    public init(_ prepared: HTTP1Encoder.PreparedHead, body: Payload) {
        status = prepared.status
        let allowsBody = HTTP1Encoder.allowsBody(status: prepared.status)
        self.body = allowsBody ? body : Payload.empty
        head = prepared.head(contentLength: body.count)
        hasDate = prepared.hasDate
        closesConnection = prepared.closesConnection
    }

    /// An error Orrery makes itself; it closes the connection when `closing`.
    public init(_ error: ErrorResponse, closing: Bool = false) {
        var headers = error.headers
        if closing { headers.add("Connection", "close") }
        self.init(status: error.status.code, headers: headers, body: Payload(error.body))
    }

    /// The bytes that go out for a request in `context`: the body is left out for `HEAD`.
    public func sendsBody(in context: ResponseContext) -> Bool {
        !context.isHead && body.count > 0
    }
}
