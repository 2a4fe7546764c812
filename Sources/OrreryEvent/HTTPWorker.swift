import CLibevent
import Glibc
import OrreryCore

/// One event loop's HTTP server: an `evhttp` accepting on its own socket, and the handler it calls.
final class HTTPWorker {
    let loop: EventLoop
    let configuration: HTTPServerConfiguration
    private let handler: any HTTPRequestHandler
    private var http: OpaquePointer?
    private var boundSockets: [OpaquePointer] = []

    /// True while Orrery itself writes a response, so the output watcher can tell libevent's own error pages apart.
    private var isSendingOwnReply = false
    /// A libevent-generated error response being written: which buffer, where its head starts, its status.
    private var pendingErrorPage: (buffer: OpaquePointer, headStart: Int, status: Int)?
    /// Bytes queued for clients and not yet written, across all connections; shutdown waits for it to drain.
    private(set) var pendingOutputBytes = 0
    /// Replies scheduled for later (stubs with a delay); shutdown waits for them too.
    private(set) var pendingDelayedReplies = 0
    /// Bytes read from clients since the last request was handed to the handler. libevent gives the same status
    /// to different failures (400 for an unparseable head and for one over its size limit, 413 for a body over the
    /// limit and for broken chunked framing); the amount of input tells them apart. It is counted per loop, not per
    /// connection, which is exact unless another client uploads at the very same moment.
    private var inputBytesSinceDispatch = 0
    /// CONNECT tunnels, connecting or open; libevent holds them unretained.
    private var tunnels: [ObjectIdentifier: Tunnel] = [:]
    private let date: DateHeader

    init(loop: EventLoop, configuration: HTTPServerConfiguration, handler: any HTTPRequestHandler) throws(EventError) {
        self.loop = loop
        self.configuration = configuration
        self.handler = handler
        date = DateHeader(base: loop.base)
        guard let http = evhttp_new(loop.base) else { throw EventError("evhttp_new failed") }
        self.http = http
        let allMethods = EVHTTP_REQ_GET.rawValue | EVHTTP_REQ_POST.rawValue | EVHTTP_REQ_HEAD.rawValue
            | EVHTTP_REQ_PUT.rawValue | EVHTTP_REQ_DELETE.rawValue | EVHTTP_REQ_OPTIONS.rawValue
            | EVHTTP_REQ_TRACE.rawValue | EVHTTP_REQ_CONNECT.rawValue | EVHTTP_REQ_PATCH.rawValue
        evhttp_set_allowed_methods(http, UInt16(allMethods))
        evhttp_set_max_headers_size(http, configuration.hardHeadLimit)
        evhttp_set_max_body_size(http, configuration.maxBodyBytes)
        // Orrery adds no Content-Type the stub did not ask for.
        evhttp_set_default_content_type(http, nil)
        evhttp_set_timeout(http, Int32(configuration.idleTimeoutSeconds))
        // Reads and discards an oversized body before answering 413, so the client sees the answer, not a reset.
        evhttp_set_flags(http, EVHTTP_SERVER_LINGERING_CLOSE)
        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_gencb(http, Trampolines.httpRequest, context)
        evhttp_set_bevcb(http, Trampolines.makeBufferevent, context)
    }

    deinit {
        closeHTTP()
    }

    /// Frees the evhttp (closing its connections) before the loop's base goes away.
    func closeHTTP() {
        // Tunnels own connections evhttp would otherwise free under them.
        for tunnel in tunnels.values { tunnel.free() }
        tunnels.removeAll()
        if let http { evhttp_free(http) }
        http = nil
        boundSockets.removeAll()
    }

    func accept(on socket: Int32) throws(EventError) {
        guard let http, let bound = evhttp_accept_socket_with_handle(http, socket) else {
            throw EventError("evhttp_accept_socket failed")
        }
        boundSockets.append(bound)
    }

    /// Stops accepting new connections (closing the listening sockets); open connections carry on.
    func stopAccepting() {
        guard let http else { return }
        for bound in boundSockets { evhttp_del_accept_socket(http, bound) }
        boundSockets.removeAll()
    }

    // MARK: - Requests

