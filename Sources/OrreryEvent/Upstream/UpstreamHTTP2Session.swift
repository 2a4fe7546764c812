import CLibevent
import CNghttp2
import OrreryCore

/// HTTP/2 on an upstream connection: the upstream chose `h2` by ALPN, or the host map says it speaks h2c
/// (`"http2": true`). nghttp2's client session does the framing, HPACK and flow control on the connection's
/// bufferevent; this turns the exchange's request into HEADERS and DATA, and the answer's frames back into a head,
/// body pieces and trailers for the exchange, as `HTTP1Parser` does for HTTP/1.1.
///
/// One request at a time, as on an HTTP/1.1 connection: a connection carries one exchange, then waits in the pool
/// for the next (on a new stream of the same session). Used only on its loop's thread.
final class UpstreamHTTP2Session {
    unowned let connection: UpstreamConnection
    private var session: OpaquePointer?
    /// The stream of the request under way; -1 between requests.
    private(set) var streamID: Int32 = -1
    /// The answer's final status once its HEADERS came (0 before; 1xx answers are skipped).
    private(set) var status = 0
    private(set) var headers = HTTPHeaders()
    /// Fields of the HEADERS block after the body (gRPC's `grpc-status`, `grpc-message`).
    private(set) var trailers: HTTPHeaders?
    /// The header block being read is the trailers.
    private var isReadingTrailers = false
    /// RFC 9113 §6.5.2 accounting of the block being read: an upstream's header list is bounded like an HTTP/1 head.
    private var headerBytes = 0
    /// The request's body, read by nghttp2 a DATA frame at a time.
    private var body: [UInt8] = []
    private var bodySent = 0
    /// The answer ended (END_STREAM).
    private(set) var isComplete = false
    /// The stream was reset (by the upstream, or by nghttp2 for a protocol error) before the answer ended.
    private(set) var resetCode: UInt32?
    /// GOAWAY came or the session failed: the connection takes no further request.
    private(set) var isEnding = false
    /// The error code of the upstream's GOAWAY, when one came.
    private(set) var goawayCode: UInt32?
    /// nghttp2 refused what the upstream sent (not HTTP/2, a broken frame): why, for the error answer.
    private(set) var failure: String?
    private var sendBuffer: [UInt8] = []

    /// Largest header list taken from an upstream (as `HTTP1Parser`'s head limit).
    static let maximumHeaderBytes = 64 * 1024
    /// The stream window the upstream may fill before we read: a few socket buffers, so a large answer flows.
    static let windowBytes: UInt32 = 1 << 20

