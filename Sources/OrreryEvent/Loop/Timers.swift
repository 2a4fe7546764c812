import CLibevent
import Glibc

extension timeval {
    /// A libevent delay of `milliseconds`.
    init(milliseconds: Int) {
        self.init(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
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
        var interval = timeval(milliseconds: intervalMilliseconds)
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

/// A callback on an event loop once, after a delay, unless cancelled or released first: deadlines such as an
/// upstream's response timeout, set for every request and nearly always cancelled.
///
/// Timers of one delay share a libevent common-timeout queue, so adding and removing one is O(1) however many are
/// pending, and a cancelled one is gone at once instead of waiting out its delay.
final class OneShotTimer {
    private var event: OpaquePointer?
    private var action: (() -> Void)?

    /// Call on the loop's thread. The owner keeps the timer; releasing it cancels it.
    init(loop: EventLoop, afterMilliseconds milliseconds: Int, action: @escaping () -> Void) {
        self.action = action
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let event = event_new(loop.base, -1, 0, Trampolines.oneShotTimerFired, context) else { return }
        self.event = event
        loop.add(event, afterMilliseconds: milliseconds)
    }

    func fire() {
        let action = self.action
        cancel()
        action?()
    }

    func cancel() {
        if let event { event_free(event) }
        event = nil
        action = nil
    }

    deinit {
        cancel()
    }
}
