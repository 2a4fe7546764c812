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

    public init() throws(EventError) {
        Libevent.prepare()
        guard let base = event_base_new() else { throw EventError("event_base_new failed") }
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
        var delay = timeval(tv_sec: milliseconds / 1000, tv_usec: (milliseconds % 1000) * 1000)
        if event_base_once(base, -1, Int16(EV_TIMEOUT), Trampolines.runOnce, box, &delay) != 0 {
            Unmanaged<JobBox>.fromOpaque(box).release()
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