    /// Starts a client session and queues the connection preface and SETTINGS (sent with the first request).
    init?(connection: UpstreamConnection) {
        self.connection = connection
        var session: OpaquePointer?
        let user = Unmanaged.passUnretained(self).toOpaque()
        guard
            nghttp2_session_client_new2(
                &session, UpstreamHTTP2Callbacks.callbacks, user, UpstreamHTTP2Callbacks.options) == 0,
            let session
        else { return nil }
        self.session = session
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: Self.windowBytes),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(Self.maximumHeaderBytes)),
        ]
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0
        else {
            free()
            return nil
        }
        // The connection's window too, not only each stream's.
        nghttp2_session_set_local_window_size(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(Self.windowBytes))
    }

    func free() {
        if let session { nghttp2_session_del(session) }
        session = nil
        isEnding = true
    }

    /// Whether the connection can carry another request.
    var isReusable: Bool {
        guard let session, !isEnding, failure == nil else { return false }
        return nghttp2_session_want_read(session) != 0 || nghttp2_session_want_write(session) != 0
    }

    // MARK: - Request

    /// Submits a request on a new stream and writes it; false when the session cannot take it.
    func submit(_ request: UpstreamRequest) -> Bool {
        guard let session, !isEnding else { return false }
        status = 0
        headers = HTTPHeaders()
        trailers = nil
        isReadingTrailers = false
        isComplete = false
        resetCode = nil
        body = request.body
        bodySent = 0
        let fields = HTTP2Fields(status: nil, headers: Self.requestFields(request))
        let id = fields.withNameValues { nv, count -> Int32 in
            guard !request.body.isEmpty else {
                return nghttp2_submit_request(session, nil, nv, count, nil, nil)
            }
            var provider = nghttp2_data_provider(
                source: nghttp2_data_source(ptr: nil), read_callback: UpstreamHTTP2Callbacks.readBody)
            return nghttp2_submit_request(session, nil, nv, count, &provider, nil)
        }
        guard id > 0 else { return false }
        streamID = id
        return flush()
    }

    /// The request's fields for HTTP/2: the pseudo-fields from the request line and `Host`, then the end-to-end
    /// fields (lower-cased by `HTTP2Fields`), and `te: trailers`, which gRPC servers require and HTTP/2 allows.
    static func requestFields(_ request: UpstreamRequest) -> HTTPHeaders {
        // Once: a forwarded request's list is made when asked.
        let headers = request.headers
        var fields = HTTPHeaders()
        fields.entries.reserveCapacity(headers.count + 5)
        fields.add(":method", request.method)
        fields.add(":scheme", request.upstream.scheme)
        fields.add(":authority", headers["Host"] ?? request.upstream.hostHeader)
        fields.add(":path", request.target.isEmpty ? "/" : request.target)
        for (name, value) in headers.entries
        where !name.equalsIgnoringASCIICase("Host") && !name.equalsIgnoringASCIICase("TE")
            && !name.equalsIgnoringASCIICase("Content-Length")
        {
            fields.add(name, value)
        }
        if !request.body.isEmpty { fields.add("content-length", String(request.body.count)) }
        fields.add("te", "trailers")
        return fields
    }

    /// nghttp2 wants the next DATA frame of the request's body.
    func readBody(streamID: Int32, into buffer: UnsafeMutableRawBufferPointer, flags: UnsafeMutablePointer<UInt32>)
        -> Int
    {
        guard streamID == self.streamID else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(buffer.count, body.count - bodySent)
        if count > 0, let target = buffer.baseAddress {
            body.withUnsafeBytes { source in
                guard let start = source.baseAddress else { return }
                target.copyMemory(from: start + bodySent, byteCount: count)
            }
        }
        bodySent += count
        if bodySent == body.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            body = []
            bodySent = 0
        }
        return count
    }

    // MARK: - Input and output

    /// Feeds what the upstream sent to nghttp2 (the exchange hears of the answer through its callbacks), then
    /// writes what nghttp2 has to say (SETTINGS ACKs, WINDOW_UPDATEs). False when the session failed.
    @discardableResult
    func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let session, failure == nil else { return false }
        let result = nghttp2_session_mem_recv(
            session, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        if result < 0 {
            failure = String(cString: nghttp2_strerror(Int32(result)))
            isEnding = true
            return false
        }
        return true
    }

    /// Writes nghttp2's output to the bufferevent in one piece (outside nghttp2's callbacks only).
    @discardableResult
    func flush() -> Bool {
        guard let session, let bufferevent = connection.bufferevent else { return false }
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 {
                failure = String(cString: nghttp2_strerror(Int32(count)))
                isEnding = true
                return false
            }
            guard count > 0, let data else { break }
            sendBuffer.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
        }
        guard !sendBuffer.isEmpty else { return true }
        let written = bufferevent_write(bufferevent, sendBuffer, sendBuffer.count) == 0
        sendBuffer.removeAll(keepingCapacity: sendBuffer.capacity <= 64 * 1024)
        return written
    }

    // MARK: - nghttp2's callbacks

    func beginHeaders(streamID: Int32) -> Int32 {
        guard streamID == self.streamID else { return 0 }
        headerBytes = 0
        // A block after the final answer's head is its trailers; one after a 1xx is the real head.
        isReadingTrailers = status >= 200
        if isReadingTrailers { trailers = HTTPHeaders() } else { headers = HTTPHeaders() }
        return 0
    }

    func header(streamID: Int32, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int32 {
        guard streamID == self.streamID else { return 0 }
        headerBytes += name.count + value.count + 32
        guard headerBytes <= Self.maximumHeaderBytes else { return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue }
        let name = String(decoding: name, as: UTF8.self)
        let value = String(decoding: value, as: UTF8.self)
        if isReadingTrailers {
            // Pseudo-fields have no place in trailers (nghttp2 rejects them first).
            if !name.hasPrefix(":") { trailers?.add(name, value) }
        } else if name == ":status" {
            status = Int(value) ?? 0
        } else if !name.hasPrefix(":") {
            headers.add(name, value)
        }
        return 0
    }

    /// The upstream said GOAWAY: streams above its last one are closed by nghttp2 (as refused), none open after it.
    func goawayReceived(errorCode: UInt32) {
        isEnding = true
        goawayCode = errorCode
    }

    func frameReceived(streamID: Int32, type: UInt32, endsStream: Bool) -> Int32 {
        guard streamID == self.streamID, streamID > 0 else { return 0 }
        if type == NGHTTP2_HEADERS.rawValue, !isReadingTrailers {
            if status < 200 {
                // An informational answer (100 Continue, 103 Early Hints): the final one follows.
                status = 0
                headers = HTTPHeaders()
                return 0
            }
            connection.exchange?.receivedHTTP2Head(from: self, endsStream: endsStream)
        }
        if endsStream { isComplete = true }
        return 0
    }

    func dataReceived(streamID: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard streamID == self.streamID, !bytes.isEmpty else { return 0 }
        connection.exchange?.receivedHTTP2Body(bytes)
        return 0
    }

    func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard streamID == self.streamID else { return }
        if !isComplete { resetCode = errorCode }
        self.streamID = -1
    }

    /// nghttp2's name of an error code (`REFUSED_STREAM`, `INTERNAL_ERROR`).
    static func name(ofErrorCode code: UInt32) -> String {
        switch code {
        case NGHTTP2_NO_ERROR.rawValue: "NO_ERROR"
        case NGHTTP2_PROTOCOL_ERROR.rawValue: "PROTOCOL_ERROR"
        case NGHTTP2_INTERNAL_ERROR.rawValue: "INTERNAL_ERROR"
        case NGHTTP2_FLOW_CONTROL_ERROR.rawValue: "FLOW_CONTROL_ERROR"
        case NGHTTP2_STREAM_CLOSED.rawValue: "STREAM_CLOSED"
        case NGHTTP2_FRAME_SIZE_ERROR.rawValue: "FRAME_SIZE_ERROR"
        case NGHTTP2_REFUSED_STREAM.rawValue: "REFUSED_STREAM"
        case NGHTTP2_CANCEL.rawValue: "CANCEL"
        case NGHTTP2_COMPRESSION_ERROR.rawValue: "COMPRESSION_ERROR"
        case NGHTTP2_ENHANCE_YOUR_CALM.rawValue: "ENHANCE_YOUR_CALM"
        case NGHTTP2_HTTP_1_1_REQUIRED.rawValue: "HTTP_1_1_REQUIRED"
        default: "error \(code)"
        }
    }
}

