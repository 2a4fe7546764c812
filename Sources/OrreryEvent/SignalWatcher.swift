import CLibevent
import Glibc

/// Delivers POSIX signals as callbacks on an event loop's thread (libevent's self-pipe, no async-signal worries).
public final class SignalWatcher {
    private var events: [OpaquePointer] = []
    private let handler: (Int32) -> Void

    /// Call on the loop's thread, or before the loop runs.
    public init(loop: EventLoop, signals: [Int32], handler: @escaping (Int32) -> Void) throws(EventError) {
        self.handler = handler
        // A parent may have started us with these signals blocked (test runners do); they must reach this thread.
        SignalMask.change(SIG_UNBLOCK, signals)
        let context = Unmanaged.passUnretained(self).toOpaque()
        for signalNumber in signals {
            guard let event = CLibevent_evsignal_new(loop.base, signalNumber, Trampolines.signalFired, context),
                event_add(event, nil) == 0
            else { throw EventError("cannot watch signal \(signalNumber)") }
            events.append(event)
        }
    }

    func fire(_ signal: Int32) {
        handler(signal)
    }

    /// Stops watching; the signals get their default behaviour back.
    public func cancel() {
        for event in events { event_free(event) }
        events.removeAll()
    }

    deinit {
        cancel()
    }
}

/// A callback on an event loop every interval, until cancelled.
public final class RepeatingTimer {
    private var event: OpaquePointer?
    private let action: () -> Void

    /// Call on the loop's thread, or before the loop runs.
    public init(loop: EventLoop, intervalMilliseconds: Int, action: @escaping () -> Void) throws(EventError) {
        self.action = action
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let event = event_new(loop.base, -1, Int16(EV_PERSIST), Trampolines.timerFired, context) else {
            throw EventError("event_new failed for a timer")
        }
        var interval = timeval(tv_sec: intervalMilliseconds / 1000, tv_usec: (intervalMilliseconds % 1000) * 1000)
        event_add(event, &interval)
        self.event = event
    }

    func fire() {
        action()
    }

    public func cancel() {
        if let event { event_free(event) }
        event = nil
    }

    deinit {
        cancel()
    }
}

/// Changes which signals the calling thread blocks.
enum SignalMask {
    static func change(_ how: Int32, _ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(how, &set, nil)
    }

    /// The signals the daemon handles on its control loop; event loop threads block them so they land there.
    static let handledByControlLoop: [Int32] = [SIGINT, SIGTERM, SIGHUP]
}
