import CNghttp2
import OrreryCore

/// One HTTP/2 stream of a server connection: its request as it arrives, then its one answer, sent through the
/// connection's nghttp2 session. Every fault, delay and bandwidth limit applies to this stream alone; the others on
/// the connection go on.
final class HTTP2Stream {
    let id: Int32
    /// The connection; nil once it has closed (a late answer then finds nothing to send on).
    private(set) weak var owner: HTTP2Connection?
    var head = HTTP2RequestHead()
    var body: [UInt8] = []
    /// The request body went past the limit: the answer is a 413, and the rest of the body is dropped.
    var isBodyTooLarge = false
    /// The request has been handed to the pipeline.
    var isDispatched = false
    private(set) var isAnswered = false
    private(set) var isClosed = false
    /// A `HEAD` request: the answer's fields, no body.
    var isHead = false

    /// The answer's body still to go out, read by nghttp2 a DATA frame at a time.
    var queue = HTTP2BodyQueue()
    /// The body is complete: the last DATA frame ends the stream (or trailers follow).
    var isBodyComplete = false
    /// After what is queued, the stream is reset rather than ended (a body cut on purpose).
    var resetsAfterBody = false
    /// Fields to send after the body, as a HEADERS frame that ends the stream.
    var trailers: HTTP2Fields?
    /// nghttp2 asked for data while none was queued: it waits to be resumed.
    var isDeferred = false
    /// The answer is relayed or streamed: its writer hears when the client has taken what was queued.
    var relay: ResponseStream?
    /// An extended `CONNECT` (RFC 8441) handed to the pipeline as a WebSocket handshake: its DATA frames both ways
    /// are the WebSocket's bytes, carried by `tunnel` once it is answered, held in `tunnelPending` until then.
    var isTunnel = false
    private(set) var tunnel: UpgradedConnection?
    var tunnelPending: [UInt8] = []
    /// Our `END_STREAM` has gone out.
    private(set) var isEndSent = false
    private var closeObservers: [() -> Void] = []
    /// A bandwidth-limited answer: the rest of its body, and the slice sent every 100 ms.
    private var throttled: (bytes: [UInt8], sent: Int, bytesPerTick: Int)?

    init(id: Int32, owner: HTTP2Connection) {
        self.id = id
        self.owner = owner
    }

    var isOpen: Bool { !isClosed && owner != nil }

    // MARK: - Answers

    /// Sends a whole answer: its fields, and its body unless the request was `HEAD`.
    func send(_ response: EncodedResponse) {
        guard isOpen, !isAnswered, let owner else { return }
        isAnswered = true
        let hasBody = !isHead && response.body.count > 0
        if hasBody { queue.append(response.body) }
        isBodyComplete = true
        if let fields = response.trailers, !isHead { trailers = HTTP2Fields(status: nil, headers: fields) }
        owner.submitResponse(self, fields: owner.fields(for: response), hasBody: hasBody || trailers != nil)
    }

    /// Sends an answer at a bandwidth limit: the fields now, the body a slice every 100 ms.
    func send(_ response: EncodedResponse, bytesPerSecond: Int) {
        guard isOpen, !isAnswered, let owner else { return }
        isAnswered = true
        let hasBody = !isHead && response.body.count > 0
        owner.submitResponse(self, fields: owner.fields(for: response), hasBody: hasBody)
        guard hasBody else { return }
        throttled = (response.body.bytes, 0, max(1, bytesPerSecond / 10))
        sendThrottledSlice()
    }

    private func sendThrottledSlice() {
        guard isOpen, var pending = throttled, let owner else { return }
        let end = min(pending.bytes.count, pending.sent + pending.bytesPerTick)
        queue.append(Payload(pending.bytes[pending.sent..<end]))
        pending.sent = end
        if end == pending.bytes.count {
            throttled = nil
            isBodyComplete = true
        } else {
            throttled = pending
            owner.loop.schedule(afterMilliseconds: 100) { [weak self] in self?.sendThrottledSlice() }
        }
        owner.resume(self)
    }

