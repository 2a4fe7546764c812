import OrreryCore

/// Sends the one answer to a request, now or later, on the request's event loop. A second answer, or one for a
/// client that has gone, is dropped.
public struct Responder {
    let connection: ServerConnection
    let number: Int
    /// The HTTP/2 stream the request came on; nil for HTTP/1.
    let stream: HTTP2Stream?
    /// What the answer depends on besides itself: `HEAD`, the HTTP version, whether the connection is kept.
    public let context: ResponseContext

    init(connection: ServerConnection, number: Int, context: ResponseContext) {
        self.connection = connection
        self.number = number
        self.context = context
        stream = nil
    }

    init(connection: ServerConnection, stream: HTTP2Stream, context: ResponseContext) {
        self.connection = connection
        number = 0
        self.context = context
        self.stream = stream
    }

    /// The request's HTTP version as the journal writes it: `2`, `1.1` or `1.0`.
    public var httpVersion: String { stream != nil ? "2" : (context.minorVersion == 0 ? "1.0" : "1.1") }

    /// The tag of the port the request came through (0 for the main port; see `HTTPServer.addListener`).
    public var listenerTag: Int { connection.tag }

    /// How the client reached Orrery: `https` on the TLS port and inside an intercepted tunnel, else `http`.
    public var scheme: String { connection.tls == nil ? "http" : "https" }

    /// For a request inside an intercepted tunnel: where its `CONNECT` went.
    public var intercepted: InterceptedOrigin? { connection.intercepted }

    /// The client's address, as text.
    public var remoteAddress: String { connection.remoteAddress }

    /// The loop the request arrived on; the answer must be given on it.
    public var loop: EventLoop { connection.worker.loop }

    /// Whether the client is still connected.
    public var isConnected: Bool { stream?.isOpen ?? !connection.isClosed }

    /// Sends an encoded answer (a stub's prepared one, or one made for this request).
    public func send(_ response: EncodedResponse) {
        if let stream {
            stream.send(response)
            return
        }
        connection.send(response, number: number)
    }

    /// Sends the answer after `milliseconds`, without holding up the loop's other connections.
    public func send(afterMilliseconds milliseconds: Int, _ response: EncodedResponse) {
        let responder = self
        connection.worker.loop.schedule(afterMilliseconds: milliseconds) { responder.send(response) }
    }

    /// Sends the answer at a bandwidth limit: a slice every 100 ms, the loop free in between.
    public func send(_ response: EncodedResponse, bytesPerSecond: Int) {
        if let stream {
            stream.send(response, bytesPerSecond: bytesPerSecond)
            return
        }
        connection.send(response, number: number, bytesPerSecond: bytesPerSecond)
    }

    /// Goes wrong on purpose instead of answering: a reset, a close, bytes that are not HTTP, a cut body, or
    /// silence until the client gives up.
    public func fail(_ fault: ConnectionFault) {
        if let stream {
            stream.fail(fault)
            return
        }
        connection.fail(fault, number: number)
    }

    /// Runs `job` on this loop after `milliseconds`.
    public func after(milliseconds: Int, _ job: @escaping () -> Void) {
        connection.worker.loop.schedule(afterMilliseconds: milliseconds, job)
    }

    /// Starts an answer whose body is sent a piece at a time (server-sent events): the head goes out now, with
    /// `Transfer-Encoding: chunked` (HTTP/1.0: until the connection closes). A client that lets more than
    /// `maximumQueuedBytes` wait unread is disconnected. Nil when the client has gone.
    public func startStream(status: Int = 200, headers: HTTPHeaders, maximumQueuedBytes: Int = 1 << 20) -> ResponseStream? {
        if let stream {
            return stream.startStream(
                status: status, headers: headers, contentLength: nil, maximumQueuedBytes: maximumQueuedBytes)
        }
        return connection.startStream(
            status: status, headers: headers, number: number, maximumQueuedBytes: maximumQueuedBytes)
    }

    /// Starts relaying an answer whose body arrives in pieces (a proxied one): with `contentLength` as given when it
    /// is known, else chunked (HTTP/1.0: until the connection closes). The writer paces itself through
    /// `ResponseStream.queuedBytes` and its observer. Nil when the client has gone.
    public func startRelay(status: Int, reason: String, headers: HTTPHeaders, contentLength: Int?) -> ResponseStream? {
        if let stream {
            let relay = stream.startStream(
                status: status, headers: headers, contentLength: contentLength, maximumQueuedBytes: Int.max)
            relay?.isCutWhenServerStops = true
            return relay
        }
        let stream = connection.startStream(
            status: status, reason: reason, headers: headers, contentLength: contentLength, number: number,
            maximumQueuedBytes: Int.max)
        stream?.isCutWhenServerStops = true
        return stream
    }

    /// Answers with `head` (a `101 Switching Protocols`, ending with its blank line) and hands the connection over
    /// to another protocol; `ready` gets it on this loop, or nil when the client has gone. An HTTP/1.1 connection,
    /// plain or TLS, can be handed over, and so can an HTTP/2 stream opened by an extended `CONNECT` (RFC 8441),
    /// which is answered `200` with the head's fields that still apply; false, and nothing sent, for any other
    /// HTTP/2 stream.
    public func upgrade(head: [UInt8], ready: @escaping (UpgradedConnection?) -> Void) -> Bool {
        if let stream { return stream.upgrade(head: head, ready: ready) }
        return connection.upgrade(number: number, head: head, ready: ready)
    }

    /// Calls `observer` when the connection ends, however it ends (at once if it has).
    public func whenClosed(_ observer: @escaping () -> Void) {
        if let stream {
            stream.whenClosed(observer)
            return
        }
        connection.whenClosed(observer)
    }

    /// Answers a `CONNECT` by intercepting it: Orrery answers 200 itself and speaks TLS with the client, presenting
    /// certificates signed by its CA for the names the client asks for (`target`'s host when it sends none). The
    /// requests inside then come to the handler as https requests, with `intercepted` set.
    public func intercept(_ target: ConnectTarget, using context: TLSServerContext) {
        // HTTP/2 answers CONNECT itself before it reaches a handler (501): no stream is intercepted.
        guard stream == nil else { return }
        connection.intercept(number: number, authority: target.description, defaultName: target.host, context: context)
    }

    /// Answers a `CONNECT`: connects to `target` and, once it accepts, turns this connection into a byte-for-byte
    /// tunnel to it. If the target cannot be reached, `failed` is called on this loop with the request still
    /// unanswered, and the responder must then send the error. `closed` is called when an open tunnel ends.
    public func openTunnel(
        to target: ConnectTarget, using client: UpstreamClient, failed: @escaping (UpstreamFailure) -> Void,
        closed: @escaping (TunnelTotals) -> Void
    ) {
        guard stream == nil else { return }
        connection.worker.openTunnel(
            from: connection, to: target, using: client, failed: failed, closed: closed)
    }
}
