/// Where and how the HTTP server listens, and the limits it enforces on requests.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind to (`127.0.0.1`, `::1`, `0.0.0.0`, `localhost`).
    public var host = "127.0.0.1"
    /// Port to bind to; 0 picks a free one (read it back from `HTTPServer.port`).
    public var port = 8080
    /// Event loops, each on its own thread with its own listening socket on the same port.
    public var threads = 1
    /// Longer request targets get 414.
    public var maxURILength = 8 * 1024
    /// Request heads (all header lines together) over this get 431.
    public var maxHeaderBytes = 64 * 1024
    /// Bodies over this get 413.
    public var maxBodyBytes = 64 * 1024 * 1024
    /// Idle keep-alive connections are closed after this many seconds.
    public var idleTimeoutSeconds = 60

    public init() {}

    /// libevent's own cap on a request head. Set well above Orrery's limits so that Orrery, not libevent,
    /// answers ordinary oversized heads with 414 or 431; only heads beyond this cap get libevent's 413.
    var hardHeadLimit: Int { max(1 << 20, 2 * (maxHeaderBytes + maxURILength)) }
}