    func handle(_ request: OpaquePointer) {
        inputBytesSinceDispatch = 0
        guard let uriPointer = evhttp_request_get_uri(request) else {
            sendError(request, ErrorResponse(.Code400BadRequest, message: "The request has no target."))
            return
        }
        let uriLength = strlen(uriPointer)
        if uriLength > configuration.maxURILength {
            sendError(
                request,
                ErrorResponse(
                    .Code414URITooLong,
                    message: "The request target is \(uriLength) bytes; the limit is \(configuration.maxURILength)."))
            return
        }
        let (headers, headerBytes) = EvhttpValues.headers(evhttp_request_get_input_headers(request))
        if headerBytes > configuration.maxHeaderBytes {
            sendError(
                request,
                ErrorResponse(
                    .Code431RequestHeaderFieldsTooLarge,
                    message: "The request headers are \(headerBytes) bytes; the limit is \(configuration.maxHeaderBytes)."))
            return
        }
        let body = EvhttpValues.bytes(evhttp_request_get_input_buffer(request))
        let method = Self.methodName(evhttp_request_get_command(request))
        let parsed = HTTPRequest(method: method, target: String(cString: uriPointer), headers: headers, body: body)
        handler.handle(parsed, responder: Responder(request: request, worker: self))
    }

    static func methodName(_ command: evhttp_cmd_type) -> String {
        switch command {
        case EVHTTP_REQ_GET: "GET"
        case EVHTTP_REQ_POST: "POST"
        case EVHTTP_REQ_HEAD: "HEAD"
        case EVHTTP_REQ_PUT: "PUT"
        case EVHTTP_REQ_DELETE: "DELETE"
        case EVHTTP_REQ_OPTIONS: "OPTIONS"
        case EVHTTP_REQ_TRACE: "TRACE"
        case EVHTTP_REQ_CONNECT: "CONNECT"
        case EVHTTP_REQ_PATCH: "PATCH"
        default: "UNKNOWN"
        }
    }

    private func sendError(_ request: OpaquePointer, _ error: ErrorResponse) {
        // The request was refused before its body was trusted: close the connection after answering.
        var headers = error.headers
        headers.add("Connection", "close")
        send(
            request, status: error.status, reason: HTTPStatusCode.reasonPhrase(for: error.status), headers: headers,
            body: Payload(error.body))
    }

    /// Sends the reply after a delay, on this loop. The request stays valid meanwhile: evhttp stops reading a
    /// connection while its request is being answered, so it cannot notice the client leave and free it.
    func send(
        _ request: OpaquePointer, afterMilliseconds delay: Int, status: Int, reason: String, headers: HTTPHeaders,
        body: Payload
    ) {
        pendingDelayedReplies += 1
        loop.schedule(afterMilliseconds: delay) { [self] in
            pendingDelayedReplies -= 1
            // After shutdown closed the connections the request is gone.
            guard http != nil else { return }
            send(request, status: status, reason: reason, headers: headers, body: body)
        }
    }

    func send(_ request: OpaquePointer, status: Int, reason: String, headers: HTTPHeaders, body: Payload) {
        if let output = evhttp_request_get_output_headers(request) {
            // withCString, not the implicit conversion: that copies each string to the heap first.
            for (name, value) in headers.entries {
                name.withCString { name in value.withCString { value in _ = evhttp_add_header(output, name, value) } }
            }
            if !headers.contains("Date") { date.current.withCString { _ = evhttp_add_header(output, "Date", $0) } }
            // evhttp frames no answer to CONNECT, taking every one for a tunnel's 200; a refusal needs its length
            // for the client to find where it ends and go on using the connection.
            if evhttp_request_get_command(request) == EVHTTP_REQ_CONNECT {
                evhttp_add_header(output, "Content-Length", String(body.count))
            }
        }
        if body.count > 0, let buffer = evhttp_request_get_output_buffer(request) {
            let owner = Unmanaged.passRetained(body as AnyObject).toOpaque()
            let added = body.withUnsafeBytes { bytes in
                evbuffer_add_reference(buffer, bytes.baseAddress, bytes.count, Trampolines.releasePayload, owner)
            }
            if added != 0 { Unmanaged<AnyObject>.fromOpaque(owner).release() }
        }
        isSendingOwnReply = true
        reason.withCString { evhttp_send_reply(request, Int32(status), $0, nil) }
        isSendingOwnReply = false
    }

    // MARK: - Tunnels

    func openTunnel(
        _ request: OpaquePointer, to target: ConnectTarget, using client: UpstreamClient,
        failed: @escaping (UpstreamFailure) -> Void, closed: @escaping (TunnelTotals) -> Void
    ) {
        let tunnel = Tunnel(
            worker: self, request: request, target: target,
            connectTimeoutMilliseconds: client.configuration.connectTimeoutMilliseconds, failed: failed, closed: closed)
        tunnels[ObjectIdentifier(tunnel)] = tunnel
        tunnel.start(resolvingWith: client)
    }

    func tunnelFreed(_ tunnel: Tunnel) {
        tunnels[ObjectIdentifier(tunnel)] = nil
    }

