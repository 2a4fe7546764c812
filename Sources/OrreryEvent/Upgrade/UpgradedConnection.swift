import CLibevent
import OrreryCore

/// A client connection that stopped being HTTP after its request was answered with `101 Switching Protocols` (a
/// WebSocket): bytes in to its handler, bytes out as the handler writes them, on the loop that accepted it. It
/// knows nothing of the protocol spoken over it, so the protocol's logic serves any connection type that can hand
/// over a byte stream.
///
/// It counts against `--max-connections` as the connection it took over did. A client that leaves more than
/// `maximumQueuedBytes` unread is disconnected.
///
/// Over HTTP/2 it is one stream instead, opened by an extended `CONNECT` (RFC 8441): bytes in are the stream's DATA,
/// bytes out go as DATA on it, the end is the stream's `END_STREAM` (or a reset), and the connection's other
/// streams go on. Its HTTP/2 connection is what counts against `--max-connections` then.
public final class UpgradedConnection {
    private unowned let worker: ServerWorker
    private var bufferevent: OpaquePointer?
    /// The HTTP/2 stream it is, for one over HTTP/2.
    private weak var stream: HTTP2Stream?
    private let isStream: Bool
    /// Held until the connection closes: the handler lives as long as its connection.
    private var handler: (any UpgradedConnectionHandler)?
    private var pending: [UInt8]
    private var isClosingAfterWrite = false
    public private(set) var isClosed = false
    /// Output bytes waiting for a client that does not read, beyond which it is disconnected.
    public let maximumQueuedBytes = 8 << 20

    init(worker: ServerWorker, bufferevent: OpaquePointer, received: [UInt8]) {
        self.worker = worker
        self.bufferevent = bufferevent
        isStream = false
        pending = received
    }

    init(worker: ServerWorker, stream: HTTP2Stream, received: [UInt8]) {
        self.worker = worker
        self.stream = stream
        isStream = true
        pending = received
    }

    /// The loop the connection belongs to; use it only there.
    public var loop: EventLoop { worker.loop }

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Starts reading, handing what arrives (first what came behind the upgrade request) to `handler`.
    public func start(_ handler: any UpgradedConnectionHandler) {
        if isStream {
            guard !isClosed, stream?.isOpen == true else {
                handler.upgradedConnectionClosed(self)
                return
            }
            self.handler = handler
            deliverPending()
            return
        }
        guard !isClosed, let bufferevent else {
            handler.upgradedConnectionClosed(self)
            return
        }
        self.handler = handler
        bufferevent_setwatermark(bufferevent, Int16(EV_READ | EV_WRITE), 0, 0)
        bufferevent_setcb(
            bufferevent, Trampolines.upgradedReadable, Trampolines.upgradedWritable, Trampolines.upgradedEvent, context)
        bufferevent_enable(bufferevent, Int16(EV_READ | EV_WRITE))
        // Over TLS, records OpenSSL read ahead before the upgrade are read now (they do not wake the socket).
        CLibevent_bufferevent_read_ahead_pending(bufferevent)
        deliverPending()
    }

    private func deliverPending() {
        guard !pending.isEmpty, let handler else { return }
        let bytes = pending
        pending = []
        handler.upgradedConnection(self, received: bytes)
    }

    /// Bytes queued and not yet written to the socket: an intercepted tunnel's TLS filter hands its output on
    /// encrypted to the bufferevent beneath it at once, so what waits there counts too.
    public var queuedBytes: Int {
        if isStream { return stream?.queuedBytes ?? 0 }
        guard let bufferevent, let output = bufferevent_get_output(bufferevent) else { return 0 }
        var queued = evbuffer_get_length(output)
        if let underlying = bufferevent_get_underlying(bufferevent), let beneath = bufferevent_get_output(underlying) {
            queued += evbuffer_get_length(beneath)
        }
        return queued
    }

