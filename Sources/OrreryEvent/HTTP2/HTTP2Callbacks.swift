import CNghttp2
import OrreryCore

/// nghttp2's callbacks and options, made once for the process: nghttp2 copies both into every session. Each
/// callback finds its connection through the session's user data (`Unmanaged`, unretained: the connection owns the
/// session and frees it before it goes).
enum HTTP2Callbacks {
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
        // Closed streams are not kept for RFC 7540's priority tree, which RFC 9113 deprecates.
        nghttp2_option_set_no_closed_streams(options, 1)
        // Our encoder's dynamic table: what HPACK may hold per connection for the answers.
        nghttp2_option_set_max_deflate_dynamic_table_size(options, 4096)
        return options
    }()

    private static func connection(_ user: UnsafeMutableRawPointer?) -> HTTP2Connection? {
        guard let user else { return nil }
        return Unmanaged<HTTP2Connection>.fromOpaque(user).takeUnretainedValue()
    }

    static let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, user in
        guard let frame, let connection = connection(user) else { return 0 }
        return connection.beginHeaders(
            streamID: frame.pointee.hd.stream_id, isRequest: frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST)
    }

    static let onHeader: nghttp2_on_header_callback = { _, frame, name, nameCount, value, valueCount, _, user in
        guard let frame, let connection = connection(user) else { return 0 }
        return connection.header(
            streamID: frame.pointee.hd.stream_id, name: UnsafeRawBufferPointer(start: name, count: nameCount),
            value: UnsafeRawBufferPointer(start: value, count: valueCount))
    }

    static let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, user in
        guard let frame, let connection = connection(user) else { return 0 }
        let type = UInt32(frame.pointee.hd.type)
        if type == NGHTTP2_PING.rawValue || type == NGHTTP2_SETTINGS.rawValue {
            // What the server must answer (an ACK each), not ACKs themselves.
            let isAck = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
            return isAck ? 0 : connection.controlFrameReceived()
        }
        guard type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue else { return 0 }
        let endsStream = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        return connection.frameReceived(
            streamID: frame.pointee.hd.stream_id, isHeaders: type == NGHTTP2_HEADERS.rawValue, endsStream: endsStream)
    }

    static let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, count, user in
        guard let connection = connection(user) else { return 0 }
        return connection.dataReceived(streamID: streamID, UnsafeRawBufferPointer(start: data, count: count))
    }

    static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, user in
        connection(user)?.streamClosed(streamID: streamID, errorCode: errorCode)
        return 0
    }

    /// Reads an answer's body for a DATA frame from the stream's queue.
    static let readBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, user in
        guard let connection = connection(user), let buffer, let flags else {
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        return connection.readBody(
            streamID: streamID, into: UnsafeMutableRawBufferPointer(start: buffer, count: length), flags: flags)
    }
}