    /// A tunnel took this connection over: what passes through it is no HTTP response of Orrery's or libevent's.
    func stopWatching(_ bufferevent: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        if let output = bufferevent_get_output(bufferevent) {
            pendingOutputBytes -= evbuffer_get_length(output)
            evbuffer_remove_cb(output, Trampolines.outputChanged, context)
        }
        if let input = bufferevent_get_input(bufferevent) {
            evbuffer_remove_cb(input, Trampolines.inputChanged, context)
        }
    }

    // MARK: - Connections and libevent's own error pages

    func makeBufferevent(_ base: OpaquePointer) -> OpaquePointer? {
        guard let bufferevent = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            return nil
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        if let output = bufferevent_get_output(bufferevent) {
            evbuffer_add_cb(output, Trampolines.outputChanged, context)
        }
        if let input = bufferevent_get_input(bufferevent) {
            evbuffer_add_cb(input, Trampolines.inputChanged, context)
        }
        return bufferevent
    }

    func inputChanged(_ info: evbuffer_cb_info) {
        inputBytesSinceDispatch += info.n_added
    }

    private static let errorPageStart = Array("<HTML><HEAD>".utf8)

    /// Watches what evhttp writes to a connection. libevent answers unparseable requests and oversized bodies
    /// with an HTML page of its own and offers no hook for it (2.1 has no error callback); this replaces such a
    /// page, as it is written and before it reaches the socket, with Orrery's JSON error.
    func outputChanged(_ buffer: OpaquePointer, _ info: evbuffer_cb_info) {
        pendingOutputBytes += info.n_added - info.n_deleted
        guard !isSendingOwnReply, info.n_added > 0 else { return }
        var start = [UInt8](repeating: 0, count: min(info.n_added, 16))
        guard Self.copy(from: buffer, at: info.orig_size, into: &start) else { return }
        if start.starts(with: Array("HTTP/1.".utf8)), start.count >= 12,
            let status = Int(String(decoding: start[9..<12], as: UTF8.self)), status >= 400
        {
            pendingErrorPage = (buffer, info.orig_size, status)
        } else if let page = pendingErrorPage, page.buffer == buffer, start.starts(with: Self.errorPageStart) {
            pendingErrorPage = nil
            replaceErrorPage(in: buffer, headStart: page.headStart, status: page.status)
        }
    }

    private func replaceErrorPage(in buffer: OpaquePointer, headStart: Int, status: Int) {
        var earlier = [UInt8](repeating: 0, count: headStart)
        guard headStart == 0 || Self.copy(from: buffer, at: 0, into: &earlier) else { return }
        var status = status
        var message = Self.libeventErrorMessage(status, configuration)
        if status == 400 && inputBytesSinceDispatch > configuration.hardHeadLimit {
            status = HTTPStatusCode.Code431RequestHeaderFieldsTooLarge.rawValue
            message = "The request head is larger than \(configuration.hardHeadLimit) bytes."
        } else if status == 413 && inputBytesSinceDispatch <= configuration.maxBodyBytes {
            status = HTTPStatusCode.Code400BadRequest.rawValue
            message = "The request body's chunked framing is broken."
        }
        inputBytesSinceDispatch = 0
        let error = ErrorResponse(status: status, message: message)
        let body = error.body
        var head = "HTTP/1.1 \(status) \(HTTPStatusCode.reasonPhrase(for: status))\r\n"
        for (name, value) in error.headers.entries { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        // Our own writes below must not be taken for another error page.
        isSendingOwnReply = true
        evbuffer_drain(buffer, evbuffer_get_length(buffer))
        if !earlier.isEmpty { evbuffer_add(buffer, earlier, earlier.count) }
        let response = Array(head.utf8) + body
        evbuffer_add(buffer, response, response.count)
        isSendingOwnReply = false
    }

    private static func libeventErrorMessage(_ status: Int, _ configuration: HTTPServerConfiguration) -> String {
        switch status {
        case 400: "The request is not valid HTTP/1.x: its request line or a header line could not be parsed."
        case 413: "The request body is larger than the limit of \(configuration.maxBodyBytes) bytes."
        case 417: "Only 'Expect: 100-continue' is supported."
        case 501: "The request method is not one the HTTP parser supports."
        default: "The request could not be handled."
        }
    }

    private static func copy(from buffer: OpaquePointer, at offset: Int, into bytes: inout [UInt8]) -> Bool {
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(buffer, &position, offset, EVBUFFER_PTR_SET) == 0 else { return false }
        let wanted = bytes.count
        let copied = bytes.withUnsafeMutableBytes { storage in
            evbuffer_copyout_from(buffer, &position, storage.baseAddress, wanted)
        }
        guard copied >= 0 else { return false }
        if copied < wanted { bytes.removeLast(wanted - copied) }
        return true
    }
}
