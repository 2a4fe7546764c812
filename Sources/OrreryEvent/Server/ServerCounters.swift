import Synchronization

/// What one event loop's server has done: connections, TLS handshakes, requests refused before the handler. Written
/// by that loop's thread alone and read by anyone (the metrics scrape).
///
/// Each counter has one writer, so it is bumped with a relaxed load and store (plain moves on x86), not a locked
/// read-modify-write; a reader on another thread sees a value at most a few requests old.
public final class ServerCounters: Sendable {
    private let opened = Atomic<Int>(0)
    private let open = Atomic<Int>(0)
    private let handshakes = Atomic<Int>(0)
    private let handshakeFailures = Atomic<Int>(0)
    private let rejectedClientErrors = Atomic<Int>(0)
    private let rejectedServerErrors = Atomic<Int>(0)

    public init() {}

    /// Connections accepted, ever.
    public var connectionsOpened: Int { opened.load(ordering: .relaxed) }
    /// Connections open now.
    public var connectionsOpen: Int { open.load(ordering: .relaxed) }
    /// TLS handshakes completed, ever.
    public var tlsHandshakes: Int { handshakes.load(ordering: .relaxed) }
    /// TLS connections that ended before their handshake completed.
    public var tlsHandshakeFailures: Int { handshakeFailures.load(ordering: .relaxed) }
    /// Requests refused by the server before any handler saw them (malformed, too large), by status class.
    public var rejected: (clientErrors: Int, serverErrors: Int) {
        (rejectedClientErrors.load(ordering: .relaxed), rejectedServerErrors.load(ordering: .relaxed))
    }

    func connectionOpened(nowOpen: Int) {
        Self.bump(opened)
        open.store(nowOpen, ordering: .relaxed)
    }
    func connectionClosed(nowOpen: Int) { open.store(nowOpen, ordering: .relaxed) }
    func handshakeCompleted() { Self.bump(handshakes) }
    func handshakeFailed() { Self.bump(handshakeFailures) }
    func rejected(status: Int) {
        if status >= 500 { Self.bump(rejectedServerErrors) } else { Self.bump(rejectedClientErrors) }
    }

    /// One writer: a relaxed load and store, never a locked increment.
    private static func bump(_ counter: borrowing Atomic<Int>) {
        counter.store(counter.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }
}
