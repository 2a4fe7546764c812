import CLibevent
import Glibc
import OrreryCore

/// One request to an upstream, from DNS to the last byte of the response, handed on to its receiver as it arrives:
/// the head, then the body a read at a time, never held whole. Its life is an `UpstreamExchangeState`; this class
/// carries out what the state says (resolve, send, arm the deadline, pause reading, recycle the connection).
///
/// libevent gets unretained pointers; the exchange holds itself (a retain taken at start, given back when it
/// finishes) until it has answered or been cancelled.
public final class UpstreamExchange {
    private unowned let client: UpstreamClient
    private let request: UpstreamRequest
    private var receiver: (any UpstreamReceiver)?
    private let key: String
    private var state = UpstreamExchangeState()
    private var connection: UpstreamConnection?
    private var parser: HTTP1Parser
    /// The connect deadline, while there is no connection to keep a timer (the silence deadline is the
    /// connection's own timer, re-armed on each read).
    private var connectDeadline: OneShotTimer?
    /// The request waits for a new TLS connection's handshake: ALPN tells then whether it goes as HTTP/2.
    private var isWaitingForHandshake = false
    /// Fields the upstream sent after the body (HTTP/2 trailers: gRPC's `grpc-status`), once the answer is complete.
    public private(set) var trailers: HTTPHeaders?

    init(client: UpstreamClient, request: UpstreamRequest, key: String, receiver: any UpstreamReceiver) {
        self.client = client
        self.request = request
        self.receiver = receiver
        self.key = key
        parser = Self.parser(for: request)
    }

    private static func parser(for request: UpstreamRequest) -> HTTP1Parser {
        var parser = HTTP1Parser(requestMethod: request.method)
        parser.streamsBody = true
        return parser
    }

    func start() {
        _ = Unmanaged.passRetained(self)
        let pooled = client.takeIdleConnection(for: key)
        switch state.start(hasPooledConnection: pooled != nil) {
        case .send:
            if let pooled { send(on: pooled) }
        case .resolve:
            resolveAndSend()
        default:
            break
        }
        syncDeadline()
    }

    // MARK: - Back-pressure and cancelling

    /// Stops reading the upstream until `resumeReading` (the client has too much unread).
    public func pauseReading() {
        guard state.pause() == .stopReading else { return }
        connection?.setReading(false)
        syncDeadline()
    }

    public func resumeReading() {
        guard state.resume() == .startReading else { return }
        connection?.setReading(true)
        syncDeadline()
    }

    /// The client went away: drops the connection; the receiver hears nothing more.
    public func cancel() {
        guard state.cancel() == .abandon else { return }
        dropConnection()
        finish()
    }

    // MARK: - Connecting and sending

    private func resolveAndSend() {
        let upstream = request.upstream
        client.resolve(upstream.host, port: upstream.port) { [self] result in
            guard state.stage == .resolving else { return }
            switch result {
            case .failure(let failure):
                fail(UpstreamFailure(.hostNotFound, "\(upstream.host): \(failure.message)"))
            case .success(let address):
                guard let connection = client.makeConnection(key: key, upstream: upstream, address: address) else {
                    fail(UpstreamFailure(.hostConnectionError, "cannot set up a connection to \(upstream.origin)"))
                    return
                }
                state.connecting()
                send(on: connection)
                syncDeadline()
            }
        }
    }

    private func send(on connection: UpstreamConnection) {
        self.connection = connection
        connection.exchange = self
        connection.setReading(true)
        if let http2 = connection.http2 {
            guard http2.submit(request) else {
                fail(
                    UpstreamFailure(
                        .hostConnectionError, "cannot send the request to \(request.upstream.origin) over HTTP/2"))
                return
            }
            return
        }
        if connection.isTLS, !connection.isConnected {
            isWaitingForHandshake = true
            return
        }
        // A fresh parser for a second attempt; the first uses the one made with the exchange.
        if state.hasRetried { parser = Self.parser(for: request) }
        guard Self.withHead(of: request, { connection.write(head: $0, body: request.body) }) else {
            fail(UpstreamFailure(.hostConnectionError, "cannot send the request to \(request.upstream.origin)"))
            return
        }
    }

    /// The request line, the headers (Host first, as the proxy put it) and the body's length, lent for the call.
    static func withHead(of request: UpstreamRequest, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        if let forwarded = request.forwarded {
            return forwarded.withRequestHead(
                method: request.method, target: request.target, bodyLength: request.body.count, body)
        }
        return HTTP1Encoder.requestHead(
            method: request.method, target: request.target, headers: request.headers, bodyLength: request.body.count
        ).withUnsafeBytes(body)
    }

    /// Arms the deadline the state wants: the connect timeout once (it covers the name lookup too), the silence
    /// timeout afresh on each call (each read moves it on).
    private func syncDeadline() {
        switch state.deadline {
        case .connect?:
            guard connectDeadline == nil else { return }
            let timeout = client.configuration.connectTimeoutMilliseconds
            connectDeadline = OneShotTimer(loop: client.loop, afterMilliseconds: timeout) { [weak self] in
                self?.deadlinePassed()
            }
        case .silence?:
            connectDeadline = nil
            connection?.armDeadline(milliseconds: client.configuration.responseTimeoutMilliseconds)
        case nil:
            connectDeadline = nil
            connection?.disarmDeadline()
        }
    }

