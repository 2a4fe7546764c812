import Foundation
import Logging
import OrreryCore
import OrreryEvent

/// Sends what no stub answered to the upstream of the active environment, and relays the answer. One per event
/// loop, used on that loop's thread.
final class ProxyForwarder {
    private let environments: EnvironmentRegistry
    private let client: UpstreamClient
    private let serviceLogger: NetworkServiceLogger
    private let logger: Logger
    /// The level asked once, as `RequestPipeline` does: asked of the logger, it copied its handler for every exchange.
    private let isDebugLogging: Bool
    /// `--record-body-limit`: a recorded answer's body beyond this is not written as a fixture.
    let recordBodyLimit: Int
    /// This daemon's `Via` entry on forwarded requests; a request that already carries it has come back.
    private let via: String

    init(
        environments: EnvironmentRegistry, client: UpstreamClient, serviceLogger: NetworkServiceLogger, logger: Logger,
        recordBodyLimit: Int, via: String
    ) {
        self.environments = environments
        self.client = client
        self.serviceLogger = serviceLogger
        self.logger = logger
        isDebugLogging = logger.logLevel <= .debug
        self.recordBodyLimit = recordBodyLimit
        self.via = via
    }

    /// Where a request goes: the upstream the host map chose for it, or a stub's `proxy:` base URL.
    struct Plan {
        var upstream: Upstream
        /// A stub's `proxy:`: the path before the request's, and the headers it adds and removes.
        var stubTarget: ProxyTarget?
        /// A stub's delay, waited before forwarding.
        var delayMilliseconds = 0
    }

    /// The reply for a request no stub answered: forwarded when the host map gives it an upstream, a 502 when its
    /// environment has no host, nil when no configuration applies (a 404 is due).
    func plan(_ request: HTTPRequest) -> Reply? {
        Self.plan(request, environments: environments, via: via)
    }

    /// `plan(_:)` for a host map: what the pipeline decides without a connection to an upstream.
    static func plan(_ request: HTTPRequest, environments: EnvironmentRegistry, via: String) -> Reply? {
        switch environments.upstream(for: request) {
        case nil:
            return nil
        case .failure(let error)?:
            let failure = ErrorResponse(
                .Code502BadGateway, message: error.message,
                details: [
                    ("kind", .string("hostNotConfigured")), ("environment", .string(error.key)),
                    ("canonicalHost", .string(error.canonicalHost)),
                ])
            return .made(
                Response(failure, kind: "hostNotConfigured"),
                outcome: .proxied(environment: error.key, upstream: error.canonicalHost, error: "hostNotConfigured"))
        case .success(let upstream)?:
            if ProxyHeaders.hasPassed(request.headers, entry: via) {
                return .made(
                    Response(Self.loop("the request's Via shows it already passed this daemon (\(via))"), kind: "loopDetected"),
                    outcome: .proxied(environment: upstream.environmentKey, upstream: upstream.origin, error: "loopDetected"))
            }
            return .forward(Plan(upstream: upstream))
        }
    }

    /// Where the fixture of a forwarded exchange goes: the host it names (nil when the host map's canonical host
    /// stands for it) and the folder it is written under.
    func recordingTarget(for request: HTTPRequest, _ plan: Plan) -> (host: String?, folder: String) {
        (environments.recordedHost(for: request), plan.upstream.canonicalHost ?? plan.upstream.hostHeader)
    }

