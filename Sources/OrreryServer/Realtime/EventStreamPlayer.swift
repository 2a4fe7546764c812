import OrreryCore
import OrreryEvent

/// Plays a stub's server-sent events: the head at once, each event when its delay after the one before it has
/// passed, then the end of the stream, or nothing more with `keepOpen` until the client leaves. Journaled before
/// the head goes out, with the whole stream as its body; counted in the metrics as the head goes out, as a stub's
/// answer is (its duration then includes the response `delay`).
enum EventStreamPlayer {
    static func start(
        _ script: EventStreamScript, prepared: PreparedResponse, of entry: IndexedStub, for exchange: Exchange,
        serviceLogger: NetworkServiceLogger, metrics: LoopMetrics?
    ) {
        let outcome = JournalEntry.Outcome.stub(entry.stub)
        serviceLogger.log(
            exchange, status: prepared.status, headers: prepared.headers, body: Payload(script.encoded),
            outcome: outcome)
        let start = {
            metrics?.answered(
                .stub, status: prepared.status, kind: exchange.sessionKind, startedAt: exchange.arrivedAt)
            guard let stream = exchange.responder.startStream(status: prepared.status, headers: prepared.headers) else {
                return
            }
            play(script.events[...], keepOpen: script.keepOpen, on: stream)
        }
        if prepared.delayMilliseconds > 0 {
            exchange.responder.after(milliseconds: prepared.delayMilliseconds, start)
        } else {
            start()
        }
    }

    /// Sends the next event when it is due, and so on: one timer at a time, so events keep their order.
    private static func play(_ events: ArraySlice<EventStreamScript.Event>, keepOpen: Bool, on stream: ResponseStream) {
        guard stream.isOpen else { return }
        guard let event = events.first else {
            if !keepOpen { stream.finish() }
            return
        }
        let send = {
            guard stream.send(event.encoded) else { return }
            play(events.dropFirst(), keepOpen: keepOpen, on: stream)
        }
        if event.delayMilliseconds > 0 {
            stream.loop.schedule(afterMilliseconds: event.delayMilliseconds, send)
        } else {
            send()
        }
    }
}
