import OrreryCore

/// Where and how the HTTP server listens, the limits it enforces on requests, and how long it waits for clients.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind to (`127.0.0.1`, `::1`, `0.0.0.0`, `localhost`).
    public var host = "127.0.0.1"
    /// Port to bind to; 0 picks a free one (read it back from `HTTPServer.port`).
    public var port = 8080
    /// Event loops, each on its own thread, all accepting on the port.
    public var threads = 1
    /// Longer request targets get 414.
    public var maxURILength = 8 * 1024
    /// Request heads (all header lines together) over this get 431.
    public var maxHeaderBytes = 64 * 1024
    /// Bodies over this get 413.
    public var maxBodyBytes = 64 * 1024 * 1024
    /// Idle keep-alive connections are closed after this many milliseconds; it also bounds how long a client may
    /// take to read an answer.
    public var idleTimeoutMilliseconds = 60_000
    /// A request's head must arrive within this many milliseconds of its first byte (408 otherwise).
    public var headerTimeoutMilliseconds = 10_000
    /// A request's body may pause this long between two reads (408 otherwise).
    public var bodyTimeoutMilliseconds = 30_000
    /// After an answer that closes the connection, bytes the client still sends are read and dropped this long,
    /// so that closing does not reset the connection under the answer (a lingering close).
    public var lingerMilliseconds = 2_000
    /// Connections open at once on each event loop; at the limit a loop stops accepting until one closes.
    public var maxConnectionsPerLoop = 10_000
    /// HTTP/2 streams a client may have open at once on one connection (`SETTINGS_MAX_CONCURRENT_STREAMS`); more
    /// are refused (`REFUSED_STREAM`).
    public var http2MaxStreams = 100
    /// A `CONNECT` tunnel that carries nothing either way for this many milliseconds is closed.
    public var tunnelIdleTimeoutMilliseconds = 300_000

    public init() {}

    var parserLimits: HTTP1Parser.Limits {
        HTTP1Parser.Limits(maximumTargetLength: maxURILength, maximumHeadBytes: maxHeaderBytes, maximumBodyBytes: maxBodyBytes)
    }

    func milliseconds(for timeout: HTTP1ConnectionStateMachine.Timeout) -> Int {
        switch timeout {
        case .idle, .send: idleTimeoutMilliseconds
        case .head: headerTimeoutMilliseconds
        case .body: bodyTimeoutMilliseconds
        }
    }
}

/// Something the server did that its owner should log: it has no logger of its own.
public enum ServerEvent: Sendable {
    /// Accepting failed for want of file descriptors (or memory); the loop pauses accepting for a moment.
    case acceptPaused(loop: Int, reason: String, milliseconds: Int)
    /// Accepting works again after a pause.
    case acceptResumed(loop: Int)
    /// A loop holds as many connections as it may; it accepts again once one closes.
    case connectionLimitReached(loop: Int, limit: Int)
}
