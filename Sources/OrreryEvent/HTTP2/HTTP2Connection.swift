import CLibevent
import CNghttp2
import Glibc
import OrreryCore

/// HTTP/2 on a server connection, after its first bytes were the connection preface (prior knowledge, or `h2` by
/// ALPN on TLS) or its first request asked for `Upgrade: h2c`. nghttp2 does the framing, HPACK and flow control;
/// this maps each stream to a request for the handler and each answer to HEADERS and DATA.
///
/// The `ServerConnection` still moves the bytes (plain or TLS) and keeps the deadlines: each read is fed to
/// `nghttp2_session_mem_recv` whole, and answers submitted meanwhile go out in one `mem_send` pass after it, so a
/// read of sixteen requests is answered with one write. Used only on its loop's thread.
final class HTTP2Connection {
    unowned let connection: ServerConnection
    private var session: OpaquePointer?
    private var streams: [Int32: HTTP2Stream] = [:]
    /// The header block being received and its stream: blocks never interleave (CONTINUATION follows at once).
    private var block = HTTP2RequestHead()
    private var blockStream: Int32 = 0
    /// Inside nghttp2 (mem_recv or mem_send): answers given now are submitted, and sent after it returns.
    private var isInside = false
    /// More was submitted while inside nghttp2.
    private var needsSend = false
    /// Reading stops while this much output waits for the client (RFC 9113's floods answer through it).
    private var isPausedForOutput = false
    /// The session ended (GOAWAY sent or fatal error): the connection closes once its output is written.
    private(set) var isEnding = false
    /// The last prepared head read into fields, and its fields: a stub's answer is read once, not per request.
    private var cachedHead: Payload?
    private var cachedFields: HTTP2Fields?
    /// When a stream's queued body last moved (the loop's clock): a client that opens no window is cut off.
    private var lastBodyProgress = 0
    private var sendBuffer: [UInt8] = []

    /// Output that stops reading until it drains.
    static let backpressureBytes = 256 * 1024

    var loop: EventLoop { connection.worker.loop }
    private var configuration: HTTPServerConfiguration { connection.worker.configuration }

