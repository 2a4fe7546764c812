import CLibevent
import Glibc
import OrreryCore

/// One client connection: it feeds what the socket delivers to its `HTTP1ConnectionStateMachine` and carries out
/// what the machine says (hand a request to the handler, write, pause, close). All HTTP/1 decisions are the
/// machine's; this class only moves bytes and keeps the deadline.
///
/// A plain connection reads with one `recv()` per wakeup into its loop's scratch buffer and writes answers with one
/// `writev()` straight to the socket; only what the socket does not take goes to its bufferevent, which writes it
/// as the socket drains. (The bufferevent's own reading would ask the socket for its size first, an ioctl, and
/// copy through a chain allocated for the purpose; its writing would register the socket for writability and
/// unregister it again, two epoll_ctl calls for every answer.)
///
/// A TLS connection (the TLS port, or a tunnel whose `CONNECT` Orrery intercepts) reads and writes through an
/// OpenSSL bufferevent instead: over the socket, or as a filter over the plain bufferevent (see
/// `ServerConnection+TLS.swift`). Over the socket, once the handshake is done, it reads for itself with
/// `SSL_read` into the scratch buffer, and an answer of up to one record goes out with one `SSL_write` of its own
/// when nothing waits in that bufferevent. The machine and everything above it are the same.
final class ServerConnection {
    unowned let worker: ServerWorker
    let fd: Int32
    /// The listener's tag: which port the connection came through.
    let tag: Int
    /// The socket's plain bufferevent: what the socket does not take goes through it. Beneath a TLS filter it
    /// belongs to the filter (which frees it).
    var bufferevent: OpaquePointer?
    /// The OpenSSL bufferevent of a TLS connection, which everything is read from and written to.
    var tls: OpaquePointer?
    /// The TLS handshake is under way (its deadline is the header timeout's).
    var isHandshaking = false
    /// The connection closes once its output has drained (close_notify goes out when the answer is encrypted).
    var isClosingTLS = false
    /// close_notify has been handed to OpenSSL.
    var isTLSShutDown = false
    /// A TLS connection that reads for itself (`readTLSForItself`, when it has a `readEvent`) read the end of the
    /// client's input.
    var isTLSInputEnded = false
    /// For a tunnel Orrery intercepts: the host and port its client asked for.
    var intercepted: InterceptedOrigin?
    var readEvent: OpaquePointer?
    var timer: OpaquePointer?
    var machine: HTTP1ConnectionStateMachine
    var output = OutputQueue()
    /// Until the first bytes tell: an HTTP/2 connection opens with the preface, an HTTP/1 one with a request.
    var preface: HTTP2Preface? = HTTP2Preface()
    /// HTTP/2, once the preface or an `Upgrade: h2c` chose it: it takes every byte read from then on.
    var http2: HTTP2Connection?

    /// The request being answered said `TE: trailers`: an answer with trailers goes out chunked, with them.
    private(set) var acceptsTrailers = false
    /// The number of the request being answered on this connection; an answer for another is stale.
    var requestNumber = 0
    var isAnswered = true
    private var context = ResponseContext()
    /// True while the handler runs: an answer given meanwhile is taken up when it returns, not recursively.
    private var isDispatching = false
    private var answerWhileDispatching: Bool?
    var isReadingEnabled = false
    /// The timeout armed, and when it is due (by the loop's clock, in milliseconds); a timer that fires early
    /// (activity moved the deadline) waits again for the rest.
    var armedTimeout: HTTP1ConnectionStateMachine.Timeout?
    private var isLingering = false
    /// An HTTP/2 connection over TLS has shut its write side after close_notify and drops what still comes.
    var isTLSLingering = false
    var deadline = 0
    /// When the timer, if pending, fires (by the loop's clock): nil while it is not pending.
    private var timerFiresAt: Int?
    var isClosed = false
    /// The answer being streamed, if the current one is.
    private var stream: ResponseStream? {
        didSet { if !isClosed, (stream == nil) != (oldValue == nil) { isStreamClientSending = false; updateReading() } }
    }
    /// The client sent bytes while its answer streams: they wait in the socket for after the stream, and the
    /// socket is no longer watched for its close.
    private var isStreamClientSending = false
    /// A request that is never to be answered (`ConnectionFault.hold`): the connection closes with the client.
    private var isHeld = false
    /// An answer going out at a bandwidth limit: its bytes, how far it has gone, and whether it closes.
    private var throttled: (bytes: [UInt8], sent: Int, bytesPerTick: Int, closes: Bool)?
    private var closeObservers: [() -> Void] = []
    private lazy var peerAddress: String = Sockets.peerAddress(of: fd)

