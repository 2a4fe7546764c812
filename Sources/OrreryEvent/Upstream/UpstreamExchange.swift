import CLibevent
import Glibc
import OrreryCore

/// One request to an upstream, from DNS to the last byte of the response: the state its connection's callbacks
/// share.
///
/// libevent gets unretained pointers; the exchange holds itself (a retain taken at start, given back when it
/// finishes) until it has answered.
final class UpstreamExchange {
    private unowned let client: UpstreamClient
    private let request: UpstreamRequest
    private let completion: (Result<UpstreamResponse, UpstreamFailure>) -> Void
    private let key: String
    private var connection: UpstreamConnection?
    private var parser: HTTP1Parser
    private var isFinished = false
    private var isOnReusedConnection = false
    private var hasRetried = false
    /// The whole response's deadline, and the connect's while a new connection is being made.
    private var responseDeadline: OneShotTimer?
    private var connectDeadline: OneShotTimer?

    init(
        client: UpstreamClient, request: UpstreamRequest, key: String,
        completion: @escaping (Result<UpstreamResponse, UpstreamFailure>) -> Void
    ) {
        self.client = client
        self.request = request
        self.completion = completion
        self.key = key
        parser = HTTP1Parser(requestMethod: request.method)
    }

    func start() {
        _ = Unmanaged.passRetained(self)
        if let pooled = client.takeIdleConnection(for: key) {
            isOnReusedConnection = true
            // The usual case: the connection's own timer keeps the deadline.
            pooled.armDeadline(milliseconds: client.configuration.responseTimeoutMilliseconds)
            send(on: pooled)
        } else {
            startResponseDeadline()
            connectAndSend()
        }
    }

    /// The deadline on a timer of its own: it covers the name lookup and the connect too, before there is a
    /// connection to keep it.
    private func startResponseDeadline() {
        responseDeadline = OneShotTimer(loop: client.loop, afterMilliseconds: client.configuration.responseTimeoutMilliseconds) {
            [weak self] in self?.responseTimedOut()
        }
    }

    func responseTimedOut() {
        guard !isFinished else { return }
        dropConnection()
        finish(.failure(UpstreamFailure(.timeout, "no complete response within \(client.configuration.responseTimeoutMilliseconds) ms")))
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
            guard let self, let connection, !self.isFinished, self.connection === connection, !connection.isConnected
            else { return }
            self.dropConnection()
            self.finish(.failure(UpstreamFailure(.timeout, "could not connect to \(self.request.upstream.origin) within \(timeout) ms")))
        }
    }

    private func send(on connection: UpstreamConnection) {
        self.connection = connection
        connection.exchange = self
        parser = HTTP1Parser(requestMethod: request.method)
        guard connection.write(head: Self.head(of: request), body: request.body) else {
            dropConnection()
            finish(.failure(UpstreamFailure(.hostConnectionError, "cannot send the request to \(request.upstream.origin)")))
            return
        }
    }

    /// The request line, the headers (Host first, as the proxy put it) and the body's length.
    static func head(of request: UpstreamRequest) -> [UInt8] {
        HTTP1Encoder.requestHead(
            method: request.method, target: request.target, headers: request.headers, bodyLength: request.body.count)
    }

    // MARK: - Connection callbacks

    func connected() {
        connectDeadline = nil
    }

    func readable(_ connection: UpstreamConnection) {
        guard !isFinished, connection === self.connection else { return }
        do {
            try connection.read(into: &parser)
        } catch {
            dropConnection()
            let kind: UpstreamFailure.Kind = parser.sawStartLine ? .connectionReset : .hostConnectionError
            finish(.failure(UpstreamFailure(kind, "\(request.upstream.origin) sent \(error)")))
            return
        }
        if parser.isComplete { completed(connection) }
    }

    /// The connection ended (`errorCode`: errno when it failed rather than closed).
    func ended(_ connection: UpstreamConnection, failed: Bool, errorCode: Int32) {
        guard !isFinished, connection === self.connection else { return }
        if !failed, (try? parser.finishAtEndOfInput()) != nil {
            completed(connection)
            return
        }
        dropConnection()
        // A pooled connection the upstream had already closed fails before any answer: try once on a new one.
        if isOnReusedConnection && !parser.sawStartLine && !hasRetried {
            hasRetried = true
            isOnReusedConnection = false
            // The pooled connection's timer went with it.
            startResponseDeadline()
            connectAndSend()
            return
        }
        finish(.failure(classify(connection, errorCode: failed ? errorCode : 0)))
    }

    private func completed(_ connection: UpstreamConnection) {
        connection.disarmDeadline()
        connection.exchange = nil
        self.connection = nil
        if parser.closesConnection || connection.hasUnreadInput || connection.hasUnsentOutput {
            client.discard(connection)
        } else {
            client.recycle(connection)
        }
        finish(
            .success(
                UpstreamResponse(
                    status: parser.status, reason: parser.reason.isEmpty ? HTTPStatusCode.reasonPhrase(for: parser.status) : parser.reason,
                    headers: parser.headers, body: Payload(parser.takeBody()))))
    }

    private func classify(_ connection: UpstreamConnection, errorCode: Int32) -> UpstreamFailure {
        let origin = request.upstream.origin
        if let tls = connection.tlsError {
            return UpstreamFailure(.tlsError, "TLS with \(origin) failed: \(tls)")
        }
        if parser.sawStartLine {
            return UpstreamFailure(.connectionReset, "\(origin) closed the connection in the middle of its response")
        }
        if errorCode != 0 {
            return UpstreamFailure(.hostConnectionError, "\(origin): \(String(cString: strerror(errorCode)))")
        }
        return UpstreamFailure(.hostConnectionError, "\(origin) refused the connection or closed it without answering")
    }

    /// Gives up on the connection: it may hold half a response.
    private func dropConnection() {
        if let connection {
            connection.disarmDeadline()
            connection.exchange = nil
            client.discard(connection)
        }
        connection = nil
    }

    private func finish(_ result: Result<UpstreamResponse, UpstreamFailure>) {
        guard !isFinished else { return }
        isFinished = true
        responseDeadline = nil
        connectDeadline = nil
        completion(result)
        Unmanaged.passUnretained(self).release()
    }
}
