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

    /// Forwards the request if the host map gives it an upstream; false when there is none (a 404 is due).
    /// `startedAt` is when the request arrived, for the journal.
    func forward(_ request: HTTPRequest, responder: Responder, startedAt: Date) -> Bool {
        guard let selection = environments.upstream(for: request) else { return false }
        let upstream: Upstream
        switch selection {
        case .failure(let error):
            let failure = ErrorResponse(
                .Code502BadGateway, message: error.message,
                details: [
                    ("kind", .string("hostNotConfigured")), ("environment", .string(error.key)),
                    ("canonicalHost", .string(error.canonicalHost)),
                ])
            send(
                failure, kind: "hostNotConfigured", responder: responder,
                journal: (request, startedAt, .proxied(environment: error.key, upstream: error.canonicalHost, error: "hostNotConfigured")))
            return true
        case .success(let selected):
            upstream = selected
        }
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
                var headers = ProxyHeaders.clientResponse(response.headers)
                if request.method == "HEAD", let length = response.headers["Content-Length"] {
                    // A HEAD answer has no body, so its length is the upstream's to state.
                    headers.add("Content-Length", length)
                }
                if let recordingSession {
                    recorder.record(
                        request, session: recordingSession, host: fixtureHost,
                        folder: upstream.canonicalHost ?? upstream.hostHeader, status: response.status, headers: headers,
                        body: response.body)
                }
                self.serviceLogger.log(
                    request, responder: responder, startedAt: startedAt, status: response.status, headers: headers,
                    body: response.body, outcome: .proxied(environment: upstream.environmentKey, upstream: upstream.origin, error: nil))
                responder.send(status: response.status, reason: response.reason, headers: headers, body: response.body)
                logger.debug(
                    "\(request.method) \(request.target) -> \(response.status) from \(upstream.environmentKey ?? "direct") \(upstream.origin) in \(ContinuousClock.now - started)")
            case .failure(let failure):
                let code: HTTPStatusCode =
                    switch failure.kind {
                    case .timeout: .Code504GatewayTimeout
                    default: .Code502BadGateway
                    }
                let error = ErrorResponse(
                    code, message: failure.message,
                    details: [
                        ("kind", .string(failure.kind.rawValue)),
                        ("environment", .string(upstream.environmentKey)),
                        ("canonicalHost", .string(upstream.canonicalHost)),
                        ("upstream", .string(upstream.origin)),
                    ])
                self.send(
                    error, kind: failure.kind.rawValue, responder: responder,
                    journal: (
                        request, startedAt,
                        .proxied(environment: upstream.environmentKey, upstream: upstream.origin, error: failure.kind.rawValue)
                    ))
                logger.warning("\(request.method) \(request.target) -> \(code.rawValue): \(failure)")
            }
        }
        return true
    }

    /// Answers a `CONNECT` with a byte-for-byte tunnel to the host and port it names. The environment map does not
    /// apply: what goes through is the client's own TLS, meant for that host.
    func tunnel(_ request: HTTPRequest, responder: Responder) {
        guard let target = ConnectTarget(authority: request.target) else {
            let error = ErrorResponse(
                .Code400BadRequest,
                message: "CONNECT needs a host and a port (CONNECT api.example.com:443), not '\(request.target)'.")
            send(error, kind: "badConnectTarget", responder: responder)
            return
        }
        let started = ContinuousClock.now
        responder.openTunnel(
            to: target, using: client,
            failed: { [logger] failure in
                let code: HTTPStatusCode = failure.kind == .timeout ? .Code504GatewayTimeout : .Code502BadGateway
                let error = ErrorResponse(
                    code, message: failure.message,
                    details: [("kind", .string(failure.kind.rawValue)), ("upstream", .string(target.description))])
                self.send(error, kind: failure.kind.rawValue, responder: responder)
                logger.warning("CONNECT \(target) -> \(code.rawValue): \(failure)")
            },
            closed: { [logger] totals in
                logger.debug(
                    "CONNECT \(target) closed after \(ContinuousClock.now - started): \(totals.fromClient) bytes up, \(totals.fromUpstream) down")
            })
    }

    /// Sends an error with its kind in `X-Orrery-Error`, journaling it first when `journal` says what it answers.
    private func send(
        _ error: ErrorResponse, kind: String, responder: Responder,
        journal: (request: HTTPRequest, startedAt: Date, outcome: JournalEntry.Outcome)? = nil
    ) {
        var headers = error.headers
        headers.add("X-Orrery-Error", kind)
        let body = error.body
        if let journal {
            serviceLogger.log(
                journal.request, responder: responder, startedAt: journal.startedAt, status: error.status, headers: headers,
                body: Payload(body), outcome: journal.outcome)
        }
        responder.send(status: error.status, headers: headers, body: body)
    }
}