    /// Answers a backlog this large waits for before the next pipelined request is read.
    private static let backlogBytes = 256 * 1024

    /// A connection on the TLS port: `tlsEndpoint` gives the session its certificates.
    init?(worker: ServerWorker, fd: Int32, tag: Int, tlsEndpoint: TLSEndpoint) {
        self.worker = worker
        self.fd = fd
        self.tag = tag
        machine = HTTP1ConnectionStateMachine(configuration: worker.machineConfiguration)
        let context = Unmanaged.passUnretained(self).toOpaque()
        timer = event_new(worker.loop.base, -1, 0, Trampolines.serverTimer, context)
        guard timer != nil,
            startTLS(over: nil, session: { () throws(EventError) in
                try tlsEndpoint.context.makeServerSession(defaultCertificate: tlsEndpoint.certificate)
            })
        else {
            if tls == nil { Glibc.close(fd) }
            free()
            return nil
        }
    }

    init?(worker: ServerWorker, fd: Int32, tag: Int) {
        self.worker = worker
        self.fd = fd
        self.tag = tag
        machine = HTTP1ConnectionStateMachine(configuration: worker.machineConfiguration)
        let base = worker.loop.base
        guard let bufferevent = bufferevent_socket_new(base, fd, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            Glibc.close(fd)
            return nil
        }
        self.bufferevent = bufferevent
        let context = Unmanaged.passUnretained(self).toOpaque()
        bufferevent_setcb(bufferevent, nil, Trampolines.serverOutputDrained, Trampolines.serverConnectionEvent, context)
        readEvent = event_new(base, fd, Int16(EV_READ | EV_PERSIST), Trampolines.serverReadable, context)
        timer = event_new(base, -1, 0, Trampolines.serverTimer, context)
        guard readEvent != nil, timer != nil else {
            free()
            return nil
        }
        updateReading()
        updateTimer()
    }

    var remoteAddress: String { peerAddress }

    // MARK: - Input

    /// The socket is readable: one recv(), handed to the machine.
    func readable() {
        guard !isClosed else { return }
        if isWatchingStreamClient {
            watchStreamClient()
            return
        }
        let scratch = worker.scratch
        let count = recv(fd, scratch.baseAddress, scratch.count, Int32(MSG_DONTWAIT))
        if count > 0 {
            if isLingering { return }
            noteActivity()
            received(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        } else if count == 0 {
            if isLingering || isHeld || http2 != nil {
                close()
                return
            }
            if let held = preface?.receivedEnd() {
                preface = nil
                if !held.isEmpty { held.withUnsafeBytes { process(machine.received($0)) } }
                guard !isClosed else { return }
            }
            process(machine.receivedEnd())
        } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
            close()
            return
        }
        flush()
    }

    /// Hands what the client sent to HTTP/2 or to the HTTP/1 machine; the first bytes decide which.
    func received(_ bytes: UnsafeRawBufferPointer) {
        if let http2 {
            http2.received(bytes)
            return
        }
        guard preface != nil else {
            process(machine.received(bytes))
            return
        }
        switch preface?.received(bytes) {
        case .http2(let held)?:
            preface = nil
            startHTTP2(upgrade: nil, received: held)
        case .http1(let held)?:
            preface = nil
            held.withUnsafeBytes { process(machine.received($0)) }
        case .undecided?, nil:
            break
        }
    }

    /// Speaks HTTP/2 from now on: after the preface, or after answering `Upgrade: h2c` with 101.
    func startHTTP2(upgrade: HTTP2Upgrade?, received: [UInt8]) {
        guard let http2 = HTTP2Connection(connection: self, upgrade: upgrade) else {
            close()
            return
        }
        self.http2 = http2
        armedTimeout = .idle
        arm(milliseconds: worker.configuration.idleTimeoutMilliseconds)
        if received.isEmpty {
            http2.send()
        } else {
            received.withUnsafeBytes { http2.received($0) }
        }
        updateReading()
    }

