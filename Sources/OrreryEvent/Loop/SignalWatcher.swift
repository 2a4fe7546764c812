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
