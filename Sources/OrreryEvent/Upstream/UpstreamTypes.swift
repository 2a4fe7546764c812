import OrreryCore

/// A request for an upstream server, with everything copied out of the client's request. An object: it is made
/// once and passed from the forwarder to the exchange that keeps it, without copying its fields at each step.
public final class UpstreamRequest: Sendable {
    public let upstream: Upstream
    public let method: String
    /// Origin-form target: path and query (`/users?page=2`).
    public let target: String
    /// A forwarded request's fields as their parts; nil when the fields were given as a list.
    public let forwarded: ForwardedFields?
    private let listed: HTTPHeaders
    public let body: [UInt8]

    /// The fields as a list. A forwarded request's are made from `forwarded` when asked (for an HTTP/2 upstream);
    /// an HTTP/1.1 upstream's head is written from `forwarded` without them.
    public var headers: HTTPHeaders { forwarded?.list ?? listed }

    public init(upstream: Upstream, method: String, target: String, headers: HTTPHeaders, body: [UInt8]) {
        self.upstream = upstream
        self.method = method
        self.target = target
        forwarded = nil
        listed = headers
        self.body = body
    }

    /// A forwarded request whose fields follow `ProxyHeaders`'s rules from the client's.
    public init(upstream: Upstream, method: String, target: String, forwarding fields: ForwardedFields, body: [UInt8]) {
        self.upstream = upstream
        self.method = method
        self.target = target
        forwarded = fields
        listed = HTTPHeaders()
        self.body = body
    }
}

/// What the upstream answered.
public struct UpstreamResponse: Sendable {
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders
    /// Copied once out of libevent's buffer, and sent on to the client by reference.
    public var body: Payload
}

/// The head of an upstream's answer, handed on before its body.
public struct UpstreamResponseHead: Sendable {
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders
    /// The body's length as the upstream framed it; nil when chunked or running to the end of the connection.
    public var contentLength: Int?
    /// Whether a body follows (not for `HEAD`, 204, 304).
    public var hasBody: Bool
}

/// Receives an upstream's answer as it arrives, on the client's loop: the head, the body a piece at a time, then
/// the end or a failure (once, whichever comes first; nothing after `upstreamFailed` or a `cancel`).
public protocol UpstreamReceiver: AnyObject {
    /// The head is the receiver's: its fields (the parser's own list) may be taken and changed without a copy.
    func upstream(_ exchange: UpstreamExchange, receivedHead head: consuming UpstreamResponseHead)
    /// A piece of the body, valid only during the call (it points into the read buffer).
    func upstream(_ exchange: UpstreamExchange, receivedBody bytes: UnsafeRawBufferPointer)
    /// What one read brought has all been handed on, and more is to come: a good time to write it out.
    func upstreamPaused(_ exchange: UpstreamExchange)
    /// The answer is complete.
    func upstreamFinished(_ exchange: UpstreamExchange)
    func upstream(_ exchange: UpstreamExchange, failed failure: UpstreamFailure)
}

/// Why an upstream exchange failed, in SquidKit's `ResponseStatus` terms.
public struct UpstreamFailure: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The name does not resolve.
        case hostNotFound
        /// Refused, unreachable, or closed before answering.
        case hostConnectionError
        /// No connection or no answer in time.
        case timeout
        /// The connection broke in the middle of the response.
        case connectionReset
        /// The TLS handshake or certificate check failed.
        case tlsError
        /// The target is this daemon itself: the request would come back to it.
        case loopDetected
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}

/// How the upstream client connects and how long it waits.
public struct UpstreamClientConfiguration: Sendable {
    /// Milliseconds to wait for a TCP (and TLS) connection.
    public var connectTimeoutMilliseconds = 5_000
    /// Milliseconds of silence allowed once the request is sent: for the head, and between bytes of the body (a body
    /// that keeps flowing is not cut).
    public var responseTimeoutMilliseconds = 30_000
    /// Extra CA certificates (PEM) trusted besides the system's, for upstreams with a private CA.
    public var caFile: String?
    /// `host:port` of the DNS server to ask instead of those in /etc/resolv.conf.
    public var dnsServer: String?
    /// Idle keep-alive connections kept per upstream and event loop.
    public var maximumIdleConnectionsPerHost = 64

    public init() {}
}
