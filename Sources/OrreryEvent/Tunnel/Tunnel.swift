import CLibevent
import Glibc
import OrreryCore

/// A `CONNECT` tunnel: once the upstream accepts the TCP connection, the client's connection stops being HTTP and
/// bytes are copied both ways, unchanged, until either side closes or nothing passes either way for the tunnel idle
/// timeout. A target that is the daemon itself is refused (a loop), and an open tunnel counts against the
/// connection limit as the connection it took over did.
///
/// Until the upstream accepts, the client's connection is still HTTP (a failure is answered on it); then the tunnel
/// takes the connection's bufferevent over, with any bytes the client sent behind its `CONNECT` (a TLS hello), and
/// owns it until both sides are done.
final class Tunnel {
    private enum State { case connecting, open, draining, closed }

    /// Bytes queued towards one side before reading from the other pauses.
    private static let maximumQueuedBytes = 512 * 1024

    private unowned let worker: ServerWorker
    /// The client's connection, until the tunnel takes it over.
    private var connection: ServerConnection?
    private let target: ConnectTarget
    private let connectTimeoutMilliseconds: Int
    private let failed: (UpstreamFailure) -> Void
    private let closed: (TunnelTotals) -> Void
    private var state = State.connecting
    /// The client's bufferevent, once taken over.
    private var clientSide: OpaquePointer?
    private var upstreamSide: OpaquePointer?
    private var totals = TunnelTotals()
    private var isFreed = false
    private var connectDeadline: OneShotTimer?
    /// Closes the tunnel once nothing has passed for the idle timeout; fires at the first time it could be due
    /// and waits again for the rest when traffic moved it on.
    private var idleDeadline: OneShotTimer?
    private var lastActivity = 0
    /// The tunnel counts against the connection limit (from the moment it takes its connection over).
    private var countsAsConnection = false
    private var idleTimeoutMilliseconds: Int { worker.configuration.tunnelIdleTimeoutMilliseconds }

    init(
        worker: ServerWorker, connection: ServerConnection, target: ConnectTarget, connectTimeoutMilliseconds: Int,
        failed: @escaping (UpstreamFailure) -> Void, closed: @escaping (TunnelTotals) -> Void
    ) {
        self.worker = worker
        self.connection = connection
        self.target = target
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.failed = failed
        self.closed = closed
    }

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    // MARK: - Connecting

    func start(resolvingWith client: UpstreamClient) {
        client.resolve(target.host, port: target.port) { [self] result in
            guard state == .connecting else { return }
            switch result {
            case .failure(let failure):
                fail(UpstreamFailure(.hostNotFound, "\(target.host): \(failure.message)"))
            case .success(let address):
                guard !worker.isOwnAddress(address, port: target.port) else {
                    fail(
                        UpstreamFailure(
                            .loopDetected, "\(target) is this daemon's own address (\(address)): the tunnel would lead back into it"))
                    return
                }
                connect(to: address)
            }
        }
        connectDeadline = OneShotTimer(loop: worker.loop, afterMilliseconds: connectTimeoutMilliseconds) { [weak self] in
            guard let self, self.state == .connecting else { return }
            self.fail(UpstreamFailure(.timeout, "could not connect to \(self.target) within \(self.connectTimeoutMilliseconds) ms"))
        }
    }

    private func connect(to address: String) {
        guard let upstream = bufferevent_socket_new(worker.loop.base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            fail(UpstreamFailure(.hostConnectionError, "cannot set up a connection to \(target)"))
            return
        }
        upstreamSide = upstream
        bufferevent_setcb(upstream, Trampolines.tunnelReadable, Trampolines.tunnelWritable, Trampolines.tunnelEvent, context)
        errno = 0
        if !Sockets.connect(upstream, address: address, port: target.port) {
            let reason = errno == 0 ? "" : ": \(String(cString: strerror(errno)))"
            fail(UpstreamFailure(.hostConnectionError, "cannot connect to \(target)\(reason)"))
        }
    }

    private func fail(_ failure: UpstreamFailure) {
        guard state == .connecting else { return }
        state = .closed
        connectDeadline = nil
        freeAfterCallbacks()
        failed(failure)
    }

    /// The upstream accepted: answer the `CONNECT` with 200 on the raw connection and start relaying.
    private func takeOver() {
        // Counted before the connection stops counting, so that the loop does not accept one more in between.
        worker.tunnelOpened()
        countsAsConnection = true
        guard let (client, received) = connection?.takeOver(), let upstream = upstreamSide else {
            fail(UpstreamFailure(.hostConnectionError, "the client's connection is gone"))
            return
        }
        connection = nil
        state = .open
        connectDeadline = nil
        lastActivity = worker.now
        armIdleDeadline(afterMilliseconds: idleTimeoutMilliseconds)
        clientSide = client
        bufferevent_setwatermark(client, Int16(EV_READ | EV_WRITE), 0, 0)
        bufferevent_setcb(client, Trampolines.tunnelReadable, Trampolines.tunnelWritable, Trampolines.tunnelEvent, context)
        let established = HTTP1Encoder.connectionEstablished
        bufferevent_write(client, established, established.count)
        // A client may send its first bytes (a TLS hello) right behind the CONNECT head, before the 200.
        if !received.isEmpty {
            totals.fromClient += received.count
            bufferevent_write(upstream, received, received.count)
        }
        bufferevent_enable(client, Int16(EV_READ | EV_WRITE))
        bufferevent_enable(upstream, Int16(EV_READ | EV_WRITE))
    }

