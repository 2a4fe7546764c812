import OrreryCore

/// An answer written a piece at a time, for as long as both sides want: server-sent events. Use it on its loop
/// only; pieces for a client that is gone, or that reads too slowly, are dropped (a slow client is disconnected
/// rather than buffered for without bound).
public final class ResponseStream {
    private let connection: ServerConnection
    private let isChunked: Bool
    /// Bytes that may wait unwritten before the client is taken to be too slow.
    let maximumQueuedBytes: Int
    private(set) var isFinished = false

    init(connection: ServerConnection, isChunked: Bool, maximumQueuedBytes: Int) {
        self.connection = connection
        self.isChunked = isChunked
        self.maximumQueuedBytes = maximumQueuedBytes
    }

    /// The loop the stream belongs to.
    public var loop: EventLoop { connection.worker.loop }

    /// Whether pieces still reach the client.
    public var isOpen: Bool { !isFinished && !connection.isClosed }

    /// Sends one piece; false when the stream is over (the client left, was too slow, or the server stops).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        guard isOpen, !bytes.isEmpty else { return isOpen }
        return connection.streamWrite(isChunked ? HTTP1Encoder.chunk(bytes) : bytes, maximumQueuedBytes: maximumQueuedBytes)
    }

    /// Ends the answer; the connection then carries on as any other (or closes, for HTTP/1.0).
    public func finish() {
        guard isOpen else { return }
        isFinished = true
        connection.streamFinished(lastChunk: isChunked ? HTTP1Encoder.lastChunk : nil)
    }

    /// Calls `observer` when the connection ends, however it ends.
    public func whenClosed(_ observer: @escaping () -> Void) {
        connection.whenClosed(observer)
    }

    func markFinished() {
        isFinished = true
    }
}
