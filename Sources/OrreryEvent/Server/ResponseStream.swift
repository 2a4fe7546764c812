import OrreryCore

/// Hears what happens to a streamed answer's client: it caught up with what was queued, or it went away.
public protocol ResponseStreamObserver: AnyObject {
    /// Everything queued has been written to the socket.
    func responseStreamDrained(_ stream: ResponseStream)
    /// The client's connection ended before the answer did.
    func responseStreamClosed(_ stream: ResponseStream)
}

/// An answer written a piece at a time, for as long as both sides want: server-sent events, and an upstream's
/// answer relayed as it arrives. Use it on its loop only; pieces for a client that is gone are dropped.
///
/// Two ways to write: `send` (server-sent events) disconnects a client that lets more than `maximumQueuedBytes` wait
/// unread; `append` with `flush` leaves the pace to the writer, which reads `queuedBytes` and waits for its
/// observer's `responseStreamDrained` (the proxy pauses its upstream).
public final class ResponseStream {
    private let connection: ServerConnection
    /// The HTTP/2 stream the answer goes out on; nil for HTTP/1, where it is the connection's.
    private let http2: HTTP2Stream?
    private let isChunked: Bool
    /// The body runs to the end of the connection (HTTP/1.0 without a length), or the connection closes after it.
    private let closesConnection: Bool
    /// Bytes that may wait unwritten before the client is taken to be too slow.
    let maximumQueuedBytes: Int
    private(set) var isFinished = false
    /// Told when the client drains its output or goes; weak: the observer owns the stream, not the reverse.
    public weak var observer: (any ResponseStreamObserver)?

    init(connection: ServerConnection, isChunked: Bool, closesConnection: Bool, maximumQueuedBytes: Int) {
        self.connection = connection
        self.isChunked = isChunked
        self.closesConnection = closesConnection
        self.maximumQueuedBytes = maximumQueuedBytes
        http2 = nil
    }

    /// An answer on an HTTP/2 stream: DATA frames carry its pieces, END_STREAM ends it.
    init(http2: HTTP2Stream, connection: ServerConnection, maximumQueuedBytes: Int) {
        self.connection = connection
        self.http2 = http2
        isChunked = false
        closesConnection = false
        self.maximumQueuedBytes = maximumQueuedBytes
    }

    /// The loop the stream belongs to.
    public var loop: EventLoop { connection.worker.loop }

    /// Whether pieces still reach the client.
    public var isOpen: Bool { !isFinished && (http2?.isOpen ?? !connection.isClosed) }

    /// Bytes queued and not yet written to the client's socket.
    public var queuedBytes: Int {
        (http2?.queuedBytes ?? 0) + connection.output.byteCount + connection.queuedInBufferevent
    }

    /// Sends one piece; false when the stream is over (the client left, was too slow, or the server stops).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        guard isOpen, !bytes.isEmpty else { return isOpen }
        if let http2 {
            bytes.withUnsafeBytes { http2.appendBody($0) }
            http2.flushBody()
            guard queuedBytes <= maximumQueuedBytes else {
                abort()
                return false
            }
            return isOpen
        }
        return connection.streamWrite(isChunked ? HTTP1Encoder.chunk(bytes) : bytes, maximumQueuedBytes: maximumQueuedBytes)
    }

    /// Queues a piece (copied once, framed as a chunk when the answer is chunked) without writing it yet.
    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard isOpen, !bytes.isEmpty else { return }
        if let http2 {
            http2.appendBody(bytes)
            return
        }
        guard isChunked else {
            // Typed bytes: copied with one memcpy, where raw ones would go a byte at a time.
            connection.output.append(Payload(UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)))
            return
        }
        var size: [UInt8] = Array(String(bytes.count, radix: 16).utf8)
        size += [0x0D, 0x0A]
        let total = size.count + bytes.count + 2
        connection.output.append(
            Payload(count: total) { buffer in
                buffer.copyBytes(from: size)
                UnsafeMutableRawBufferPointer(rebasing: buffer[size.count...]).copyMemory(from: bytes)
                buffer[total - 2] = 0x0D
                buffer[total - 1] = 0x0A
                return total
            })
    }

    /// Writes what `append` queued.
    public func flush() {
        guard isOpen else { return }
        if let http2 {
            http2.flushBody()
            return
        }
        connection.flush()
    }

    /// Ends the answer; the connection then carries on as any other (or closes, for HTTP/1.0). `trailers` go out
    /// as HTTP/2 trailers, or after the last chunk to an HTTP/1.1 client that sent `TE: trailers` (others get none).
    public func finish(trailers: HTTPHeaders? = nil) {
        guard isOpen else { return }
        isFinished = true
        if let http2 {
            if let trailers, !trailers.entries.isEmpty { http2.trailers = HTTP2Fields(status: nil, headers: trailers) }
            http2.finishBody()
            return
        }
        var lastChunk: [UInt8]?
        if isChunked {
            if let trailers, !trailers.entries.isEmpty, connection.acceptsTrailers {
                lastChunk = HTTP1Encoder.lastChunk(trailers: trailers)
            } else {
                lastChunk = HTTP1Encoder.lastChunk
            }
        }
        connection.streamFinished(lastChunk: lastChunk, closesConnection: closesConnection)
    }

    /// Ends the answer cut short (its source failed): the connection closes at once, so the client sees a body that
    /// stops before its length or its last chunk rather than one that looks whole.
    public func abort() {
        guard isOpen else { return }
        isFinished = true
        if let http2 {
            http2.abortBody()
            return
        }
        connection.flush()
        connection.close()
    }

    /// Calls `observer` when the connection ends, however it ends.
    public func whenClosed(_ observer: @escaping () -> Void) {
        if let http2 {
            http2.whenClosed(observer)
            return
        }
        connection.whenClosed(observer)
    }

    /// Whether the server's stopping cuts the answer (a relayed body, which must not look complete) rather than
    /// ending it properly (server-sent events, which may end at any point).
    public var isCutWhenServerStops = false

    func serverStopping() {
        guard isCutWhenServerStops else {
            finish()
            return
        }
        // The writer hears of it as of a client that left, and stops its source.
        let wasOpen = isOpen
        abort()
        if wasOpen { observer?.responseStreamClosed(self) }
    }

    func drained() {
        guard isOpen else { return }
        observer?.responseStreamDrained(self)
    }

    /// The connection closed (or the server stops): the answer is over.
    func markFinished() {
        let wasOpen = !isFinished
        isFinished = true
        if wasOpen { observer?.responseStreamClosed(self) }
    }
}
