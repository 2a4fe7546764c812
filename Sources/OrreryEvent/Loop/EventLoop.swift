import CLibevent
import Glibc
import Synchronization

/// One libevent `event_base` and the thread that runs it.
///
/// Everything that touches the base (its HTTP server, timers, requests) happens on that thread; other threads
/// hand work over with `execute`, which wakes the loop through an activated event.
public final class EventLoop: @unchecked Sendable {
    // @unchecked: `base` and `wakeup` are only used on the loop's own thread, except `event_active`, which
    // libevent makes thread-safe once pthread locking is on; the job queue is behind a Mutex.
    let base: OpaquePointer
    private var wakeup: OpaquePointer?
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    /// libevent's common-timeout markers by delay in milliseconds; used on the loop's thread only.
    private var commonTimeouts: [Int: UnsafePointer<timeval>] = [:]

    public init() throws(EventError) {
        Libevent.prepare()
        guard let base = Self.makeBase() else { throw EventError("event_base_new failed") }
        self.base = base
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let wakeup = event_new(base, -1, Int16(EV_PERSIST), Trampolines.loopWakeup, context) else {
            event_base_free(base)
            throw EventError("event_new failed")
        }
        // A persistent event with no fd and no timeout keeps the loop alive until `stop`.
        event_add(wakeup, nil)
        self.wakeup = wakeup
    }

    /// A base with precise timers, whose epoll backend batches changes: evhttp turns reading and writing on and off several times per
    /// request, and the changelist folds those into at most one `epoll_ctl` per descriptor and loop iteration
    /// instead of one each. (Its caveat, descriptors shared through `dup`, does not arise: every socket here is
    /// libevent's own.)
    private static func makeBase() -> OpaquePointer? {
        guard let configuration = event_config_new() else { return nil }
        defer { event_config_free(configuration) }
        _ = event_config_set_flag(configuration, Int32(EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST.rawValue))
        // Timers by the precise monotonic clock: with the coarse one (libevent's default) a stub's 400 ms delay
        // could end a few milliseconds early.
        _ = event_config_set_flag(configuration, Int32(EVENT_BASE_FLAG_PRECISE_TIMER.rawValue))
        return event_base_new_with_config(configuration)
    }

    deinit {
        // Events belong to the base: free them first (Swift releases stored properties only after deinit's body).
        if let wakeup { event_free(wakeup) }
        event_base_free(base)
    }

    /// Runs the loop on the calling thread until `stop`.
    public func run() {
        withExtendedLifetime(self) {
            _ = event_base_dispatch(base)
        }
    }

    /// Runs `job` on the loop's thread, soon. Safe from any thread.
    public func execute(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        if let wakeup { event_active(wakeup, Int32(EV_READ), 0) }
    }

    func runPendingJobs() {
        let pending = jobs.withLock { queue in
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            return taken
        }
        for job in pending { job() }
    }

    /// Runs `job` once on this loop after a delay. Call on the loop's thread.
    public func schedule(afterMilliseconds milliseconds: Int, _ job: @escaping () -> Void) {
        let box = Unmanaged.passRetained(JobBox(job)).toOpaque()
        var delay = timeval(milliseconds: milliseconds)
        if event_base_once(base, -1, Int16(EV_TIMEOUT), Trampolines.runOnce, box, &delay) != 0 {
            Unmanaged<JobBox>.fromOpaque(box).release()
        }
    }

    /// The timeval to pass to `event_add` for a delay of `milliseconds`: a common timeout of this base, so that
    /// events with the same delay sit in one queue instead of the timer heap. Call on the loop's thread.
    private func commonTimeout(milliseconds: Int) -> UnsafePointer<timeval>? {
        if let known = commonTimeouts[milliseconds] { return known }
        var delay = timeval(milliseconds: milliseconds)
        guard let marker = event_base_init_common_timeout(base, &delay) else { return nil }
        commonTimeouts[milliseconds] = marker
        return marker
    }

    /// Adds `event` to fire after `milliseconds`, through the common timeout of that delay when libevent has one.
    /// Call on the loop's thread.
    func add(_ event: OpaquePointer, afterMilliseconds milliseconds: Int) {
        if let marker = commonTimeout(milliseconds: milliseconds) {
            event_add(event, marker)
        } else {
            var delay = timeval(milliseconds: milliseconds)
            event_add(event, &delay)
        }
    }

    /// Makes `run` return once the current callbacks finish. Safe from any thread.
    public func stop() {
        execute { [self] in
            _ = event_base_loopexit(self.base, nil)
        }
    }
}

/// A closure carried through a C `void *` argument.
final class JobBox {
    let job: () -> Void

    init(_ job: @escaping () -> Void) {
        self.job = job
    }
}

/// A failure in the event layer, with what failed.
public struct EventError: Error, CustomStringConvertible, Sendable {
    public var description: String

    init(_ description: String) {
        self.description = description
    }

    static func system(_ what: String) -> EventError {
        EventError("\(what): \(String(cString: strerror(errno)))")
    }
}