    // MARK: - Relaying

    private func partner(of side: OpaquePointer) -> OpaquePointer? {
        side == clientSide ? upstreamSide : clientSide
    }

    func readable(_ side: OpaquePointer) {
        guard let input = bufferevent_get_input(side) else { return }
        guard state == .open || state == .draining, let destination = partner(of: side),
            let output = bufferevent_get_output(destination)
        else {
            evbuffer_drain(input, evbuffer_get_length(input))
            return
        }
        let count = evbuffer_get_length(input)
        if side == clientSide { totals.fromClient += count } else { totals.fromUpstream += count }
        lastActivity = worker.now
        evbuffer_add_buffer(output, input)
        if evbuffer_get_length(output) >= Self.maximumQueuedBytes {
            // Back-pressure: stop reading this side until the other has written half of what is queued.
            bufferevent_disable(side, Int16(EV_READ))
            bufferevent_setwatermark(destination, Int16(EV_WRITE), Self.maximumQueuedBytes / 2, Self.maximumQueuedBytes)
        }
    }

    /// The side's output dropped to its low-water mark.
    func writable(_ side: OpaquePointer) {
        guard let output = bufferevent_get_output(side) else { return }
        switch state {
        case .open:
            bufferevent_setwatermark(side, Int16(EV_WRITE), 0, 0)
            if let source = partner(of: side) { bufferevent_enable(source, Int16(EV_READ)) }
        case .draining:
            if evbuffer_get_length(output) == 0 { close() }
        case .connecting, .closed:
            break
        }
    }

    func event(_ side: OpaquePointer, _ what: Int16) {
        let events = Int32(what)
        if state == .connecting {
            guard side == upstreamSide else { return }
            if events & BEV_EVENT_CONNECTED != 0 {
                takeOver()
            } else {
                let reason = String(cString: strerror(errno))
                fail(UpstreamFailure(.hostConnectionError, "\(target) refused the connection or is unreachable: \(reason)"))
            }
            return
        }
        guard events & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) != 0 else { return }
        guard state == .open, let destination = partner(of: side), let output = bufferevent_get_output(destination) else {
            close()
            return
        }
        // One side is done: pass on what it sent last, let the other side finish writing it, then close both.
        readable(side)
        state = .draining
        bufferevent_disable(side, Int16(EV_READ | EV_WRITE))
        bufferevent_disable(destination, Int16(EV_READ))
        bufferevent_setwatermark(destination, Int16(EV_WRITE), 0, 0)
        if evbuffer_get_length(output) == 0 { close() }
    }

    // MARK: - Closing

    private func armIdleDeadline(afterMilliseconds milliseconds: Int) {
        idleDeadline = OneShotTimer(loop: worker.loop, afterMilliseconds: max(1, milliseconds)) { [weak self] in
            self?.idleDeadlinePassed()
        }
    }

    private func idleDeadlinePassed() {
        guard state == .open || state == .draining else { return }
        let remaining = lastActivity + idleTimeoutMilliseconds - worker.now
        if remaining > 0 {
            armIdleDeadline(afterMilliseconds: remaining)
            return
        }
        close()
    }

    private func close() {
        guard state != .closed else { return }
        state = .closed
        freeAfterCallbacks()
        closed(totals)
    }

    /// libevent is in the middle of a callback on these bufferevents: stop them now, free them once it returned.
    private func freeAfterCallbacks() {
        for side in [clientSide, upstreamSide].compactMap({ $0 }) {
            bufferevent_disable(side, Int16(EV_READ | EV_WRITE))
            bufferevent_setcb(side, nil, nil, nil, nil)
        }
        worker.loop.schedule(afterMilliseconds: 0) { [self] in free() }
    }

    /// Frees both connections now; also used when the server shuts down with the tunnel still open.
    func free() {
        guard !isFreed else { return }
        isFreed = true
        state = .closed
        idleDeadline = nil
        if let clientSide { bufferevent_free(clientSide) }
        clientSide = nil
        connection = nil
        if let upstreamSide { bufferevent_free(upstreamSide) }
        upstreamSide = nil
        worker.tunnelFreed(self, wasOpen: countsAsConnection)
    }
}

/// What went through a tunnel.
public struct TunnelTotals: Sendable {
    public var fromClient = 0
    public var fromUpstream = 0
}
