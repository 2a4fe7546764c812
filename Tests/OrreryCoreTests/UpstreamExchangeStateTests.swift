import Testing

@testable import OrreryCore

/// The upstream exchange as a value: events in, actions and the deadline out, with no socket.
@Suite("The upstream exchange")
struct UpstreamExchangeStateTests {
    @Test("A new connection: resolve, connect, head, body, done; the connect deadline, then the silence deadline")
    func newConnection() {
        var state = UpstreamExchangeState()
        #expect(state.deadline == nil && !state.isReading)
        #expect(state.start(hasPooledConnection: false) == .resolve)
        #expect(state.deadline == .connect && !state.isReading)
        state.connecting()
        #expect(state.stage == .connecting && state.deadline == .connect && state.isReading)
        state.connected()
        #expect(state.stage == .awaitingHead && state.deadline == .silence)
        #expect(state.headReceived() == .deliverHead)
        #expect(state.hasDeliveredHead && state.deadline == .silence && state.isReading)
        #expect(state.headReceived() == .none)
        #expect(state.messageComplete(closesConnection: false) == .finish(reuse: true))
        #expect(state.stage == .done(.completed) && state.deadline == nil && !state.isReading)
        // Nothing moves a finished exchange.
        #expect(state.deadlinePassed() == .none && state.cancel() == .none && state.failed() == .none)
        #expect(state.connectionEnded(sawAnswer: true) == .none)
    }

    @Test("A pooled connection sends at once and waits for the head under the silence deadline")
    func pooled() {
        var state = UpstreamExchangeState()
        #expect(state.start(hasPooledConnection: true) == .send)
        #expect(state.isOnPooledConnection && state.stage == .awaitingHead && state.deadline == .silence)
        #expect(state.headReceived() == .deliverHead)
        #expect(state.messageComplete(closesConnection: true) == .finish(reuse: false))
    }

    @Test("A stale pooled connection is retried once on a new one, never twice, and not after part of an answer")
    func retry() {
        var state = UpstreamExchangeState()
        _ = state.start(hasPooledConnection: true)
        #expect(state.connectionEnded(sawAnswer: false) == .retry)
        #expect(state.stage == .resolving && state.hasRetried && !state.isOnPooledConnection && state.deadline == .connect)
        state.connecting()
        state.connected()
        #expect(state.connectionEnded(sawAnswer: false) == .fail(timedOut: nil))
        #expect(state.stage == .done(.failed))

        var broken = UpstreamExchangeState()
        _ = broken.start(hasPooledConnection: true)
        #expect(broken.connectionEnded(sawAnswer: true) == .fail(timedOut: nil))
    }

    @Test("Back-pressure: paused, no deadline runs and nothing is read; resumed, the silence deadline is back")
    func backPressure() {
        var state = UpstreamExchangeState()
        _ = state.start(hasPooledConnection: true)
        #expect(state.pause() == .none)  // nothing to pause before the head
        _ = state.headReceived()
        #expect(state.pause() == .stopReading)
        #expect(state.deadline == nil && !state.isReading)
        #expect(state.pause() == .none)
        #expect(state.deadlinePassed() == .none)
        #expect(state.resume() == .startReading)
        #expect(state.deadline == .silence && state.isReading)
        #expect(state.resume() == .none)
    }

    @Test("Deadlines say which one passed: the connect while resolving or connecting, the silence after")
    func deadlines() {
        var resolving = UpstreamExchangeState()
        _ = resolving.start(hasPooledConnection: false)
        #expect(resolving.deadlinePassed() == .fail(timedOut: .connect))
        #expect(resolving.stage == .done(.failed))

        var streaming = UpstreamExchangeState()
        _ = streaming.start(hasPooledConnection: true)
        _ = streaming.headReceived()
        #expect(streaming.deadlinePassed() == .fail(timedOut: .silence))
    }

    @Test("A client that leaves abandons a started exchange; one never started has nothing to drop")
    func cancel() {
        var idle = UpstreamExchangeState()
        #expect(idle.cancel() == .none)
        #expect(idle.stage == .done(.cancelled))

        var running = UpstreamExchangeState()
        _ = running.start(hasPooledConnection: true)
        _ = running.headReceived()
        _ = running.pause()
        #expect(running.cancel() == .abandon)
        #expect(running.stage == .done(.cancelled) && running.deadline == nil)
        #expect(running.resume() == .none && running.messageComplete(closesConnection: false) == .none)
    }
}
