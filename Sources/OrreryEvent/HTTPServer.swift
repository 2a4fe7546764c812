import CLibevent  // libevent's headers define the time structs this file reads, for the compiler's import checks
import Glibc
import Synchronization

/// An HTTP/1.1 server on libevent: one event loop per thread, all accepting on one port.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    /// The port actually bound (useful when the configuration asked for 0).
    public let port: Int
    /// The event loops, one per thread, in worker order.
    public let loops: [EventLoop]
    private let state: Mutex<State>

    private struct State: @unchecked Sendable {
        // @unchecked: the workers are only touched on their own loop threads (see `shutdown`).
        var workers: [HTTPWorker] = []
        var threads: [LoopThread] = []
        var isRunning = false
    }

    /// Binds the sockets and builds one handler per loop; nothing is accepted until `start`.
    public init(
        configuration: HTTPServerConfiguration,
        makeHandler: (_ loopIndex: Int, _ loop: EventLoop) throws(EventError) -> any HTTPRequestHandler
    ) throws(EventError) {
        self.configuration = configuration
        let threadCount = max(1, configuration.threads)
        let (sockets, port) = try ListeningSocket.open(
            host: configuration.host, port: configuration.port, count: threadCount)
        self.port = port
        var loops: [EventLoop] = []
        var workers: [HTTPWorker] = []
        do {
            for (index, socket) in sockets.enumerated() {
                let loop = try EventLoop()
                let worker = try HTTPWorker(loop: loop, configuration: configuration, handler: try makeHandler(index, loop))
                try worker.accept(on: socket)
                loops.append(loop)
                workers.append(worker)
            }
        } catch {
            sockets.forEach { close($0) }
            throw error
        }
        self.loops = loops
        state = Mutex(State(workers: workers))
    }

    /// Starts one thread per loop.
    public func start() throws(EventError) {
        let threads = try loops.map { loop throws(EventError) in try LoopThread(running: loop) }
        state.withLock {
            $0.threads = threads
            $0.isRunning = true
        }
    }

    /// Graceful stop: close the listening sockets, let responses already queued reach their clients (up to
    /// `drainMilliseconds`), close the connections, and wait for every loop thread to end.
    public func shutdown(drainMilliseconds: Int = 5_000) {
        let (workers, threads) = state.withLock { state in
            let taken = (state.workers, state.threads)
            state.threads = []
            state.isRunning = false
            return taken
        }
        for worker in workers {
            let box = WorkerBox(worker: worker)
            worker.loop.execute {
                box.worker.stopAccepting()
                Self.drain(box.worker, deadline: Self.now() + drainMilliseconds)
            }
        }
        threads.forEach { $0.join() }
        state.withLock { $0.workers = [] }
    }

    /// Checks every 10 ms until no reply is waiting to be sent or written, then closes connections and ends the loop.
    private static func drain(_ worker: HTTPWorker, deadline: Int) {
        if (worker.pendingOutputBytes <= 0 && worker.pendingDelayedReplies == 0) || now() >= deadline {
            worker.closeHTTP()
            worker.loop.stop()
            return
        }
        worker.loop.schedule(afterMilliseconds: 10) { drain(worker, deadline: deadline) }
    }

    private static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }
}

/// Carries a worker into a job for its own loop.
private struct WorkerBox: @unchecked Sendable {
    // @unchecked: the job runs on the worker's own loop thread, the only place the worker is used.
    let worker: HTTPWorker
}
