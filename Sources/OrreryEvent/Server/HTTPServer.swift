import CLibevent  // libevent's headers define the time structs this file reads, for the compiler's import checks
import Glibc
import Synchronization

/// Orrery's HTTP/1.1 server: one event loop per thread, all accepting on one port, each connection read and
/// answered by an `HTTP1ConnectionStateMachine`.
public final class HTTPServer: Sendable {
    public let configuration: HTTPServerConfiguration
    /// The port actually bound (useful when the configuration asked for 0).
    public let port: Int
    /// The event loops, one per thread, in worker order.
    public let loops: [EventLoop]
    /// What each loop has done (connections, TLS handshakes, refused requests), in worker order.
    public let counters: [ServerCounters]
    private let state: Mutex<State>

    private struct State: @unchecked Sendable {
        // @unchecked: the workers are only touched on their own loop threads (see `shutdown`).
        var workers: [ServerWorker] = []
        var threads: [LoopThread] = []
    }

    /// Binds the socket and builds one handler per loop; nothing is accepted until `start`.
    /// - Parameter onEvent: what the server reports for its owner to log (accepting paused, connection limit).
    public init(
        configuration: HTTPServerConfiguration, onEvent: @escaping @Sendable (ServerEvent) -> Void = { _ in },
        makeHandler: (_ loopIndex: Int, _ loop: EventLoop) throws(EventError) -> any HTTPRequestHandler
    ) throws(EventError) {
        self.configuration = configuration
        let threadCount = max(1, configuration.threads)
        let (sockets, port) = try ListeningSocket.open(
            host: configuration.host, port: configuration.port, count: threadCount)
        self.port = port
        var loops: [EventLoop] = []
        var workers: [ServerWorker] = []
        var unused = sockets[...]
        do {
            for index in sockets.indices {
                let loop = try EventLoop()
                let worker = ServerWorker(
                    loop: loop, index: index, configuration: configuration, handler: try makeHandler(index, loop),
                    onEvent: onEvent)
                let socket = unused.removeFirst()
                try worker.accept(on: socket)
                loops.append(loop)
                workers.append(worker)
            }
        } catch {
            unused.forEach { close($0) }
            workers.forEach { $0.closeAll() }
            throw error
        }
        self.loops = loops
        counters = workers.map(\.counters)
        state = Mutex(State(workers: workers))
    }

    /// Opens another listening port on the server's host, whose connections carry `tag` (`Responder.listenerTag`):
    /// a session's own port. Returns the port bound (any free one when `port` is 0). Safe from any thread.
    /// With `tls`, the port speaks HTTPS (the TLS port).
    public func addListener(port: Int = 0, tag: Int, tls: TLSEndpoint? = nil) throws(EventError) -> Int {
        let workers = state.withLock { $0.workers }
        let (sockets, bound) = try ListeningSocket.open(host: configuration.host, port: port, count: workers.count)
        for (worker, socket) in zip(workers, sockets) {
            let box = WorkerBox(worker: worker)
            worker.loop.execute {
                do {
                    try box.worker.accept(on: socket, tag: tag, tls: tls)
                } catch {
                    close(socket)
                }
            }
        }
        return bound
    }

    /// Closes the ports of `tag` and the connections that came through them. Safe from any thread.
    public func removeListeners(tag: Int) {
        for worker in state.withLock({ $0.workers }) {
            let box = WorkerBox(worker: worker)
            worker.loop.execute { box.worker.removeListeners(tag: tag) }
        }
    }

    /// Starts one thread per loop.
    public func start() throws(EventError) {
        let threads = try loops.map { loop throws(EventError) in try LoopThread(running: loop) }
        state.withLock { $0.threads = threads }
    }

    /// Graceful stop: close the listening sockets and idle connections, let answers under way finish and reach
    /// their clients (up to `drainMilliseconds`), close the rest, and wait for every loop thread to end.
    public func shutdown(drainMilliseconds: Int = 5_000) {
        let (workers, threads) = state.withLock { state in
            let taken = (state.workers, state.threads)
            state.threads = []
            return taken
        }
        let deadline = Self.now() + drainMilliseconds
        for worker in workers {
            let box = WorkerBox(worker: worker)
            worker.loop.execute {
                box.worker.beginShutdown()
                Self.drain(box.worker, deadline: deadline)
            }
        }
        threads.forEach { $0.join() }
        state.withLock { $0.workers = [] }
    }

    /// Checks every 5 ms until no answer is under way, then closes what is left and ends the loop.
    private static func drain(_ worker: ServerWorker, deadline: Int) {
        if !worker.isBusy || now() >= deadline {
            worker.closeAll()
            worker.loop.stop()
            return
        }
        worker.loop.schedule(afterMilliseconds: 5) { drain(worker, deadline: deadline) }
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
    let worker: ServerWorker
}
