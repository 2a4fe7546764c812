/// A broken answer a stub asks for, to test how a client copes (`fault:`).
public enum Fault: String, Sendable, Equatable, CaseIterable {
    /// A TCP reset (RST), nothing sent.
    case connectionReset
    /// The connection closed with nothing sent.
    case emptyResponse
    /// Bytes that are not HTTP, then closed.
    case malformedResponse
    /// The head with the full `Content-Length`, then half the body, then closed.
    case truncatedBody
    /// Never answered, until the client or the drain timeout ends the connection.
    case noResponse

    /// What `malformedResponse` sends: not a status line, and not something a client could mistake for one.
    public static let malformedBytes: [UInt8] = Array("\u{1}\u{2}orrery: this is not an HTTP response\r\n\r\n\u{0}\u{0}\u{7F}".utf8)

    /// How many bytes of a body `truncatedBody` sends: half, rounded down (nothing of a one-byte body).
    public static func truncatedLength(of bodyCount: Int) -> Int {
        max(0, bodyCount) / 2
    }

    /// Whether any part of the stub's response (status, headers, body) goes out.
    public var sendsResponse: Bool { self == .truncatedBody }
}