    /// Starts a server session and queues its SETTINGS. With `upgrade`, stream 1 is the upgraded request, which is
    /// handed to the handler at once.
    init?(connection: ServerConnection, upgrade: HTTP2Upgrade?) {
        self.connection = connection
        var session: OpaquePointer?
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_server_new2(&session, HTTP2Callbacks.callbacks, user, HTTP2Callbacks.options) == 0,
            let session
        else { return nil }
        self.session = session
        let configuration = connection.worker.configuration
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: UInt32(configuration.http2MaxStreams)),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(configuration.maxHeaderBytes)),
            // RFC 8441: a client may open a WebSocket on a stream with an extended CONNECT.
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL.rawValue), value: 1),
        ]
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0 else {
            free()
            return nil
        }
        lastBodyProgress = connection.worker.now
        guard let upgrade else { return }
        let isHead = upgrade.request.method == "HEAD"
        let upgraded = upgrade.settings.withUnsafeBufferPointer { settings in
            nghttp2_session_upgrade2(session, settings.baseAddress, settings.count, isHead ? 1 : 0, nil)
        }
        guard upgraded == 0 else {
            free()
            return nil
        }
        let stream = HTTP2Stream(id: 1, owner: self)
        stream.isHead = isHead
        stream.isDispatched = true
        streams[1] = stream
        dispatch(stream, upgrade.request)
    }

    /// The connection closed: the streams still open end, their observers told. The session itself is freed later
    /// (`free`), once no call into it can be under way.
    func endStreams() {
        isEnding = true
        let open = streams.values
        streams = [:]
        for stream in open { stream.closed() }
    }

    /// Frees the session (after `endStreams`).
    func free() {
        endStreams()
        if let session { nghttp2_session_del(session) }
        session = nil
    }

    // MARK: - Input

    /// Feeds what the client sent to nghttp2, then sends what it answered.
    func received(_ bytes: UnsafeRawBufferPointer) {
        guard let session, !isEnding else { return }
        isInside = true
        let result = nghttp2_session_mem_recv(
            session, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        isInside = false
        if result < 0 && !isEnding {
            // A fatal error (a CONTINUATION or PING flood, a bad preface) queues no GOAWAY: one is queued here so
            // the client learns why, then the connection closes.
            let code =
                result == Int(NGHTTP2_ERR_FLOODED.rawValue)
                    || result == Int(NGHTTP2_ERR_TOO_MANY_CONTINUATIONS.rawValue)
                ? NGHTTP2_ENHANCE_YOUR_CALM.rawValue : NGHTTP2_PROTOCOL_ERROR.rawValue
            nghttp2_session_terminate_session(session, code)
        }
        if result < 0 { isEnding = true }
        send()
    }

    /// Whether the socket should be read: nghttp2 wants input, and not too much output waits.
    var wantsRead: Bool {
        guard let session, !isEnding, !isPausedForOutput else { return false }
        return nghttp2_session_want_read(session) != 0
    }

    // MARK: - Output

    /// Runs nghttp2's output into the connection's queue, in one piece, and writes it; outside nghttp2 only.
    func send() {
        guard let session, !connection.isClosed else { return }
        if isInside {
            needsSend = true
            return
        }
        repeat {
            needsSend = false
            isInside = true
            while true {
                var data: UnsafePointer<UInt8>?
                let count = nghttp2_session_mem_send(session, &data)
                if count < 0 {
                    isInside = false
                    connection.close()
                    return
                }
                guard count > 0, let data else { break }
                sendBuffer.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            }
            isInside = false
            if !sendBuffer.isEmpty {
                connection.output.append(Payload(sendBuffer))
                sendBuffer.removeAll(keepingCapacity: sendBuffer.capacity <= 64 * 1024)
            }
        } while needsSend && !connection.isClosed
        connection.flush()
        guard !connection.isClosed else { return }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 { isEnding = true }
        if isEnding {
            connection.closeOnceWritten()
            return
        }
        let waiting = connection.output.byteCount + connection.queuedInBufferevent
        if waiting > Self.backpressureBytes, !isPausedForOutput {
            isPausedForOutput = true
            connection.updateReading()
        } else if waiting == 0 {
            relaysDrained()
        }
    }

    /// The connection's output has all been written.
    func outputDrained() {
        if isPausedForOutput {
            isPausedForOutput = false
            connection.updateReading()
        }
        if isEnding {
            connection.closeOnceWritten()
            return
        }
        relaysDrained()
    }

    private var isTellingRelays = false

    /// Tells the writers of relayed answers whose queues have gone out that they may write more.
    private func relaysDrained() {
        guard !isTellingRelays else { return }
        isTellingRelays = true
        defer { isTellingRelays = false }
        for stream in streams.values where stream.relay != nil && stream.queue.isEmpty {
            stream.relay?.drained()
        }
    }

    // MARK: - Answers

    /// The fields of a prepared answer, read from its HTTP/1 head (once for the last head seen).
    func fields(for response: EncodedResponse) -> HTTP2Fields {
        if let cachedHead, cachedHead.owner === response.head.owner, let cachedFields { return cachedFields }
        let fields =
            response.head.withUnsafeBytes { HTTP2Fields(http1Head: $0) }
            ?? HTTP2Fields(status: response.status, headers: HTTPHeaders())
        cachedHead = response.head
        cachedFields = fields
        return fields
    }

    /// Submits a trailer block (allowed inside the data source's callback).
    private func submit(_ fields: HTTP2Fields, on streamID: Int32, session: OpaquePointer) {
        fields.withNameValues { nv, count in
            _ = nghttp2_submit_trailer(session, streamID, nv, count)
        }
    }

    func submitResponse(_ stream: HTTP2Stream, fields: HTTP2Fields, hasBody: Bool) {
        guard let session, nghttp2_session_find_stream(session, stream.id) != nil else { return }
        let result = fields.withNameValues { nv, count -> Int32 in
            guard hasBody else {
                return nghttp2_submit_response(session, stream.id, nv, count, nil)
            }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil), read_callback: HTTP2Callbacks.readBody)
            return nghttp2_submit_response(session, stream.id, nv, count, &provider)
        }
        if result != 0 {
            nghttp2_submit_rst_stream(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_INTERNAL_ERROR.rawValue)
        }
        send()
    }

    /// More of a stream's body is queued (or it is complete): nghttp2 reads on if it was waiting.
    func resume(_ stream: HTTP2Stream) {
        guard let session else { return }
        if stream.isDeferred {
            stream.isDeferred = false
            nghttp2_session_resume_data(session, stream.id)
        }
        send()
    }

    func reset(_ stream: HTTP2Stream, errorCode: UInt32) {
        guard let session else { return }
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, errorCode)
        send()
    }

    /// nghttp2 wants the next DATA frame of a stream.
    func readBody(streamID: Int32, into buffer: UnsafeMutableRawBufferPointer, flags: UnsafeMutablePointer<UInt32>)
        -> Int
    {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = stream.queue.read(into: buffer)
        if count > 0 { lastBodyProgress = connection.worker.now }
        if stream.queue.isEmpty && stream.isBodyComplete {
            // A body cut on purpose ends in a reset (INTERNAL_ERROR), after what was sent of it.
            if stream.resetsAfterBody {
                return count > 0 ? count : Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
            }
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            if stream.isTunnel { stream.endSent() }
            if let trailers = stream.trailers, let session {
                // The last DATA frame leaves the stream open; the trailers' HEADERS end it.
                flags.pointee |= NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                submit(trailers, on: stream.id, session: session)
            }
            return count
        }
        if count == 0 {
            stream.isDeferred = true
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
        return count
    }

    /// PINGs and SETTINGS the client may still send before it is cut off, refilled over time (a token bucket):
    /// each costs an answer, and nghttp2 counts only the answers it holds itself, which depends on the read size.
    private var controlBudget = HTTP2Connection.controlBurst
    private var controlRefilledAt = 0
    static let controlBurst = 1000
    /// Tokens back per second.
    static let controlRate = 100

    func controlFrameReceived() -> Int32 {
        let now = connection.worker.now
        let earned = (now - controlRefilledAt) * Self.controlRate / 1000
        if earned > 0 {
            controlBudget = min(Self.controlBurst, controlBudget + earned)
            controlRefilledAt = now
        }
        controlBudget -= 1
        guard controlBudget < 0 else { return 0 }
        // A PING or SETTINGS flood: GOAWAY (ENHANCE_YOUR_CALM), and nothing more of this read is processed.
        if let session { nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue) }
        isEnding = true
        return NGHTTP2_ERR_CALLBACK_FAILURE.rawValue
    }

    // MARK: - Requests

    func beginHeaders(streamID: Int32, isRequest: Bool) -> Int32 {
        block = HTTP2RequestHead()
        blockStream = streamID
        if isRequest, streams[streamID] == nil { streams[streamID] = HTTP2Stream(id: streamID, owner: self) }
        return 0
    }

    func header(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int32 {
        guard streamID == blockStream else { return 0 }
        guard block.add(name: name, value: value, limit: configuration.maxHeaderBytes) else {
            // A header list past the limit (an HPACK bomb expands to one): as an HTTP/1 head that large closes its
            // connection, the whole connection ends, with GOAWAY.
            if let session { nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue) }
            isEnding = true
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
        }
        return 0
    }

    func dataReceived(streamID: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard let stream = streams[streamID], !stream.isBodyTooLarge else { return 0 }
        if stream.isTunnel {
            // A client that sends more than a WebSocket message may hold before its CONNECT is answered.
            if !stream.tunnelReceived(bytes), let session {
                nghttp2_submit_rst_stream(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
            }
            return 0
        }
        if stream.body.count + bytes.count > configuration.maxBodyBytes {
            stream.isBodyTooLarge = true
            stream.body = []
        } else {
            stream.body.append(contentsOf: bytes)
        }
        return 0
    }

    func frameReceived(streamID: Int32, isHeaders: Bool, endsStream: Bool) -> Int32 {
        guard let stream = streams[streamID] else { return 0 }
        if stream.isTunnel {
            if endsStream { stream.tunnelEndedByClient() }
            return 0
        }
        guard !stream.isDispatched else { return 0 }
        if isHeaders && streamID == blockStream && stream.head.method.isEmpty {
            stream.head = block
            stream.isHead = block.method == "HEAD"
        }
        if stream.head.isExtendedConnect {
            extendedConnect(stream, endsStream: endsStream)
            return 0
        }
        guard endsStream else { return 0 }
        stream.isDispatched = true
        if stream.isBodyTooLarge {
            stream.send(
                EncodedResponse(
                    ErrorResponse(
                        .Code413ContentTooLarge,
                        message: "The request body is larger than \(configuration.maxBodyBytes) bytes.")))
            return 0
        }
        if stream.head.method == "CONNECT" {
            let error = ErrorResponse(
                .Code501NotImplemented, message: "CONNECT is not tunnelled over HTTP/2 here: send it over HTTP/1.1.")
            stream.send(EncodedResponse(error))
            return 0
        }
        let body = stream.body
        stream.body = []
        dispatch(stream, stream.head.request(body: body))
        return 0
    }

    /// An extended `CONNECT` (RFC 8441) for `websocket`: handed to the pipeline at once, as the WebSocket handshake it
    /// stands for; its stream stays open both ways for the frames. Any other protocol is a 501.
    private func extendedConnect(_ stream: HTTP2Stream, endsStream: Bool) {
        stream.isDispatched = true
        let problem: (HTTPStatusCode, String)? =
            if stream.head.connectProtocol != "websocket" {
                (
                    .Code501NotImplemented,
                    "The extended CONNECT is served for the websocket protocol only, not '\(stream.head.connectProtocol)'."
                )
            } else if endsStream {
                (.Code400BadRequest, "An extended CONNECT must leave its stream open for the WebSocket's frames.")
            } else {
                nil
            }
        if let (status, message) = problem {
            stream.send(EncodedResponse(ErrorResponse(status, message: message)))
            return
        }
        stream.isTunnel = true
        dispatch(stream, stream.head.webSocketRequest())
    }

    private func dispatch(_ stream: HTTP2Stream, _ request: HTTPRequest) {
        let context = ResponseContext(isHead: stream.isHead, minorVersion: 1, isKeepAlive: true)
        connection.worker.handler.handle(
            request, responder: Responder(connection: connection, stream: stream, context: context))
    }

    func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        stream.closed()
    }

    // MARK: - Time and stopping

    /// The connection's timer fired (its idle timeout): an idle connection, or one whose client has left a body
    /// waiting on a closed window that long, ends with GOAWAY.
    func timedOut() -> Bool {
        guard let session, !isEnding else { return true }
        let idle = configuration.idleTimeoutMilliseconds
        let isStalled =
            streams.values.contains { !$0.queue.isEmpty } && connection.worker.now - lastBodyProgress >= idle
        guard streams.isEmpty || isStalled else { return false }
        nghttp2_session_terminate_session(
            session, isStalled ? NGHTTP2_FLOW_CONTROL_ERROR.rawValue : NGHTTP2_NO_ERROR.rawValue)
        isEnding = true
        send()
        return true
    }

    /// The server stops: GOAWAY now; the streams under way are answered, streamed answers end.
    func beginShutdown() {
        guard let session, !isEnding else { return }
        nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session),
            NGHTTP2_NO_ERROR.rawValue, nil, 0)
        for stream in streams.values {
            stream.relay?.serverStopping()
            // An open WebSocket ends as one over HTTP/1.1 does when the server stops.
            if stream.isTunnel, stream.isAnswered { stream.abort(errorCode: NGHTTP2_CANCEL.rawValue) }
        }
        send()
    }

    /// Streams not yet answered (a streamed answer is not waited for), or output still to go.
    var isBusy: Bool {
        streams.values.contains { ($0.relay == nil && !$0.isTunnel) || !$0.queue.isEmpty }
    }
}
