/// The life of one request to an upstream, from the name lookup to the last byte of the answer, as a value: the
/// upstream client feeds it what happened (resolved, connected, head read, the end, a deadline) and carries out what
/// it answers. Which deadline runs, whether reading is paused and whether a stale pooled connection is retried are
/// all read from the one stage, so no flag and timer can disagree.
///
/// Deadlines: the connect timeout while resolving and connecting; then the upstream timeout for each silence (the
/// wait for the head, and each gap between bytes of the body), not for a body that keeps flowing. While the client
/// reads too slowly and the body is paused, no deadline runs: the client's own send timeout (`--idle-timeout`, armed
/// by its connection while output waits unread) ends a client that stops reading, and with it the exchange.
public struct UpstreamExchangeState: Sendable, Equatable {
    public enum Stage: Sendable, Equatable {
        /// Not started.
        case idle
        /// Looking the name up.
        case resolving
        /// TCP (and TLS) being set up; the request waits in the connection's output.
        case connecting
        /// The request is sent (or queued on a connection that is up); no byte of the answer yet.
        case awaitingHead
        /// The head has been handed on; the body is coming. `isPaused`: the client has too much unread.
        case receivingBody(isPaused: Bool)
        case done(Outcome)
    }

    public enum Outcome: Sendable, Equatable {
        case completed
        case failed
        /// The client went away; nothing more is told to anyone.
        case cancelled
    }

    /// The deadline that should be running.
    public enum Deadline: Sendable, Equatable {
        case connect
        case silence
    }

    /// What the upstream client does next.
    public enum Action: Sendable, Equatable {
        case none
        /// Look the name up (and then make a connection and send).
        case resolve
        /// Send on the pooled connection taken.
        case send
        /// The pooled connection was stale: drop it, look the name up and send on a new one.
        case retry
        /// Hand the head on.
        case deliverHead
        /// Stop reading the upstream (back-pressure), or start again.
        case stopReading
        case startReading
        /// The answer is complete: the connection goes back to the pool unless `reuse` is false.
        case finish(reuse: Bool)
        /// Drop the connection and report the failure (`timedOut`: which deadline passed).
        case fail(timedOut: Deadline?)
        /// Drop the connection, report nothing.
        case abandon
    }

    public private(set) var stage = Stage.idle
    /// The request went out on a connection taken from the pool.
    public private(set) var isOnPooledConnection = false
    /// A stale pooled connection was already retried once.
    public private(set) var hasRetried = false

    public init() {}

    public var isDone: Bool {
        if case .done = stage { return true }
        return false
    }

    /// Whether the head has been handed on (a failure then cuts an answer under way).
    public var hasDeliveredHead: Bool {
        switch stage {
        case .receivingBody: true
        case .done, .idle, .resolving, .connecting, .awaitingHead: false
        }
    }

    /// The deadline the client should have armed now (re-armed on each byte received while it is `.silence`).
    public var deadline: Deadline? {
        switch stage {
        case .resolving, .connecting: .connect
        case .awaitingHead: .silence
        case .receivingBody(let isPaused): isPaused ? nil : .silence
        case .idle, .done: nil
        }
    }

    /// Whether the upstream should be read now.
    public var isReading: Bool {
        switch stage {
        case .connecting, .awaitingHead: true
        case .receivingBody(let isPaused): !isPaused
        case .idle, .resolving, .done: false
        }
    }

    public mutating func start(hasPooledConnection: Bool) -> Action {
        guard stage == .idle else { return .none }
        if hasPooledConnection {
            isOnPooledConnection = true
            stage = .awaitingHead
            return .send
        }
        stage = .resolving
        return .resolve
    }

    /// A connection was made for the resolved address, the request queued on it.
    public mutating func connecting() {
        guard stage == .resolving else { return }
        stage = .connecting
    }

    /// TCP (and TLS) is up.
    public mutating func connected() {
        guard stage == .connecting else { return }
        stage = .awaitingHead
    }

    /// The whole head arrived.
    public mutating func headReceived() -> Action {
        switch stage {
        case .connecting, .awaitingHead:
            stage = .receivingBody(isPaused: false)
            return .deliverHead
        case .idle, .resolving, .receivingBody, .done:
            return .none
        }
    }

    /// The answer is complete (`closesConnection`: the upstream or the framing ends the connection after it).
    public mutating func messageComplete(closesConnection: Bool) -> Action {
        guard !isDone, stage != .idle else { return .none }
        stage = .done(.completed)
        return .finish(reuse: !closesConnection)
    }

    /// The connection ended or failed before the answer was complete. `sawAnswer`: some of the answer had been read.
    public mutating func connectionEnded(sawAnswer: Bool) -> Action {
        switch stage {
        case .awaitingHead where isOnPooledConnection && !hasRetried && !sawAnswer:
            // The upstream had closed the idle connection before the request reached it: once more on a new one.
            hasRetried = true
            isOnPooledConnection = false
            stage = .resolving
            return .retry
        case .idle, .done:
            return .none
        case .resolving, .connecting, .awaitingHead, .receivingBody:
            stage = .done(.failed)
            return .fail(timedOut: nil)
        }
    }

    /// Something else failed: the name, setting up the connection, sending, or a malformed answer.
    public mutating func failed() -> Action {
        guard !isDone, stage != .idle else { return .none }
        stage = .done(.failed)
        return .fail(timedOut: nil)
    }

    /// The armed deadline passed.
    public mutating func deadlinePassed() -> Action {
        guard let deadline else { return .none }
        stage = .done(.failed)
        return .fail(timedOut: deadline)
    }

    /// The client has more unread than it should: stop reading the upstream.
    public mutating func pause() -> Action {
        guard stage == .receivingBody(isPaused: false) else { return .none }
        stage = .receivingBody(isPaused: true)
        return .stopReading
    }

    /// The client caught up.
    public mutating func resume() -> Action {
        guard stage == .receivingBody(isPaused: true) else { return .none }
        stage = .receivingBody(isPaused: false)
        return .startReading
    }

    /// The client went away: the upstream's answer is of no use any more.
    public mutating func cancel() -> Action {
        guard !isDone else { return .none }
        let wasStarted = stage != .idle
        stage = .done(.cancelled)
        return wasStarted ? .abandon : .none
    }
}
