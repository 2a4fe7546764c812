/// One server connection's HTTP/1.1 life as a value: bytes go in, and it says what the connection must do next:
/// hand a request to the pipeline, write `100 Continue`, refuse with an error, read more, pause, or close.
///
/// States (RFC 9112 §9): `idle` between requests, `readingHead` from a request's first byte, `readingBody` after
/// its head, `waitingForResponse` while the pipeline answers it, `writing` while a large answer drains before the
/// next pipelined request is read, `closing` once the connection will carry no more requests, `closed`.
/// Pipelined requests wait in the buffer, unparsed, until the one before is answered, so answers go out in order.
///
/// The event layer feeds bytes with `received`, reports the end of input, the end of a response and timeouts, and
/// carries out each `Action`; everything about HTTP/1 framing and persistence is decided here, tested without
/// sockets.
public struct HTTP1ConnectionStateMachine {
    public enum State: Sendable, Equatable {
        case idle, readingHead, readingBody, waitingForResponse, writing, closing, closed
    }

    public enum Action {
        /// Nothing to do until more bytes arrive.
        case readMore
        /// A whole request: answer it, then call `responseQueued`.
        case dispatch(HTTPRequest, ResponseContext)
        /// Write `HTTP/1.1 100 Continue` (the client waits for it before sending its body), then call `next()`.
        case sendContinue
        /// Answer with this error, which closes the connection; then close it once written.
        case reject(ErrorResponse)
        /// Stop reading: a request is being answered and enough is buffered behind it, or the client has finished
        /// sending. Reading resumes when `isReading` says so.
        case pauseReading
        /// Close the connection once what is queued is written.
        case close
    }

    /// Which deadline applies in the current state.
    public enum Timeout: Sendable, Equatable {
        /// Between requests on a kept-alive connection.
        case idle
        /// From a request's first byte to the end of its head (slow clients, slowloris).
        case head
        /// Between two reads of a request's body.
        case body
        /// While a response is written, for a client that does not read it.
        case send
    }

    public struct Configuration: Sendable {
        public var limits: HTTP1Parser.Limits
        /// Bytes kept unparsed behind a request being answered before reading pauses.
        public var maximumBufferedBytes: Int

        public init(limits: HTTP1Parser.Limits = HTTP1Parser.Limits(), maximumBufferedBytes: Int? = nil) {
            self.limits = limits
            self.maximumBufferedBytes = maximumBufferedBytes ?? max(64 * 1024, limits.maximumHeadBytes + limits.maximumTargetLength)
        }
    }

