import OrreryCore

/// A request for an upstream server, with everything copied out of the client's request.
public struct UpstreamRequest: Sendable {
    public var upstream: Upstream
    public var method: String
    /// Origin-form target: path and query (`/users?page=2`).
    public var target: String
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(upstream: Upstream, method: String, target: String, headers: HTTPHeaders, body: [UInt8]) {
        self.upstream = upstream
        self.method = method
        self.target = target
        self.headers = headers
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
    /// Milliseconds to wait for the whole response once the request is sent.
    public var responseTimeoutMilliseconds = 30_000
    /// Extra CA certificates (PEM) trusted besides the system's, for upstreams with a private CA.
    public var caFile: String?
    /// `host:port` of the DNS server to ask instead of those in /etc/resolv.conf.
    public var dnsServer: String?
    /// Idle keep-alive connections kept per upstream and event loop.
    public var maximumIdleConnectionsPerHost = 64

    public init() {}
}
