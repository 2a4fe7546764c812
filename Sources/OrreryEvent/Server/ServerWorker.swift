import CLibevent
import Glibc
import OrreryCore

/// One event loop's share of the server: its listeners, its connections and tunnels, and what they share on the
/// loop (the receive buffer, the ends of response heads). Used only on the loop's thread.
final class ServerWorker {
    let loop: EventLoop
    let index: Int
    let configuration: HTTPServerConfiguration
    let machineConfiguration: HTTP1ConnectionStateMachine.Configuration
    let handler: any HTTPRequestHandler
    let tails: ResponseTails
    /// Where every connection of the loop receives into, read from before the next recv().
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private let onEvent: @Sendable (ServerEvent) -> Void
    /// What this loop has done, for the metrics.
    let counters = ServerCounters()
    private var listeners: [Listener] = []
    private var connections: [ObjectIdentifier: ServerConnection] = [:]
    private var tunnels: [ObjectIdentifier: Tunnel] = [:]
    /// Tunnels that took their client's connection over: they count against the connection limit as it did.
    private var openTunnels = 0
    /// Connections upgraded to another protocol (WebSockets), counted as the connections they were.
    var upgradedConnections: [ObjectIdentifier: UpgradedConnection] = [:]
    var upgradedCount = 0
    private var isAcceptPaused = false
    private var acceptPauseMilliseconds = 0
    private var isAtConnectionLimit = false
    private var isShuttingDown = false

    init(
        loop: EventLoop, index: Int, configuration: HTTPServerConfiguration, handler: any HTTPRequestHandler,
        onEvent: @escaping @Sendable (ServerEvent) -> Void
    ) {
        self.loop = loop
        self.index = index
        self.configuration = configuration
        machineConfiguration = HTTP1ConnectionStateMachine.Configuration(limits: configuration.parserLimits)
        self.handler = handler
        self.onEvent = onEvent
        tails = ResponseTails(base: loop.base)
    }

    deinit {
        scratch.deallocate()
    }