/// nghttp2's callbacks and options for upstream (client) sessions, made once for the process. Each callback finds
/// its session through the session's user data (`Unmanaged`, unretained: the connection owns the session and frees
/// it before it goes).
enum UpstreamHTTP2Callbacks {
    // nonisolated(unsafe): written once, here, and only read after; nghttp2 copies them into each session.
    nonisolated(unsafe) static let callbacks: OpaquePointer? = {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return nil }
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        return callbacks
    }()

    // nonisolated(unsafe): as `callbacks`.
    nonisolated(unsafe) static let options: OpaquePointer? = {
        var options: OpaquePointer?
        guard nghttp2_option_new(&options) == 0, let options else { return nil }
        nghttp2_option_set_no_closed_streams(options, 1)
        return options
    }()

    private static func session(_ user: UnsafeMutableRawPointer?) -> UpstreamHTTP2Session? {
        guard let user else { return nil }
        return Unmanaged<UpstreamHTTP2Session>.fromOpaque(user).takeUnretainedValue()
    }

    static let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, user in
        guard let frame, let session = session(user) else { return 0 }
        return session.beginHeaders(streamID: frame.pointee.hd.stream_id)
    }

    static let onHeader: nghttp2_on_header_callback = { _, frame, name, nameCount, value, valueCount, _, user in
        guard let frame, let session = session(user) else { return 0 }
        return session.header(
            streamID: frame.pointee.hd.stream_id, name: UnsafeRawBufferPointer(start: name, count: nameCount),
            value: UnsafeRawBufferPointer(start: value, count: valueCount))
    }

    static let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, user in
        guard let frame, let session = session(user) else { return 0 }
        if UInt32(frame.pointee.hd.type) == NGHTTP2_GOAWAY.rawValue {
            session.goawayReceived(errorCode: frame.pointee.goaway.error_code)
            return 0
        }
        let endsStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        return session.frameReceived(
            streamID: frame.pointee.hd.stream_id, type: UInt32(frame.pointee.hd.type), endsStream: endsStream)
    }

    static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, count, user in
        guard let session = session(user) else { return 0 }
        return session.dataReceived(streamID: streamID, UnsafeRawBufferPointer(start: data, count: count))
    }

    static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, user in
        session(user)?.streamClosed(streamID: streamID, errorCode: errorCode)
        return 0
    }

    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, user in
        guard let session = session(user), let buffer, let flags else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        return session.readBody(
            streamID: streamID, into: UnsafeMutableRawBufferPointer(start: buffer, count: length), flags: flags)
    }
}
