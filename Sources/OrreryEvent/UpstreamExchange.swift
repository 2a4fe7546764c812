import CLibevent
import Glibc
import OrreryCore

/// One request to an upstream, from DNS to the last byte of the response: the state libevent's callbacks share.
///
/// libevent gets an unretained pointer; the client's `active` table keeps the exchange alive until libevent can no
/// longer call back (its done callback ran, or the request was cancelled).
final class UpstreamExchange {
    private unowned let client: UpstreamClient
    private let request: UpstreamRequest
    private let command: evhttp_cmd_type
    private let completion: (Result<UpstreamResponse, UpstreamFailure>) -> Void
    private let key: String
    private var connection: UpstreamConnection?
    private var inFlight: OpaquePointer?
    private var error: evhttp_request_error?
    private var sawResponseHead = false
    private var isFinished = false
    private var isOnReusedConnection = false
    private var hasRetried = false
    /// The whole response's deadline, and the connect's while a new connection is being made.
    private var responseDeadline: OneShotTimer?
    private var connectDeadline: OneShotTimer?

    init(
        client: UpstreamClient, request: UpstreamRequest, command: evhttp_cmd_type,
        completion: @escaping (Result<UpstreamResponse, UpstreamFailure>) -> Void
    ) {
        self.client = client
        self.request = request
        self.command = command
        self.completion = completion
        key = "\(request.upstream.scheme)://\(request.upstream.host):\(request.upstream.port)"
    }

    func start() {
        client.active[ObjectIdentifier(self)] = self
        responseDeadline = OneShotTimer(loop: client.loop, afterMilliseconds: client.configuration.responseTimeoutMilliseconds) {
            [weak self] in
            guard let self, !self.isFinished else { return }
            self.cancelInFlight()
            self.finish(.failure(UpstreamFailure(.timeout, "no complete response within \(self.client.configuration.responseTimeoutMilliseconds) ms")))
        }
        if let pooled = client.takeIdleConnection(for: key) {
            isOnReusedConnection = true
            send(on: pooled)
        } else {
            connectAndSend()
        }
    }

    private func connectAndSend() {
        let upstream = request.upstream
        client.resolve(upstream.host, port: upstream.port) { [self] result in
            guard !isFinished else { return }
            switch result {
            case .failure(let failure):
                finish(.failure(UpstreamFailure(.hostNotFound, "\(upstream.host): \(failure.message)")))
            case .success(let address):
                guard let connection = client.makeConnection(key: key, upstream: upstream, address: address) else {
                    finish(.failure(UpstreamFailure(.hostConnectionError, "cannot set up a connection to \(upstream.origin)")))
                    return
                }
                send(on: connection)
                watchConnect(connection)
            }
        }
    }

    /// A connect that hangs (a dropped SYN) is given up after the connect timeout, not the response timeout.
    private func watchConnect(_ connection: UpstreamConnection) {
        let timeout = client.configuration.connectTimeoutMilliseconds
        connectDeadline = OneShotTimer(loop: client.loop, afterMilliseconds: timeout) { [weak self, weak connection] in
            guard let self, let connection, !self.isFinished, self.connection === connection, !self.sawResponseHead,
                !connection.isConnected
            else { return }
            self.cancelInFlight()
            self.finish(.failure(UpstreamFailure(.timeout, "could not connect to \(self.request.upstream.origin) within \(timeout) ms")))
        }
    }

    private func send(on connection: UpstreamConnection) {
        self.connection = connection
        error = nil
        sawResponseHead = false
        guard let evConnection = connection.connection,
            let evRequest = evhttp_request_new(Trampolines.upstreamDone, Unmanaged.passUnretained(self).toOpaque())
        else {
            finish(.failure(UpstreamFailure(.hostConnectionError, "cannot create a request for \(request.upstream.origin)")))
            return
        }
        evhttp_request_set_error_cb(evRequest, Trampolines.upstreamError)
        evhttp_request_set_header_cb(evRequest, Trampolines.upstreamHeader)
        if let headers = evhttp_request_get_output_headers(evRequest) {
            for (name, value) in request.headers.entries { evhttp_add_header(headers, name, value) }
        }
        if !request.body.isEmpty, let buffer = evhttp_request_get_output_buffer(evRequest) {
            request.body.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        }
        inFlight = evRequest
        if evhttp_make_request(evConnection, evRequest, command, request.target) != 0 {
            // libevent has already freed the request.
            inFlight = nil
            client.discard(connection)
            finish(.failure(UpstreamFailure(.hostConnectionError, "cannot send the request to \(request.upstream.origin)")))
        }
    }

    // MARK: - libevent callbacks

    func errorOccurred(_ error: evhttp_request_error) {
        self.error = error
    }

    func headReceived() {
        sawResponseHead = true
    }

    func done(_ evRequest: OpaquePointer?) {
        inFlight = nil
        guard !isFinished, let connection else { return }
        if let evRequest, error == nil, evhttp_request_get_response_code(evRequest) != 0 {
            let response = Self.copyResponse(evRequest)
            if response.headers["Connection"]?.lowercased().contains("close") == true || connection.isClosed {
                client.discard(connection)
            } else {
                client.recycle(connection)
            }
            finish(.success(response))
            return
        }
        client.discard(connection)
        // A pooled connection the upstream had already closed fails before any answer: try once on a new one.
        if isOnReusedConnection && !sawResponseHead && !hasRetried && error != EVREQ_HTTP_TIMEOUT {
            hasRetried = true
            isOnReusedConnection = false
            connectAndSend()
            return
        }
        finish(.failure(classify(connection)))
    }

    private func classify(_ connection: UpstreamConnection) -> UpstreamFailure {
        let origin = request.upstream.origin
        if error == EVREQ_HTTP_TIMEOUT {
            return UpstreamFailure(.timeout, "\(origin) did not answer within \(client.configuration.responseTimeoutMilliseconds) ms")
        }
        if let tls = connection.tlsError {
            return UpstreamFailure(.tlsError, "TLS with \(origin) failed: \(tls)")
        }
        if sawResponseHead {
            return UpstreamFailure(.connectionReset, "\(origin) closed the connection in the middle of its response")
        }
        return UpstreamFailure(.hostConnectionError, "\(origin) refused the connection or closed it without answering")
    }

    private func cancelInFlight() {
        if let inFlight {
            evhttp_cancel_request(inFlight)
            self.inFlight = nil
        }
        if let connection { client.discard(connection) }
    }

    private func finish(_ result: Result<UpstreamResponse, UpstreamFailure>) {
        guard !isFinished else { return }
        isFinished = true
        responseDeadline = nil
        connectDeadline = nil
        completion(result)
        // Kept alive until libevent cannot call back any more: now, unless a request is still in its hands.
        if inFlight == nil { client.active[ObjectIdentifier(self)] = nil }
    }

    private static func copyResponse(_ evRequest: OpaquePointer) -> UpstreamResponse {
        let headers = EvhttpValues.headers(evhttp_request_get_input_headers(evRequest)).headers
        let body = EvhttpValues.payload(evhttp_request_get_input_buffer(evRequest))
        let code = Int(evhttp_request_get_response_code(evRequest))
        let reason = evhttp_request_get_response_code_line(evRequest).map { String(cString: $0) }
        return UpstreamResponse(
            status: code, reason: reason ?? HTTPStatusCode.reasonPhrase(for: code), headers: headers, body: body)
    }
}