    /// Carries out a fault on this stream only.
    func fail(_ fault: ConnectionFault) {
        guard isOpen, !isAnswered, let owner else { return }
        isAnswered = true
        switch fault {
        case .reset:
            owner.reset(self, errorCode: NGHTTP2_INTERNAL_ERROR.rawValue)
        case .close:
            // Closed with no HEADERS at all: the stream ends without an answer.
            owner.reset(self, errorCode: NGHTTP2_NO_ERROR.rawValue)
        case .garbage(let bytes):
            // A `:status` that is not one: the client refuses the answer and resets this stream, no other.
            var fields = HTTPHeaders()
            fields.add("content-type", "application/octet-stream")
            let malformed = HTTP2Fields(malformedWith: fields)
            queue.append(Payload(bytes))
            isBodyComplete = true
            owner.submitResponse(self, fields: malformed, hasBody: true)
        case .truncated(let response, let bodyBytes, let bytesPerSecond):
            let hasBody = !isHead && bodyBytes > 0
            resetsAfterBody = true
            owner.submitResponse(self, fields: owner.fields(for: response), hasBody: true)
            guard hasBody else {
                isBodyComplete = true
                owner.resume(self)
                return
            }
            let cut = response.body.withUnsafeBytes { Array($0.prefix(bodyBytes)) }
            if let bytesPerSecond {
                throttled = (cut, 0, max(1, bytesPerSecond / 10))
                sendThrottledSlice()
            } else {
                queue.append(Payload(cut))
                isBodyComplete = true
                owner.resume(self)
            }
        case .hold:
            break  // open until the client resets it or the connection ends
        }
    }

    /// Starts an answer whose body follows in pieces (a relayed one, server-sent events).
    func startStream(status: Int, headers: HTTPHeaders, contentLength: Int?, maximumQueuedBytes: Int) -> ResponseStream?
    {
        guard isOpen, !isAnswered, let owner else { return nil }
        isAnswered = true
        var headers = headers
        headers.remove("content-length")
        if let contentLength { headers.add("content-length", String(contentLength)) }
        let stream = ResponseStream(http2: self, connection: owner.connection, maximumQueuedBytes: maximumQueuedBytes)
        relay = stream
        owner.submitResponse(self, fields: HTTP2Fields(status: status, headers: headers), hasBody: !isHead)
        return stream
    }

    // MARK: - Extended CONNECT

    /// Answers the extended `CONNECT` as `head` (an HTTP/1.1 `101`) would answer its HTTP/1.1 handshake: `200` and
    /// the fields that still apply, the stream left open; `ready` then gets the stream as an `UpgradedConnection`,
    /// or nil when it ended meanwhile. False, and nothing sent, for a stream that is not an extended `CONNECT`.
    func upgrade(head: [UInt8], ready: @escaping (UpgradedConnection?) -> Void) -> Bool {
        guard isTunnel, isOpen, !isAnswered, let owner else { return false }
        isAnswered = true
        let answer = WebSocketHandshake.http2Answer(forHead: head)
        owner.submitResponse(self, fields: HTTP2Fields(status: answer.status, headers: answer.headers), hasBody: true)
        let worker = owner.connection.worker
        // As over HTTP/1.1, handed over once the loop has left the callbacks it may be in.
        owner.loop.schedule(afterMilliseconds: 0) { [self] in
            guard isOpen else {
                ready(nil)
                return
            }
            let upgraded = UpgradedConnection(worker: worker, stream: self, received: tunnelPending)
            tunnelPending = []
            tunnel = upgraded
            ready(upgraded)
        }
        return true
    }

    /// DATA the client sent on an extended `CONNECT`; false when more waits unanswered than a message may hold.
    func tunnelReceived(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let tunnel {
            tunnel.streamReceived(Array(bytes))
            return true
        }
        tunnelPending.append(contentsOf: bytes)
        return tunnelPending.count <= WebSocketLimits.standard.maximumMessageBytes + 64 * 1024
    }