    /// Milliseconds by the coarse monotonic clock (a few ms of resolution, plenty for deadlines of seconds):
    /// read per request, and unlike libevent's cached time it takes no lock.
    var now: Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }

    // MARK: - Accepting

    /// Accepts connections on a listening socket (this loop's copy of it), which the worker then owns. Its
    /// connections carry `tag` (0 for the main port; a session's number for its port).
    func accept(on socket: Int32, tag: Int = 0, tls: TLSEndpoint? = nil) throws(EventError) {
        let listener = Listener(worker: self, tag: tag, tls: tls)
        let context = Unmanaged.passUnretained(listener).toOpaque()
        guard
            let handle = evconnlistener_new(
                loop.base, Trampolines.serverAccepted, context, UInt32(LEV_OPT_CLOSE_ON_FREE), -1, socket)
        else {
            close(socket)
            throw EventError("evconnlistener_new failed")
        }
        evconnlistener_set_error_cb(handle, Trampolines.serverAcceptFailed)
        listener.handle = handle
        listeners.append(listener)
        if isAcceptPaused || isAtConnectionLimit || isShuttingDown { evconnlistener_disable(handle) }
    }

    func accepted(_ fd: Int32, tag: Int, tls: TLSEndpoint?) {
        guard !isShuttingDown else {
            close(fd)
            return
        }
        let made =
            if let tls {
                ServerConnection(worker: self, fd: fd, tag: tag, tlsEndpoint: tls)
            } else {
                ServerConnection(worker: self, fd: fd, tag: tag)
            }
        guard let connection = made else { return }
        connections[ObjectIdentifier(connection)] = connection
        counters.connectionOpened(nowOpen: connections.count)
        acceptPauseMilliseconds = 0
        if openCount >= configuration.maxConnectionsPerLoop, !isAtConnectionLimit {
            isAtConnectionLimit = true
            setListening(false)
            onEvent(.connectionLimitReached(loop: index, limit: configuration.maxConnectionsPerLoop))
        }
    }

    /// accept() failed with an error that retrying at once would not cure: out of file descriptors or memory.
    /// Accepting pauses (one warning per pause), so the loop does not spin on a listener that stays readable.
    func acceptFailed(errorCode: Int32) {
        guard !isAcceptPaused, !isShuttingDown else { return }
        isAcceptPaused = true
        acceptPauseMilliseconds = min(max(acceptPauseMilliseconds * 2, 100), 1_000)
        setListening(false)
        onEvent(.acceptPaused(loop: index, reason: String(cString: strerror(errorCode)), milliseconds: acceptPauseMilliseconds))
        loop.schedule(afterMilliseconds: acceptPauseMilliseconds) { [self] in
            isAcceptPaused = false
            guard !isShuttingDown else { return }
            setListening(true)
            onEvent(.acceptResumed(loop: index))
        }
    }

    private func setListening(_ isOn: Bool) {
        let shouldListen = isOn && !isAcceptPaused && !isAtConnectionLimit && !isShuttingDown
        for listener in listeners {
            guard let handle = listener.handle else { continue }
            if shouldListen { evconnlistener_enable(handle) } else { evconnlistener_disable(handle) }
        }
    }

    /// Stops listening on the sockets of `tag` and closes the connections that came through them.
    func removeListeners(tag: Int) {
        for listener in listeners where listener.tag == tag {
            if let handle = listener.handle { evconnlistener_free(handle) }
            listener.handle = nil
        }
        listeners.removeAll { $0.tag == tag }
        for connection in Array(connections.values) where connection.tag == tag { connection.close() }
    }

    func connectionClosed(_ connection: ServerConnection) {
        connections[ObjectIdentifier(connection)] = nil
        counters.connectionClosed(nowOpen: connections.count)
        resumeAcceptingBelowLimit()
    }

    /// Connections and open tunnels: what `--max-connections` bounds.
    private var openCount: Int { connections.count + openTunnels + upgradedCount }

    func resumeAcceptingBelowLimit() {
        if isAtConnectionLimit, openCount < configuration.maxConnectionsPerLoop {
            isAtConnectionLimit = false
            setListening(true)
        }
    }

    // MARK: - Tunnels

    func openTunnel(
        from connection: ServerConnection, to target: ConnectTarget, using client: UpstreamClient,
        failed: @escaping (UpstreamFailure) -> Void, closed: @escaping (TunnelTotals) -> Void
    ) {
        let tunnel = Tunnel(
            worker: self, connection: connection, target: target,
            connectTimeoutMilliseconds: client.configuration.connectTimeoutMilliseconds, failed: failed, closed: closed)
        tunnels[ObjectIdentifier(tunnel)] = tunnel
        tunnel.start(resolvingWith: client)
    }

    /// A tunnel took its client's connection over (which `connectionClosed` no longer counts).
    func tunnelOpened() {
        openTunnels += 1
    }

    func tunnelFreed(_ tunnel: Tunnel, wasOpen: Bool) {
        tunnels[ObjectIdentifier(tunnel)] = nil
        if wasOpen { openTunnels -= 1 }
        resumeAcceptingBelowLimit()
    }

    /// Whether `address` (as resolved, numeric) and `port` reach this server itself: a port it listens on, at a
    /// loopback address, the address it is bound to, or any address when it is bound to all of them. A `CONNECT`
    /// there would tunnel back into the daemon (and one inside it again, until the descriptors run out).
    func isOwnAddress(_ address: String, port: Int) -> Bool {
        let listening = listeners.contains { listener in
            guard let handle = listener.handle else { return false }
            return Sockets.localPort(of: evconnlistener_get_fd(handle)) == port
        }
        guard listening else { return false }
        let host = configuration.host
        let isLoopback = address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
        if isLoopback || address == host { return true }
        // Bound to every address: any of this machine's own is the daemon too (not a remote host's same port).
        let isWildcard = host == "0.0.0.0" || host == "::" || host.isEmpty
        return isWildcard && Sockets.localAddresses().contains(address)
    }

    // MARK: - Stopping

    /// Closes the listening sockets; open connections carry on.
    func stopAccepting() {
        isShuttingDown = true
        for listener in listeners {
            if let handle = listener.handle { evconnlistener_free(handle) }
            listener.handle = nil
        }
        listeners.removeAll()
    }

    /// Idle connections close now, busy ones after their answer.
    func beginShutdown() {
        stopAccepting()
        for connection in Array(connections.values) { connection.beginShutdown() }
        for upgraded in Array(upgradedConnections.values) { upgraded.close() }
    }

    /// Whether an answer is still being read, made or written on this loop.
    var isBusy: Bool { connections.values.contains { $0.isBusy } }

    /// Closes every connection and tunnel now; call before the loop's base goes away.
    func closeAll() {
        stopAccepting()
        for connection in Array(connections.values) {
            connection.close()
            connection.free()
        }
        connections.removeAll()
        for tunnel in Array(tunnels.values) { tunnel.free() }
        tunnels.removeAll()
        for upgraded in Array(upgradedConnections.values) {
            upgraded.close()
            upgraded.free()
        }
    }
}

/// One listening socket on one loop; libevent's accept callback gets it back as its context.
final class Listener {
    unowned let worker: ServerWorker
    let tag: Int
    /// For a TLS port: how its connections make their sessions.
    let tls: TLSEndpoint?
    var handle: OpaquePointer?

    init(worker: ServerWorker, tag: Int, tls: TLSEndpoint?) {
        self.worker = worker
        self.tag = tag
        self.tls = tls
    }
}
