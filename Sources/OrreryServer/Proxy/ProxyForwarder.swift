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

    init(environments: EnvironmentRegistry, client: UpstreamClient, serviceLogger: NetworkServiceLogger, logger: Logger) {
        self.environments = environments
        self.client = client
        self.serviceLogger = serviceLogger
        self.logger = logger
    }

    /// Where a request goes: the upstream the host map chose for it.
    struct Plan {
        var upstream: Upstream
    }

    /// The reply for a request no stub answered: forwarded when the host map gives it an upstream, a 502 when its
    /// environment has no host, nil when no configuration applies (a 404 is due).
    func plan(_ request: HTTPRequest) -> Reply? {
        Self.plan(request, environments: environments)
    }

    /// `plan(_:)` for a host map: what the pipeline decides without a connection to an upstream.
    static func plan(_ request: HTTPRequest, environments: EnvironmentRegistry) -> Reply? {
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
            return .forward(Plan(upstream: upstream))
        }
    }

    /// Sends the request upstream; `answered` gets the answer to relay (or the 502/504 for a failure) and the
    /// journal's outcome, on this loop.
    func forward(
        _ plan: Plan, _ request: HTTPRequest, responder: Responder,
        answered: @escaping (Response, JournalEntry.Outcome) -> Void
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
        let upstreamRequest = UpstreamRequest(
            upstream: upstream, method: request.method, target: request.originForm,
            headers: ProxyHeaders.upstreamRequest(
                request.headers, upstream: upstream, clientAddress: responder.remoteAddress, injected: injected),
            body: request.body)
        // The recorder's question costs one atomic load when no session is on.
        let recorder = serviceLogger.recorder
        var fixtureHost: String?
        var recordingSession: Int?
        if recorder.isRecording {
            fixtureHost = environments.recordedHost(for: request)
            recordingSession = recorder.shouldRecord(request, host: fixtureHost)
        }
        let started = ContinuousClock.now
        client.send(upstreamRequest) { [logger] result in
            switch result {
            case .success(let response):
                let headers = ProxyHeaders.clientResponse(response.headers)
                // A HEAD answer has no body, so its length is the upstream's to state.
                let length = request.method == "HEAD" ? response.headers["Content-Length"].flatMap { Int($0) } : nil
                if let recordingSession {
                    var recorded = headers
                    if let length { recorded.add("Content-Length", String(length)) }
                    recorder.record(
                        request, session: recordingSession, host: fixtureHost,
                        folder: upstream.canonicalHost ?? upstream.hostHeader, status: response.status, headers: recorded,
                        body: response.body)
                }
                logger.debug(
                    "\(request.method) \(request.target) -> \(response.status) from \(upstream.environmentKey ?? "direct") \(upstream.origin) in \(ContinuousClock.now - started)")
                answered(
                    Response(
                        status: HTTPStatus(response.status), reason: response.reason, headers: headers, body: response.body,
                        contentLength: length),
                    .proxied(environment: upstream.environmentKey, upstream: upstream.origin, error: nil))
            case .failure(let failure):
                let code: HTTPStatusCode = failure.kind == .timeout ? .Code504GatewayTimeout : .Code502BadGateway
                let error = ErrorResponse(
                    code, message: failure.message,
                    details: [
                        ("kind", .string(failure.kind.rawValue)),
                        ("environment", .string(upstream.environmentKey)),
                        ("canonicalHost", .string(upstream.canonicalHost)),
                        ("upstream", .string(upstream.origin)),
                    ],
                    failureReason: failure.kind == .tlsError
                        ? "The TLS connection to the upstream failed: \(failure.message). Orrery verifies every upstream's certificate against the system's CAs and --upstream-ca."
                        : nil)
                logger.warning("\(request.method) \(request.target) -> \(code.rawValue): \(failure)")
                answered(
                    Response(error, kind: failure.kind.rawValue),
                    .proxied(environment: upstream.environmentKey, upstream: upstream.origin, error: failure.kind.rawValue))
            }
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
}
