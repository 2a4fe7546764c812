/// Why bytes could not be read as an HTTP/1 message, and what a server answers for it.
public struct HTTP1ParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not HTTP/1 by RFC 9112's grammar, or ambiguous framing a proxy must not pass on (400).
        case malformed
        /// The request target is longer than the limit (414).
        case targetTooLong
        /// The head (header lines) is larger than the limit (431; for a response, the upstream's fault).
        case headTooLarge
        /// The body is larger than the limit (413).
        case bodyTooLarge
        /// A transfer coding before `chunked` that Orrery does not decode (501).
        case unsupportedTransferCoding
        /// The connection ended before the message did.
        case truncated
    }

    public var kind: Kind
    /// What was wrong, for a person: "two Content-Length values that differ (5 and 6)".
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    static func malformed(_ message: String) -> HTTP1ParseError { HTTP1ParseError(.malformed, message) }

    /// The status a server answers a request with this error.
    public var status: HTTPStatusCode {
        switch kind {
        case .malformed, .truncated: .Code400BadRequest
        case .targetTooLong: .Code414URITooLong
        case .headTooLarge: .Code431RequestHeaderFieldsTooLarge
        case .bodyTooLarge: .Code413ContentTooLarge
        case .unsupportedTransferCoding: .Code501NotImplemented
        }
    }

    public var description: String { message }
}