    /// The client sent `END_STREAM` on an extended `CONNECT`.
    func tunnelEndedByClient() {
        tunnel?.streamEndedByClient()
    }

    /// The last DATA frame, with `END_STREAM`, is being sent: the tunnel is done once the loop is out of nghttp2.
    func endSent() {
        guard isTunnel, !isEndSent else { return }
        isEndSent = true
        owner?.loop.schedule(afterMilliseconds: 0) { [weak self] in self?.tunnel?.streamFinished() }
    }

    /// Resets the stream with `errorCode` (a tunnel cut short).
    func abort(errorCode: UInt32) {
        guard isOpen, let owner else { return }
        owner.reset(self, errorCode: errorCode)
    }

    // MARK: - Streamed bodies

    var queuedBytes: Int { queue.byteCount }

    func appendBody(_ bytes: [UInt8]) {
        guard isOpen, !isBodyComplete, !isHead, !bytes.isEmpty else { return }
        queue.append(Payload(bytes))
    }

    func appendBody(_ bytes: UnsafeRawBufferPointer) {
        guard isOpen, !isBodyComplete, !isHead, !bytes.isEmpty else { return }
        queue.append(Payload(bytes.bindMemory(to: UInt8.self)))
    }

    func flushBody() {
        guard isOpen, let owner else { return }
        owner.resume(self)
    }

    func finishBody() {
        guard isOpen, let owner else { return }
        isBodyComplete = true
        owner.resume(self)
    }

    func abortBody() {
        guard isOpen, let owner else { return }
        owner.reset(self, errorCode: NGHTTP2_INTERNAL_ERROR.rawValue)
    }

    // MARK: - Closing

    func whenClosed(_ observer: @escaping () -> Void) {
        if !isOpen {
            observer()
        } else {
            closeObservers.append(observer)
        }
    }

    /// The stream ended (answered, reset by either side, or its connection closed).
    func closed() {
        guard !isClosed else { return }
        isClosed = true
        throttled = nil
        queue.removeAll()
        let relay = relay
        self.relay = nil
        relay?.markFinished()
        let tunnel = tunnel
        self.tunnel = nil
        tunnel?.streamFinished()
        let observers = closeObservers
        closeObservers = []
        for observer in observers { observer() }
    }
}

/// An answer's body waiting for DATA frames, as references to payloads (a stub's prepared body is never copied
/// before nghttp2 frames it). The first payload is held apart from the rest: a whole answer's body is one payload,
/// which then needs no list (and no allocation) of its own.
struct HTTP2BodyQueue {
    private var first: (payload: Payload, offset: Int)?
    /// The payloads after `first`, from `restStart` on.
    private var rest: [Payload] = []
    private var restStart = 0
    private(set) var byteCount = 0

    var isEmpty: Bool { byteCount == 0 }

    mutating func append(_ payload: Payload) {
        guard payload.count > 0 else { return }
        if first == nil {
            first = (payload, 0)
        } else {
            rest.append(payload)
        }
        byteCount += payload.count
    }

    /// Copies up to `buffer.count` bytes out; returns how many.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var copied = 0
        while copied < buffer.count, let (payload, offset) = first {
            let count = min(payload.count - offset, buffer.count - copied)
            payload.withUnsafeBytes { bytes in
                UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<copied + count])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            }
            copied += count
            if offset + count < payload.count {
                first = (payload, offset + count)
            } else if restStart < rest.count {
                first = (rest[restStart], 0)
                restStart += 1
                if restStart == rest.count {
                    rest.removeAll(keepingCapacity: true)
                    restStart = 0
                }
            } else {
                first = nil
            }
        }
        byteCount -= copied
        return copied
    }

    mutating func removeAll() {
        first = nil
        rest.removeAll()
        restStart = 0
        byteCount = 0
    }
}