    /// Whether the socket is read only to notice that the client of a streamed answer left.
    private var isWatchingStreamClient: Bool {
        stream != nil && !isStreamClientSending && !machine.isReading && !isLingering && tls == nil
    }

    /// While an answer streams, a peek notices a client that leaves (a dashboard viewer closing its tab) at once,
    /// instead of at the next write that fails; what the client sends meanwhile stays unread for after the stream.
    private func watchStreamClient() {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            close()
        } else if count > 0 {
            isStreamClientSending = true
            updateReading()
        }
    }

    /// Carries out the machine's actions until it waits for something.
    // consuming: every caller hands over a fresh action; borrowed, it was copied into `action` (a dispatched
    // request's every field retained, then released).
    func process(_ first: consuming HTTP1ConnectionStateMachine.Action) {
        var action = first
        while !isClosed {
            // Consumed, so that a dispatched request is moved to the handler rather than copied out of the action.
            switch consume action {
            case .readMore, .pauseReading:
                updateReading()
                updateTimer()
                return
            case .dispatch(let request, let context):
                action = dispatch(request, context)
            case .sendContinue:
                output.append(Payload(HTTP1Encoder.continueResponse))
                action = machine.next()
            case .reject(let error):
                worker.counters.rejected(status: error.status.code)
                output.append(EncodedResponse(error, closing: true).head)
                output.append(worker.tails.tail(hasOwnDate: false, connection: .close))
                output.append(Payload(error.body))
                closeOnceWritten()
                return
            case .close:
                closeOnceWritten()
                return
            }
        }
    }

    private func dispatch(_ request: consuming HTTPRequest, _ context: ResponseContext)
        -> HTTP1ConnectionStateMachine.Action
    {
        if requestNumber == 0, tls == nil, worker.configuration.http2MaxStreams > 0, let upgrade = HTTP2Upgrade(request)
        {
            // Upgrade: h2c on the first request. The 101 goes first, then HTTP/2 answers the request on stream 1.
            output.append(HTTP2Upgrade.switchingProtocols)
            requestNumber = 1
            startHTTP2(upgrade: upgrade, received: machine.takeOver())
            return .readMore
        }
        requestNumber &+= 1
        isAnswered = false
        acceptsTrailers =
            request.headers.first(named: "TE").map { HTTP2Upgrade.list($0, contains: "trailers") } ?? false
        self.context = context
        isDispatching = true
        worker.handler.handle(request, responder: Responder(connection: self, number: requestNumber, context: context))
        isDispatching = false
        guard let closes = answerWhileDispatching else { return .readMore }
        answerWhileDispatching = nil
        return machine.responseQueued(closesConnection: closes, isBacklogged: isBacklogged())
    }

    // MARK: - Output

    /// Queues the answer to request `number`: ignored when it is stale, a second answer, or the client is gone.
    func send(_ response: EncodedResponse, number: Int) {
        guard !isClosed, number == requestNumber, !isAnswered else { return }
        isAnswered = true
        let closes = response.closesConnection
        let field: HTTP1Encoder.ConnectionField =
            machine.closesAfterResponse(closesConnection: closes) ? .close : (context.minorVersion == 0 ? .keepAlive : .none)
        if let trailers = response.trailers, acceptsTrailers, context.minorVersion == 1 {
            sendChunked(response, trailers: trailers, field: field)
            return
        }
        output.append(response.head)
        output.append(worker.tails.tail(hasOwnDate: response.hasDate, connection: field))
        if response.sendsBody(in: context) { output.append(response.body) }
        queued(closesConnection: closes)
    }

    /// An answer with trailers, to a client that takes them: the head again without its length, the body as one
    /// chunk, and the trailers after the last chunk.
    private func sendChunked(_ response: EncodedResponse, trailers: HTTPHeaders, field: HTTP1Encoder.ConnectionField) {
        var headers = HTTPHeaders()
        let fields = response.head.withUnsafeBytes { HTTP2Fields(http1Head: $0) }
        for (name, value) in fields?.pairs ?? [] where !name.hasPrefix(":") && name != "content-length" {
            headers.add(name, value)
        }
        output.append(HTTP1Encoder.streamHead(status: response.status, headers: headers, isChunked: true))
        output.append(worker.tails.tail(hasOwnDate: response.hasDate, connection: field))
        if response.sendsBody(in: context) { output.append(HTTP1Encoder.chunk(response.body.bytes)) }
        if !context.isHead { output.append(HTTP1Encoder.lastChunk(trailers: trailers)) }
        queued(closesConnection: response.closesConnection)
    }

    // MARK: - Faults and bandwidth

    /// Carries out a fault instead of answering request `number`.
    func fail(_ fault: ConnectionFault, number: Int) {
        guard !isClosed, number == requestNumber, !isAnswered else { return }
        isAnswered = true
        switch fault {
        case .reset:
            // What was queued for earlier requests goes first; then the reset discards nothing of theirs.
            flush()
            Sockets.resetOnClose(fd)
            close()
        case .close:
            queued(closesConnection: true)
        case .garbage(let bytes):
            output.append(bytes)
            queued(closesConnection: true)
        case .truncated(let response, let bodyBytes, let bytesPerSecond):
            var bytes = response.head.bytes
            bytes += worker.tails.tail(hasOwnDate: response.hasDate, connection: .none).bytes
            if response.sendsBody(in: context) { response.body.withUnsafeBytes { bytes += $0.prefix(bodyBytes) } }
            if let bytesPerSecond {
                startThrottled(bytes, bytesPerSecond: bytesPerSecond, closes: true)
            } else {
                output.append(bytes)
                queued(closesConnection: true)
            }
        case .hold:
            isHeld = true
        }
    }

    /// Sends an answer at `bytesPerSecond`, a slice every 100 ms, without holding the loop.
    func send(_ response: EncodedResponse, number: Int, bytesPerSecond: Int) {
        guard !isClosed, number == requestNumber, !isAnswered else { return }
        isAnswered = true
        let closes = response.closesConnection
        let field: HTTP1Encoder.ConnectionField =
            machine.closesAfterResponse(closesConnection: closes) ? .close : (context.minorVersion == 0 ? .keepAlive : .none)
        var bytes = response.head.bytes
        bytes += worker.tails.tail(hasOwnDate: response.hasDate, connection: field).bytes
        if response.sendsBody(in: context) { bytes += response.body.bytes }
        startThrottled(bytes, bytesPerSecond: bytesPerSecond, closes: closes)
    }

    private func startThrottled(_ bytes: [UInt8], bytesPerSecond: Int, closes: Bool) {
        throttled = (bytes, 0, max(1, bytesPerSecond / 10), closes)
        sendThrottledSlice()
    }

    private func sendThrottledSlice() {
        guard !isClosed, var pending = throttled else { return }
        let end = min(pending.bytes.count, pending.sent + pending.bytesPerTick)
        output.append(Array(pending.bytes[pending.sent..<end]))
        pending.sent = end
        if end < pending.bytes.count {
            throttled = pending
            if !isDispatching { flush() }
            worker.loop.schedule(afterMilliseconds: 100) { [self] in sendThrottledSlice() }
            return
        }
        throttled = nil
        queued(closesConnection: pending.closes)
    }

    /// The answer to the current request is queued: what follows is the machine's call.
    private func queued(closesConnection: Bool) {
        if isDispatching {
            answerWhileDispatching = closesConnection
            return
        }
        process(machine.responseQueued(closesConnection: closesConnection, isBacklogged: isBacklogged()))
        flush()
    }

    // MARK: - Streamed answers

    /// - Parameter contentLength: the body's length when it is known (a relayed answer's): sent as it is, unframed.
    func startStream(
        status: Int, reason: String = "", headers: HTTPHeaders, contentLength: Int? = nil, number: Int, maximumQueuedBytes: Int
    ) -> ResponseStream? {
        guard !isClosed, number == requestNumber, !isAnswered else { return nil }
        isAnswered = true
        // HTTP/1.0 has no chunked coding: the body runs to the end of the connection, which then closes.
        let isChunked = context.minorVersion == 1 && contentLength == nil
        let closes = (!isChunked && contentLength == nil) || machine.closesAfterResponse(closesConnection: false)
        if let contentLength {
            output.append(HTTP1Encoder.responseHead(status: status, reason: reason, headers: headers, contentLength: contentLength).bytes)
        } else {
            output.append(HTTP1Encoder.streamHead(status: status, headers: headers, isChunked: isChunked))
        }
        let field: HTTP1Encoder.ConnectionField = closes ? .close : (context.minorVersion == 0 ? .keepAlive : .none)
        output.append(worker.tails.tail(hasOwnDate: headers.contains("Date"), connection: field))
        let stream = ResponseStream(
            connection: self, isChunked: isChunked, closesConnection: closes, maximumQueuedBytes: maximumQueuedBytes)
        self.stream = stream
        if !isDispatching { flush() }
        return stream
    }

    /// Queues a piece of a streamed answer; a client that leaves too much unread is disconnected.
    func streamWrite(_ bytes: [UInt8], maximumQueuedBytes: Int) -> Bool {
        guard !isClosed else { return false }
        output.append(bytes)
        if !isDispatching { flush() }
        guard !isClosed else { return false }
        if output.byteCount + queuedInBufferevent > maximumQueuedBytes {
            close()
            return false
        }
        return true
    }

    func streamFinished(lastChunk: [UInt8]?, closesConnection: Bool) {
        guard !isClosed, stream != nil else { return }
        stream = nil
        if let lastChunk { output.append(lastChunk) }
        queued(closesConnection: closesConnection)
    }

    /// Whether so much waits to be written that the next pipelined request should wait for it to drain. A large
    /// backlog is written first: what the socket takes is not backlog, and what it does not take goes to the
    /// bufferevent, which reports when it has drained. Smaller answers stay queued, to go out together.
    private func isBacklogged() -> Bool {
        if output.byteCount > Self.backlogBytes { flush() }
        return output.byteCount + queuedInBufferevent > Self.backlogBytes
    }

    /// Bytes handed to libevent and not yet written to the socket (for TLS, encrypted or not).
    var queuedInBufferevent: Int {
        // Each layer asked by name: a loop over an array of the two cost some 250 instructions a request, most of
        // them in releasing the array.
        func queued(in layer: OpaquePointer?) -> Int {
            guard let layer, let buffer = bufferevent_get_output(layer) else { return 0 }
            return evbuffer_get_length(buffer)
        }
        return queued(in: tls) + queued(in: bufferevent)
    }

    /// Writes what is queued: straight to the socket while nothing waits in the bufferevent, else behind it (TLS:
    /// always through the TLS bufferevent).
    func flush() {
        if let tls {
            guard !isClosed, !output.isEmpty, let buffer = bufferevent_get_output(tls) else { return }
            if writeTLSRecord(through: tls, behind: buffer) { return }
            output.move(to: buffer, coalescingUpTo: Self.recordBytes)
            outputWaiting()
            return
        }
        guard !isClosed, !output.isEmpty, let bufferevent, let buffer = bufferevent_get_output(bufferevent) else { return }
        if evbuffer_get_length(buffer) == 0 {
            guard output.write(to: fd) else {
                close()
                return
            }
        }
        if !output.isEmpty {
            // The bufferevent calls `outputDrained` once it has written all of it.
            output.move(to: buffer)
            bufferevent_enable(bufferevent, Int16(EV_WRITE))
            outputWaiting()
        }
    }

    /// Output went to the bufferevent, to be written as the client reads: the send timeout runs while an answer
    /// under way (a stream) waits for the client, as it does for a large answer, until `outputDrained`.
    func outputWaiting() {
        noteActivity()
        guard machine.state == .waitingForResponse, machine.timeout != .send else { return }
        machine.outputWaiting()
        updateTimer()
    }

    /// The bufferevent wrote everything it held.
    func outputDrained() {
        guard !isClosed else { return }
        noteActivity()
        if let http2, !isLingering {
            http2.outputDrained()
            return
        }
        stream?.drained()
        if machine.state == .closing || machine.state == .closed {
            closeOnceWritten()
            return
        }
        process(machine.outputDrained())
        flush()
    }

    /// The bufferevent failed to write: the client has gone.
    func bufferevent(event: Int16) {
        if Int32(event) & (BEV_EVENT_ERROR | BEV_EVENT_EOF) != 0 { close() }
    }

    // MARK: - Closing

    /// Closes after what is queued is written. An answer that ends the connection is followed by a lingering
    /// close: the server shuts its side, then reads and drops what the client still sends until it closes or the
    /// linger time passes, so the client reads the answer rather than a reset.
    func closeOnceWritten() {
        flush()
        guard !isClosed else { return }
        if tls != nil {
            closeTLSOnceWritten()
            return
        }
        guard output.isEmpty, queuedInBufferevent == 0 else { return }  // `outputDrained` comes back here
        // HTTP/2 lingers too: its GOAWAY must reach a client that is still sending.
        guard machine.state == .closing || http2 != nil, !isLingering else {
            close()
            return
        }
        isLingering = true
        shutdown(fd, Int32(SHUT_WR))
        updateReading()
        arm(milliseconds: worker.configuration.lingerMilliseconds)
        armedTimeout = nil
    }

    /// Called when the connection ends, however it ends.
    func whenClosed(_ observer: @escaping () -> Void) {
        if isClosed {
            observer()
        } else {
            closeObservers.append(observer)
        }
    }

    /// The server is stopping: close now if idle, after the current answer otherwise.
    func beginShutdown() {
        guard !isClosed else { return }
        if let http2 {
            http2.beginShutdown()
            return
        }
        process(machine.beginShutdown())
        stream?.serverStopping()
        flush()
    }

    /// An answer is being read, made or written, or the connection is lingering after one: a stopping server
    /// waits for it (closing under unread input would reset the connection and lose what is not yet delivered).
    /// A stream (server-sent events) is not waited for: it ends when the server stops. A lingering connection is
    /// waited for only until the client has acknowledged all of its answer.
    var isBusy: Bool {
        guard !isClosed, !isHandshaking else { return false }
        if isLingering { return CLibevent_unsent_bytes(fd) > 0 }
        if let http2 { return http2.isBusy || !output.isEmpty || queuedInBufferevent > 0 }
        return (machine.isBusy && stream == nil) || !output.isEmpty || queuedInBufferevent > 0
    }

    /// Stops everything now; libevent's objects are freed once the current callback has returned.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        if let readEvent { event_del(readEvent) }
        if let timer { event_del(timer) }
        for layer in [tls, bufferevent] {
            guard let layer else { continue }
            bufferevent_disable(layer, Int16(EV_READ | EV_WRITE))
            bufferevent_setcb(layer, nil, nil, nil, nil)
        }
        output.removeAll()
        stream?.markFinished()
        stream = nil
        // The streams end with the connection, their observers told; the session is freed with the rest, later.
        http2?.endStreams()
        worker.connectionClosed(self)
        let observers = closeObservers
        closeObservers = []
        observers.forEach { $0() }
        worker.loop.schedule(afterMilliseconds: 0) { [self] in free() }
    }

    /// Frees the events and the bufferevents (which close the socket; a TLS filter frees the one beneath it).
    func free() {
        http2?.free()
        http2 = nil
        if let readEvent { event_free(readEvent) }
        readEvent = nil
        if let timer { event_free(timer) }
        timer = nil
        if let tls {
            bufferevent_free(tls)
        } else if let bufferevent {
            bufferevent_free(bufferevent)
        }
        tls = nil
        bufferevent = nil
    }

    // MARK: - Reading and deadlines

    func updateReading() {
        let reading = http2.map(\.wantsRead) ?? (machine.isReading || isWatchingStreamClient)
        let wanted = !isClosed && (reading || isLingering || (isClosingTLS && http2 != nil))
        if tls != nil {
            updateTLSReading(wanted)
            return
        }
        guard wanted != isReadingEnabled, let readEvent else { return }
        isReadingEnabled = wanted
        if wanted { event_add(readEvent, nil) } else { event_del(readEvent) }
    }

    func updateTimer() {
        // The handshake's own deadline (the header timeout) stands until it ends: the CONNECT's answer draining
        // meanwhile must not trade it for the idle timeout.
        guard !isHandshaking, http2 == nil else { return }
        let wanted = machine.timeout
        if wanted == armedTimeout {
            if wanted == .idle || wanted == .body { noteActivity() }
            return
        }
        armedTimeout = wanted
        // Nothing timed (a request waits for its answer): the timer is left pending, and finds nothing to do if it
        // fires before the answer goes out.
        guard let wanted else { return }
        arm(milliseconds: worker.configuration.milliseconds(for: wanted))
    }

    /// Adds the timer to fire after `milliseconds`, the deadline left as it is.
    func rearm(after milliseconds: Int) {
        guard let timer else { return }
        var delay = timeval(milliseconds: milliseconds)
        event_add(timer, &delay)
        timerFiresAt = worker.now + milliseconds
    }

    func arm(milliseconds: Int) {
        guard let timer else { return }
        deadline = worker.now + milliseconds
        // A timer still pending that fires no later than the new deadline is left as it is: it finds the deadline
        // moved and waits again for the rest. An answer the server does not give at once (proxied, delayed) had the
        // idle timer deleted as its request came and added again as it went out, with libevent's timer queue
        // updated both times.
        if let timerFiresAt, timerFiresAt <= deadline { return }
        worker.loop.add(timer, afterMilliseconds: milliseconds)
        timerFiresAt = deadline
    }

    /// Moves the deadline of an idle, body or send timeout on, without touching the timer: it fires at the old time
    /// and waits again for the rest. A head's deadline counts from its first byte and never moves, or a client that
    /// sends a byte now and then (slowloris) would hold the connection for as long as it likes.
    func noteActivity() {
        guard let armedTimeout, armedTimeout != .head else { return }
        let worker = worker  // one check of the unowned reference for both reads
        deadline = worker.now + worker.configuration.milliseconds(for: armedTimeout)
    }

    func timerFired() {
        guard !isClosed else { return }
        timerFiresAt = nil
        let remaining = deadline - worker.now
        // A timer left pending from an earlier deadline may fire before the linger's or the handshake's.
        if (isLingering || isHandshaking) && remaining <= 0 {
            // The linger time is over, or the client never finished its TLS handshake.
            close()
            return
        }
        if isClosingTLS {
            closeTLSOnceWritten()
            return
        }
        if remaining > 0 {
            rearm(after: remaining)
            return
        }
        if let http2 {
            // Idle, or a client that leaves a body waiting on a closed window: GOAWAY. Otherwise the streams wait
            // on the server (delays, held answers, streams) and the timer runs again.
            if !http2.timedOut() { arm(milliseconds: worker.configuration.idleTimeoutMilliseconds) }
            return
        }
        // Nothing is timed now (a request waits for its answer): armed again when something is.
        guard armedTimeout != nil else { return }
        armedTimeout = nil
        // A client that has not taken any of its answer for the whole timeout will not take the rest: closing once
        // it is written would keep the connection, and the answer in memory, for as long as the client likes.
        let isSendTimeout = machine.timeout == .send
        process(machine.timedOut())
        if isSendTimeout {
            close()
            return
        }
        flush()
    }

    // MARK: - Handing over

    /// Answers request `number` with `head` and hands the connection over (see `Responder.upgrade`).
    func upgrade(number: Int, head: [UInt8], ready: @escaping (UpgradedConnection?) -> Void) -> Bool {
        guard !isClosed, number == requestNumber, !isAnswered, http2 == nil else { return false }
        isAnswered = true
        worker.upgrade(self, head: head, ready: ready)
        return true
    }

    /// The connection stops being HTTP (a `CONNECT` tunnel opened, a WebSocket accepted): returns the bufferevent
    /// to read and write through from now on (a TLS connection's OpenSSL one, which owns the socket's), and the
    /// bytes already received after the request. The connection is done. A TLS connection is handed over only
    /// when `tls` says the taker speaks through it (a tunnel relays raw bytes, and is not opened over TLS).
    func takeOver(tls allowsTLS: Bool = false) -> (bufferevent: OpaquePointer, received: [UInt8])? {
        guard !isClosed, allowsTLS || tls == nil, let layer = tls ?? bufferevent else { return nil }
        flush()
        if !output.isEmpty, let buffer = bufferevent_get_output(layer) { output.move(to: buffer) }
        var received = machine.takeOver()
        // Decrypted bytes the machine did not ask for yet wait in the TLS input: they come after the request.
        if tls != nil, let input = bufferevent_get_input(layer), evbuffer_get_length(input) > 0 {
            let count = evbuffer_get_length(input)
            var rest = [UInt8](repeating: 0, count: count)
            let taken = rest.withUnsafeMutableBytes { evbuffer_remove(input, $0.baseAddress, count) }
            received += rest.prefix(max(0, Int(taken)))
        }
        isClosed = true
        if let readEvent { event_free(readEvent) }
        readEvent = nil
        if let timer { event_free(timer) }
        timer = nil
        self.bufferevent = nil
        tls = nil
        worker.connectionClosed(self)
        closeObservers.forEach { $0() }
        closeObservers = []
        return (layer, received)
    }
}