    public private(set) var state = State.idle
    @usableFromInline let configuration: Configuration
    private var parser: HTTP1Parser
    /// Received bytes not parsed yet: the rest of a line, or pipelined requests behind the one being answered.
    @usableFromInline private(set) var pending: [UInt8] = []
    @usableFromInline private(set) var pendingStart = 0
    private var isHeadHandled = false
    /// The client ended its side: after the current answer the connection closes.
    @usableFromInline private(set) var hasInputEnded = false
    /// The server is stopping: no request after the current one.
    private var isShuttingDown = false
    private var context = ResponseContext()
    /// Output waits for the client while its request is still being answered (a streamed answer it does not keep
    /// up with): the send timeout runs, so a client that stops reading does not hold the connection forever.
    @usableFromInline private(set) var isOutputWaiting = false

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        parser = HTTP1Parser(role: .request, limits: configuration.limits)
    }

    // The connection's questions are inlinable: asked from another module through a getter, each copied the whole
    // machine (some 300 bytes, its parser with it) onto the stack first, several times per request.
    @inlinable
    public var timeout: Timeout? {
        switch state {
        case .idle: .idle
        case .readingHead: .head
        case .readingBody: .body
        case .writing: .send
        case .waitingForResponse: isOutputWaiting ? .send : nil
        case .closing, .closed: nil
        }
    }

    /// Whether the connection should be reading from its socket now.
    @inlinable
    public var isReading: Bool {
        switch state {
        case .idle, .readingHead, .readingBody: !hasInputEnded
        case .waitingForResponse, .writing: !hasInputEnded && bufferedCount < configuration.maximumBufferedBytes
        case .closing: true  // bytes are read and dropped until the client closes (a lingering close)
        case .closed: false
        }
    }

    /// A request is being read or answered: a stopping server waits for it.
    @inlinable
    public var isBusy: Bool {
        switch state {
        case .readingBody, .waitingForResponse, .writing: true
        case .idle, .readingHead, .closing, .closed: false
        }
    }

    @usableFromInline var bufferedCount: Int { pending.count - pendingStart }

    // MARK: - Events

    /// Bytes from the client.
    public mutating func received(_ bytes: UnsafeRawBufferPointer) -> Action {
        switch state {
        case .closing, .closed:
            return .readMore
        case .waitingForResponse, .writing:
            pending.append(contentsOf: bytes)
            return isReading ? .readMore : .pauseReading
        case .idle, .readingHead, .readingBody:
            guard bufferedCount == 0 else {
                pending.append(contentsOf: bytes)
                return next()
            }
            // The usual case: nothing is waiting, so the bytes are parsed where they are and only what is left
            // over is kept.
            let (used, action) = step(bytes)
            if used < bytes.count { keep(UnsafeRawBufferPointer(rebasing: bytes[used...])) }
            return action
        }
    }

    /// Parses what is buffered: after `100 Continue` was written.
    public mutating func next() -> Action {
        switch state {
        case .idle, .readingHead, .readingBody:
            break
        case .waitingForResponse, .writing:
            return isReading ? .readMore : .pauseReading
        case .closing, .closed:
            return .readMore
        }
        guard bufferedCount > 0 else { return hasInputEnded ? endOfInputWhileReading() : .readMore }
        // Parsed from a buffer of its own, so that the parser can run while `pending` is not borrowed.
        let buffered = pending
        let start = pendingStart
        pending = []
        pendingStart = 0
        let (used, action) = buffered.withUnsafeBytes { all in step(UnsafeRawBufferPointer(rebasing: all[start...])) }
        // Whatever is still buffered (arrived meanwhile, which cannot happen here, or left) goes back.
        if start + used < buffered.count {
            pending = buffered
            pendingStart = start + used
            compact()
        }
        // The client has finished sending: a request still waiting for bytes (the rest of a chunk line) gets none.
        if hasInputEnded, case .readMore = action { return endOfInputWhileReading() }
        return action
    }

    /// The client finished sending (a read returned 0).
    public mutating func receivedEnd() -> Action {
        hasInputEnded = true
        switch state {
        case .idle, .readingHead, .readingBody:
            return bufferedCount > 0 && state != .readingHead ? next() : endOfInputWhileReading()
        case .waitingForResponse, .writing:
            // A client may half-close after its request and still read the answer.
            return .pauseReading
        case .closing, .closed:
            state = .closed
            return .close
        }
    }

    private mutating func endOfInputWhileReading() -> Action {
        // A request cut short has no one to answer: the client has gone.
        state = .closed
        return .close
    }

    /// The answer to the request last dispatched is queued for writing; `isBacklogged` when so much is queued that
    /// the next request should wait until it drains. `closesConnection` when the answer ends the connection.
    public mutating func responseQueued(closesConnection: Bool = false, isBacklogged: Bool = false) -> Action {
        guard state == .waitingForResponse else { return .readMore }
        isOutputWaiting = false
        if closesAfterResponse(closesConnection: closesConnection) {
            state = .closing
            return .close
        }
        parser.reset()
        isHeadHandled = false
        if isBacklogged {
            state = .writing
            return .readMore
        }
        state = .idle
        return next()
    }

    /// Whether the connection ends after the answer now due (which then says `Connection: close`): the answer
    /// or the request asked for it, the client has finished, or the server is stopping.
    public func closesAfterResponse(closesConnection: Bool) -> Bool {
        closesConnection || !context.isKeepAlive || hasInputEnded || isShuttingDown
    }

    /// Output the socket did not take waits for the client to read it while the current request is still being
    /// answered (a streamed answer): the send timeout runs until `outputDrained`.
    public mutating func outputWaiting() {
        if state == .waitingForResponse { isOutputWaiting = true }
    }

    /// A backlog of output has been written.
    public mutating func outputDrained() -> Action {
        isOutputWaiting = false
        guard state == .writing else { return .readMore }
        state = .idle
        return next()
    }

    /// The deadline of the current state passed.
    public mutating func timedOut() -> Action {
        switch state {
        case .readingHead, .readingBody:
            let part = state == .readingBody ? "body" : "head"
            state = .closing
            return .reject(ErrorResponse(.Code408RequestTimeout, message: "The request \(part) did not arrive in time."))
        case .idle, .writing, .closing:
            state = .closed
            return .close
        case .waitingForResponse where isOutputWaiting:
            // The client stopped reading the answer under way.
            isOutputWaiting = false
            state = .closed
            return .close
        case .waitingForResponse, .closed:
            return .readMore
        }
    }

    /// The server is stopping: an idle connection closes now, a busy one after its answer.
    public mutating func beginShutdown() -> Action {
        isShuttingDown = true
        switch state {
        case .idle, .readingHead:
            state = .closed
            return .close
        default:
            return .readMore
        }
    }

    /// The connection stops being HTTP (a `CONNECT` tunnel takes it over): returns the bytes received after the
    /// request, which belong to the tunnel.
    public mutating func takeOver() -> [UInt8] {
        state = .closed
        defer {
            pending = []
            pendingStart = 0
        }
        return Array(pending[pendingStart...])
    }

    // MARK: - Parsing

    private mutating func step(_ input: UnsafeRawBufferPointer) -> (used: Int, action: Action) {
        var used = 0
        while true {
            if state == .idle {
                guard used < input.count else { return (used, .readMore) }
                state = .readingHead
            }
            let count: Int
            do {
                count = try parser.parse(UnsafeRawBufferPointer(rebasing: input[used...]))
            } catch {
                state = .closing
                return (used, .reject(ErrorResponse(error.status, message: error.message)))
            }
            used += count
            if parser.hasHead && !isHeadHandled {
                isHeadHandled = true
                // HTTPRequest upper-cases the method, and the pipeline answers `head` as HEAD: so must the framing.
                context = ResponseContext(
                    isHead: parser.method.equalsIgnoringASCIICase("HEAD"), minorVersion: parser.minorVersion,
                    isKeepAlive: parser.isKeepAlive)
                if !parser.isComplete {
                    state = .readingBody
                    if let refusal = expectationRefusal() { return (used, refusal) }
                    if isContinueExpected { return (used, .sendContinue) }
                } else if let refusal = expectationRefusal() {
                    return (used, refusal)
                }
            }
            if parser.isComplete {
                state = .waitingForResponse
                let request = HTTPRequest(
                    method: parser.method, target: parser.target, headers: parser.headers, body: parser.takeBody())
                return (used, .dispatch(request, context))
            }
            if count == 0 || used == input.count { return (used, .readMore) }
        }
    }

    /// `Expect: 100-continue` on an HTTP/1.1 request whose body has not started arriving.
    private var isContinueExpected: Bool {
        guard let expectation = parser.expectation, parser.minorVersion == 1 else { return false }
        return expectation.equalsIgnoringASCIICase("100-continue") && parser.body.isEmpty
    }

    /// 417 for an expectation other than `100-continue` (HTTP/1.0 requests' expectations are ignored, RFC 9110
    /// §10.1.1).
    private mutating func expectationRefusal() -> Action? {
        guard let expectation = parser.expectation, parser.minorVersion == 1,
            !expectation.equalsIgnoringASCIICase("100-continue")
        else { return nil }
        state = .closing
        return .reject(
            ErrorResponse(.Code417ExpectationFailed, message: "The expectation '\(expectation)' is not supported; only 100-continue is."))
    }

    private mutating func keep(_ bytes: UnsafeRawBufferPointer) {
        pending.append(contentsOf: bytes)
    }

    /// Drops the bytes already parsed once they are a good part of the buffer.
    private mutating func compact() {
        if pendingStart > 4096 && pendingStart * 2 > pending.count {
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
    }
}

/// What the answer to a request depends on besides the answer itself.
public struct ResponseContext: Sendable, Equatable {
    /// A `HEAD` request: the answer's head only.
    public var isHead: Bool
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    /// The request lets the connection carry another one.
    public var isKeepAlive: Bool

    public init(isHead: Bool = false, minorVersion: Int = 1, isKeepAlive: Bool = true) {
        self.isHead = isHead
        self.minorVersion = minorVersion
        self.isKeepAlive = isKeepAlive
    }
}