    func deadlinePassed() {
        let stage = state.stage
        guard case .fail(let timedOut?) = state.deadlinePassed() else { return }
        let origin = request.upstream.origin
        let message: String
        switch (timedOut, stage) {
        case (.connect, .resolving):
            message = "could not resolve and connect to \(origin) within \(client.configuration.connectTimeoutMilliseconds) ms"
        case (.connect, _):
            message = "could not connect to \(origin) within \(client.configuration.connectTimeoutMilliseconds) ms"
        case (.silence, .awaitingHead):
            message = "no response from \(origin) within \(client.configuration.responseTimeoutMilliseconds) ms"
        case (.silence, _):
            message = "\(origin) sent nothing more of its response for \(client.configuration.responseTimeoutMilliseconds) ms"
        }
        dropConnection()
        report(UpstreamFailure(.timeout, message))
    }

    // MARK: - Connection callbacks

    func connected() {
        state.connected()
        syncDeadline()
        if isWaitingForHandshake, let connection, !state.isDone {
            isWaitingForHandshake = false
            guard !connection.isClosed else {
                fail(UpstreamFailure(.hostConnectionError, "cannot speak HTTP/2 with \(request.upstream.origin)"))
                return
            }
            send(on: connection)
        }
    }

    // MARK: - HTTP/2

    /// The answer's head came on the request's stream (from inside nghttp2: nothing is sent from here).
    func receivedHTTP2Head(from session: UpstreamHTTP2Session, endsStream: Bool) {
        guard !state.isDone, state.headReceived() == .deliverHead else { return }
        let hasBody = !endsStream && request.method != "HEAD" && HTTP1Encoder.allowsBody(status: session.status)
        let head = UpstreamResponseHead(
            status: session.status, reason: HTTPStatusCode.reasonPhrase(for: session.status), headers: session.headers,
            contentLength: hasBody ? session.headers["content-length"].flatMap { Int($0) } : nil, hasBody: hasBody)
        receiver?.upstream(self, receivedHead: head)
    }

    func receivedHTTP2Body(_ bytes: UnsafeRawBufferPointer) {
        guard !state.isDone, state.hasDeliveredHead else { return }
        receiver?.upstream(self, receivedBody: bytes)
    }

    /// A read on an HTTP/2 connection was handed to its session: the answer is complete, its stream was reset,
    /// the session failed, or more is to come.
    func progressedHTTP2(_ connection: UpstreamConnection, isFine: Bool) {
        guard !state.isDone, connection === self.connection, let http2 = connection.http2 else { return }
        let origin = request.upstream.origin
        if http2.isComplete {
            trailers = http2.trailers
            completed(connection)
        } else if let code = http2.resetCode {
            var name = UpstreamHTTP2Session.name(ofErrorCode: code)
            if let goaway = http2.goawayCode {
                name += " after GOAWAY \(UpstreamHTTP2Session.name(ofErrorCode: goaway))"
            }
            fail(
                state.hasDeliveredHead
                    ? UpstreamFailure(
                        .connectionReset, "\(origin) reset the stream in the middle of its response (\(name))")
                    : UpstreamFailure(.hostConnectionError, "\(origin) reset the stream without answering (\(name))"))
        } else if !isFine {
            let reason = http2.failure ?? "the connection failed"
            fail(
                UpstreamFailure(
                    state.hasDeliveredHead ? .connectionReset : .hostConnectionError, "\(origin) over HTTP/2: \(reason)"
                ))
        } else {
            syncDeadline()
            if state.hasDeliveredHead { receiver?.upstreamPaused(self) }
        }
    }

    func readable(_ connection: UpstreamConnection) {
        guard !state.isDone, connection === self.connection else { return }
        do {
            // The parser is taken once for the whole read, not at each step: every access to a class's stored
            // property is checked for exclusivity, and a read takes a dozen steps.
            try connection.read { bytes throws(HTTP1ParseError) in try Self.consume(bytes, parser: &parser, exchange: self) }
        } catch {
            let kind: UpstreamFailure.Kind = parser.sawStartLine ? .connectionReset : .hostConnectionError
            fail(UpstreamFailure(kind, "\(request.upstream.origin) sent \(error)"))
            return
        }
        guard !state.isDone else { return }
        if parser.isComplete {
            completed(connection)
            return
        }
        syncDeadline()
        if state.hasDeliveredHead { receiver?.upstreamPaused(self) }
    }