    /// Writes `bytes`; false (and the connection closed) when the client has gone or leaves too much unread.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        guard !isClosed, !isClosingAfterWrite else { return false }
        if isStream {
            guard let stream, stream.isOpen else { return false }
            stream.appendBody(bytes)
            stream.flushBody()
        } else {
            guard let bufferevent else { return false }
            bufferevent_write(bufferevent, bytes, bytes.count)
        }
        if queuedBytes > maximumQueuedBytes {
            close()
            return false
        }
        return true
    }

    /// Stops reading and closes once what is queued has been written.
    public func closeAfterWriting() {
        guard !isClosed, !isClosingAfterWrite else { return }
        if isStream {
            // The last DATA frame carries END_STREAM once what is queued has gone; the stream is then done here.
            isClosingAfterWrite = true
            guard let stream, stream.isOpen else {
                close()
                return
            }
            stream.finishBody()
            return
        }
        guard let bufferevent else { return }
        isClosingAfterWrite = true
        bufferevent_disable(bufferevent, Int16(EV_READ))
        closeOnceWritten(checksLeft: Self.closeChecks)
    }

    /// How many times, 10 ms apart, a closing connection looks for its output written before it closes anyway.
    private static let closeChecks = 200

    /// Closes once the output has reached the socket. A filter's write callback does not hear when the bufferevent
    /// beneath it drains, so that one is looked at every 10 ms, for at most `checksLeft` times.
    private func closeOnceWritten(checksLeft: Int) {
        guard !isClosed else { return }
        if queuedBytes == 0 || checksLeft == 0 {
            close()
            return
        }
        guard let bufferevent, bufferevent_get_underlying(bufferevent) != nil else { return }
        worker.loop.schedule(afterMilliseconds: 10) { [weak self] in
            self?.closeOnceWritten(checksLeft: checksLeft - 1)
        }
    }

    /// Closes now; libevent's objects are freed once the current callback has returned.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        if isStream {
            // Ended before its END_STREAM went out (the client left, too much unread): the stream is cancelled.
            if let stream, stream.isOpen, !stream.isEndSent { stream.abort(errorCode: 8) }
            let handler = self.handler
            self.handler = nil
            handler?.upgradedConnectionClosed(self)
            return
        }
        if let bufferevent {
            bufferevent_disable(bufferevent, Int16(EV_READ | EV_WRITE))
            bufferevent_setcb(bufferevent, nil, nil, nil, nil)
        }
        let handler = self.handler
        self.handler = nil
        handler?.upgradedConnectionClosed(self)
        worker.loop.schedule(afterMilliseconds: 0) { [self] in free() }
    }

    /// Frees the bufferevent (closing the socket); also used when the server stops with the connection open.
    func free() {
        isClosed = true
        handler = nil
        if let bufferevent { bufferevent_free(bufferevent) }
        bufferevent = nil
        worker.upgradedFreed(self)
    }

    // MARK: - Over HTTP/2

    /// DATA from the client on the stream.
    func streamReceived(_ bytes: [UInt8]) {
        guard !isClosed, !isClosingAfterWrite else { return }
        guard handler != nil else {
            pending += bytes
            return
        }
        handler?.upgradedConnection(self, received: bytes)
    }

    /// The client ended its side (`END_STREAM`): what is queued goes out, then the stream ends here too.
    func streamEndedByClient() {
        closeAfterWriting()
    }

    /// Our `END_STREAM` went out, or the stream ended (reset, the connection gone).
    func streamFinished() {
        close()
    }

    func readable() {
        guard !isClosed, let bufferevent, let input = bufferevent_get_input(bufferevent) else { return }
        let bytes = EvbufferBytes.takeAll(input)
        guard !bytes.isEmpty else { return }
        handler?.upgradedConnection(self, received: bytes)
        if !isClosed { CLibevent_bufferevent_read_ahead_pending(bufferevent) }
    }

    func writable() {
        if isClosingAfterWrite, queuedBytes == 0 { close() }
    }

    func event(_ what: Int16) {
        if Int32(what) & (BEV_EVENT_EOF | BEV_EVENT_ERROR) != 0 { close() }
    }
}

extension ServerWorker {
    /// Answers request `number` of `connection` with `head` (a 101) and hands the connection over, once the loop
    /// has left the connection's callbacks; `ready` gets it, or nil when the client has gone meanwhile.
    func upgrade(_ connection: ServerConnection, head: [UInt8], ready: @escaping (UpgradedConnection?) -> Void) {
        connection.output.append(head)
        connection.flush()
        loop.schedule(afterMilliseconds: 0) { [self] in
            // Counted before the connection stops counting, so that the loop does not accept one more in between.
            upgradedCount += 1
            guard let (bufferevent, received) = connection.takeOver(tls: true) else {
                upgradedCount -= 1
                ready(nil)
                return
            }
            let upgraded = UpgradedConnection(worker: self, bufferevent: bufferevent, received: received)
            upgradedConnections[ObjectIdentifier(upgraded)] = upgraded
            ready(upgraded)
        }
    }

    func upgradedFreed(_ connection: UpgradedConnection) {
        guard upgradedConnections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        upgradedCount -= 1
        resumeAcceptingBelowLimit()
    }
}