    /// Sends the request upstream and relays the answer as it arrives (see `ProxyRelay`), keeping up to
    /// `captureLimit` bytes of the body for `hooks`: the caller journals and records what they are handed, so the
    /// journal and the recorder are fed from one place, the executor. `request` and `responder` are the hooks'
    /// exchange's, lent separately: read out of the hooks, which are moved into the relay, the request was copied.
    func forward(
        _ plan: Plan, _ request: HTTPRequest, responder: Responder, captureLimit: Int, hooks: consuming ProxyRelay.Hooks
    ) {
        let upstream = plan.upstream
        let injected = upstream.injectedHeaders.compactMap { header -> (String, String)? in
            // getenv, not ProcessInfo's environment, which copies every variable on each call.
            guard let value = getenv(header.variable).map({ String(cString: $0) }) else { return nil }
            // A line break would start a header of its own.
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else {
                logger.warning("not injecting \(header.name): $\(header.variable) holds a line break")
                return nil
            }
            return (header.name, value)
        }
        // A stub's `proxy:` is not asked of the host map, whose plan checks this for the rest.
        if plan.stubTarget != nil, ProxyHeaders.hasPassed(request.headers, entry: via) {
            let message = "the request's Via shows it already passed this daemon (\(via))"
            hooks.answered(
                Response(Self.loop(message), kind: "loopDetected"),
                .proxied(environment: nil, upstream: upstream.origin, error: "loopDetected"))
            return
        }
        let target = plan.stubTarget?.target(for: request.originForm) ?? request.originForm
        let upstreamRequest: UpstreamRequest
        if injected.isEmpty, plan.stubTarget == nil {
            // The usual forward: the head is written from the client's fields as the rules pass them.
            upstreamRequest = UpstreamRequest(
                upstream: upstream, method: request.method, target: target,
                forwarding: ForwardedFields(
                    request.headers, hostHeader: upstream.hostHeader, clientAddress: responder.remoteAddress, via: via),
                body: request.body)
        } else {
            var headers = ProxyHeaders.upstreamRequest(
                request.headers, upstream: upstream, clientAddress: responder.remoteAddress, injected: injected,
                via: via)
            if let stubTarget = plan.stubTarget {
                for name in stubTarget.removedHeaders { headers.remove(name) }
                for (name, value) in stubTarget.addedHeaders { headers.set(name, value) }
            }
            upstreamRequest = UpstreamRequest(
                upstream: upstream, method: request.method, target: target, headers: headers, body: request.body)
        }
        let relay = ProxyRelay(upstream: upstream, forwarder: self, captureLimit: captureLimit, hooks: hooks)
        relay.start(upstreamRequest, on: client)
    }