    /// Parses what arrived, handing on the head and each piece of the body; returns how much it used.
    private static func consume(
        _ bytes: UnsafeRawBufferPointer, parser: inout HTTP1Parser, exchange: UpstreamExchange
    ) throws(HTTP1ParseError) -> Int {
        var used = 0
        while used < bytes.count, !parser.isComplete, !exchange.state.isDone {
            let count = try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[used...]))
            if parser.hasHead, !exchange.state.hasDeliveredHead, exchange.state.headReceived() == .deliverHead {
                let head = UpstreamResponseHead(
                    status: parser.status,
                    reason: parser.reason.isEmpty ? HTTPStatusCode.reasonPhrase(for: parser.status) : parser.reason,
                    headers: parser.takeHeaders(), contentLength: parser.isChunked ? nil : parser.contentLength,
                    hasBody: !(parser.isComplete && parser.contentLength == nil && !parser.isChunked))
                exchange.receiver?.upstream(exchange, receivedHead: head)
            }
            if let piece = parser.bodyPiece, !piece.isEmpty, let receiver = exchange.receiver {
                receiver.upstream(exchange, receivedBody: UnsafeRawBufferPointer(rebasing: bytes[(used + piece.lowerBound)..<(used + piece.upperBound)]))
            }
            if count == 0 { break }
            used += count
        }
        return used
    }

    /// The connection ended (`errorCode`: errno when it failed rather than closed).
    func ended(_ connection: UpstreamConnection, failed: Bool, errorCode: Int32) {
        guard !state.isDone, connection === self.connection else { return }
        let isHTTP2 = connection.http2 != nil
        if !isHTTP2, !failed, state.hasDeliveredHead, (try? parser.finishAtEndOfInput()) != nil {
            completed(connection)
            return
        }
        switch state.connectionEnded(sawAnswer: isHTTP2 ? state.hasDeliveredHead : parser.sawStartLine) {
        case .retry:
            // A pooled connection the upstream had already closed: once more on a new one.
            dropConnection()
            resolveAndSend()
            syncDeadline()
        case .fail:
            let failure = classify(connection, errorCode: failed ? errorCode : 0)
            dropConnection()
            report(failure)
        default:
            break
        }
    }

    private func completed(_ connection: UpstreamConnection) {
        let http2 = connection.http2
        let closes = http2.map { !$0.isReusable } ?? parser.closesConnection
        guard case .finish(let reuse) = state.messageComplete(closesConnection: closes) else { return }
        connection.disarmDeadline()
        connection.exchange = nil
        self.connection = nil
        // An HTTP/2 connection may have frames of its own under way (WINDOW_UPDATE): the session keeps it in step.
        if !reuse || (http2 == nil && (connection.hasUnreadInput || connection.hasUnsentOutput)) {
            client.discard(connection)
        } else {
            client.recycle(connection)
        }
        receiver?.upstreamFinished(self)
        finish()
    }

    private func classify(_ connection: UpstreamConnection, errorCode: Int32) -> UpstreamFailure {
        let origin = request.upstream.origin
        if let tls = connection.tlsError {
            return UpstreamFailure(.tlsError, "TLS with \(origin) failed: \(tls)")
        }
        if connection.http2 == nil ? parser.sawStartLine : state.hasDeliveredHead {
            return UpstreamFailure(.connectionReset, "\(origin) closed the connection in the middle of its response")
        }
        if errorCode != 0 {
            return UpstreamFailure(.hostConnectionError, "\(origin): \(String(cString: strerror(errorCode)))")
        }
        return UpstreamFailure(.hostConnectionError, "\(origin) refused the connection or closed it without answering")
    }

    private func fail(_ failure: UpstreamFailure) {
        guard case .fail = state.failed() else { return }
        dropConnection()
        report(failure)
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

    private func report(_ failure: UpstreamFailure) {
        receiver?.upstream(self, failed: failure)
        finish()
    }

    private func finish() {
        guard receiver != nil else { return }
        receiver = nil
        connectDeadline = nil
        Unmanaged.passUnretained(self).release()
    }
}

/// Collects a whole answer for `UpstreamClient.send(_:completion:)`: for callers that want the body in one piece
/// (the command line's fetches), not for the proxy.
final class CollectingReceiver: UpstreamReceiver {
    private let completion: (Result<UpstreamResponse, UpstreamFailure>) -> Void
    private var head: UpstreamResponseHead?
    private var body: [UInt8] = []

    init(_ completion: @escaping (Result<UpstreamResponse, UpstreamFailure>) -> Void) {
        self.completion = completion
    }

    func upstream(_ exchange: UpstreamExchange, receivedHead head: consuming UpstreamResponseHead) {
        self.head = head
    }

    func upstream(_ exchange: UpstreamExchange, receivedBody bytes: UnsafeRawBufferPointer) {
        body.append(contentsOf: bytes)
    }

    func upstreamPaused(_ exchange: UpstreamExchange) {}

    func upstreamFinished(_ exchange: UpstreamExchange) {
        guard let head else { return }
        completion(.success(UpstreamResponse(status: head.status, reason: head.reason, headers: head.headers, body: Payload(body))))
    }

    func upstream(_ exchange: UpstreamExchange, failed failure: UpstreamFailure) {
        completion(.failure(failure))
    }
}