    /// A raw connection to `upstream` for a forwarded WebSocket, and the head of the upgrade request it is sent:
    /// the client's headers as a forwarded request carries them, with the upgrade put back and no extensions.
    func openSocket(
        to upstream: Upstream, for request: HTTPRequest, clientAddress: String, handler: any UpstreamSocketHandler
    ) -> (socket: UpstreamSocket, head: [UInt8]) {
        var headers = ProxyHeaders.upstreamRequest(
            request.headers, upstream: upstream, clientAddress: clientAddress, injected: [], via: via)
        headers.add("Connection", "Upgrade")
        headers.add("Upgrade", request.headers["Upgrade"] ?? "websocket")
        // No extension is offered on, so that no compression is agreed and the journal can read every frame.
        headers.remove("Sec-WebSocket-Extensions")
        // A client over HTTP/2 (an extended CONNECT) sends no key; the upstream, spoken to in HTTP/1.1, needs one.
        if request.headers["Sec-WebSocket-Key"] == nil {
            headers.add("Sec-WebSocket-Key", WebSocketHandshake.makeKey())
        }
        var head = "GET \(request.originForm) HTTP/1.1\r\n"
        for (name, value) in headers.entries { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return (
            UpstreamSocket(
                to: upstream.host, port: upstream.port, tls: upstream.scheme == "https", using: client, handler: handler
            ),
            Array(head.utf8)
        )
    }

    /// Logs (at debug) an answer relayed, once it is complete. The request is read only when the line is written:
    /// lent from the relay as a plain argument, it was copied for every exchange.
    /// The level is asked where the call is (inlined); the line is made in a function of its own.
    @inline(__always)
    func relayed(
        _ request: @autoclosure () -> HTTPRequest, _ upstream: Upstream, status: Int, bodySize: Int, streamed: Bool
    ) {
        guard isDebugLogging else { return }
        logRelayed(request(), upstream, status: status, bodySize: bodySize, streamed: streamed)
    }

    private func logRelayed(_ request: HTTPRequest, _ upstream: Upstream, status: Int, bodySize: Int, streamed: Bool) {
        let source = "\(upstream.environmentKey ?? "direct") \(upstream.origin)"
        let how = streamed ? ", streamed" : ""
        logger.debug("\(request.method) \(request.target) -> \(status) from \(source), \(bodySize) bytes\(how)")
    }

    /// The client's 502 or 504 for an upstream failure, and the journal's outcome.
    func failed(_ failure: UpstreamFailure, _ request: HTTPRequest, _ upstream: Upstream)
        -> (Response, JournalEntry.Outcome)
    {
        let code: HTTPStatusCode = failure.kind == .timeout ? .Code504GatewayTimeout : .Code502BadGateway
        let error = ErrorResponse(
            code, message: failure.message,
            details: [
                ("kind", .string(failure.kind.rawValue)),
                ("environment", .string(upstream.environmentKey)),
                ("canonicalHost", .string(upstream.canonicalHost)),
                ("upstream", .string(upstream.origin)),
            ],
            failureReason: Self.failureReason(failure, upstream: upstream))
        logger.warning("\(request.method) \(request.target) -> \(code.rawValue): \(failure)")
        return (
            Response(error, kind: failure.kind.rawValue),
            .proxied(environment: upstream.environmentKey, upstream: upstream.origin, error: failure.kind.rawValue)
        )
    }

    /// What went wrong, in the words of the failure rather than the status's ("an invalid response") when that
    /// would mislead: a name that does not resolve never answered at all.
    static func failureReason(_ failure: UpstreamFailure, upstream: Upstream) -> String? {
        switch failure.kind {
        case .tlsError:
            "The TLS connection to the upstream failed: \(failure.message). Orrery verifies every upstream's certificate against the system's CAs and --upstream-ca."
        case .hostNotFound:
            "The upstream's name \(upstream.host) could not be resolved (\(failure.message)); nothing was sent."
        case .hostConnectionError:
            "The upstream \(upstream.origin) could not be reached or closed the connection before answering: \(failure.message)."
        case .timeout, .connectionReset, .loopDetected:
            nil
        }
    }

    /// Answers a `CONNECT` with a byte-for-byte tunnel to the host and port it names. The environment map does not
    /// apply: what goes through is the client's own TLS, meant for that host. `refused` gets the error to answer
    /// when the target cannot be reached.
    func tunnel(to target: ConnectTarget, responder: Responder, refused: @escaping (Response) -> Void) {
        let started = ContinuousClock.now
        responder.openTunnel(
            to: target, using: client,
            failed: { [logger] failure in
                if failure.kind == .loopDetected {
                    logger.warning("CONNECT \(target) -> 508: \(failure)")
                    refused(Response(Self.loop(failure.message), kind: failure.kind.rawValue))
                    return
                }
                let code: HTTPStatusCode = failure.kind == .timeout ? .Code504GatewayTimeout : .Code502BadGateway
                let error = ErrorResponse(
                    code, message: failure.message,
                    details: [("kind", .string(failure.kind.rawValue)), ("upstream", .string(target.description))])
                logger.warning("CONNECT \(target) -> \(code.rawValue): \(failure)")
                refused(Response(error, kind: failure.kind.rawValue))
            },
            closed: { [logger] totals in
                logger.debug(
                    "CONNECT \(target) closed after \(ContinuousClock.now - started): \(totals.fromClient) bytes up, \(totals.fromUpstream) down")
            })
    }

    /// The 508 for a request that would come back to this daemon.
    static func loop(_ message: String) -> ErrorResponse {
        ErrorResponse(
            .Code508LoopDetected, message: message, details: [("kind", .string("loopDetected"))],
            failureReason:
                "Orrery would be sending this request to itself: \(message). Point the host map, or the client's CONNECT, at the real upstream, not at this daemon's own address and ports (main, session and TLS).")
    }
}
