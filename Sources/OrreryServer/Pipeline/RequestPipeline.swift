import Foundation
import Logging
import OrreryCore
import OrreryEvent

/// Answers the requests of one event loop: admin calls, then stubs, then a 404 that explains the miss.
///
/// One instance per loop, used only on that loop's thread, so the cached index needs no lock.
final class RequestPipeline: HTTPRequestHandler {
    private let registry: StubRegistry
    private let admin: AdminAPI
    /// Nil when the proxy is off (no host map, or `--no-proxy`).
    private let proxy: ProxyForwarder?
    private let serviceLogger: NetworkServiceLogger
    private let sessions: SessionRegistry
    private let https: HTTPS
    private let executor: ReplyExecutor
    /// `--offline`: misses say that nothing is forwarded.
    private let isOffline: Bool
    private let logger: Logger
    private var index: StubIndex
    private var generation: Int
    /// What sessions see: the same without the main session's API stubs.
    private var sharedIndex: StubIndex
    private var sharedGeneration: Int
    private let isDebugLogging: Bool

    init(
        registry: StubRegistry, admin: AdminAPI, proxy: ProxyForwarder?, serviceLogger: NetworkServiceLogger,
        sessions: SessionRegistry, https: HTTPS, isOffline: Bool = false, templateBudget: TemplateBudget = TemplateBudget(),
        logger: Logger
    ) {
        self.sessions = sessions
        self.https = https
        self.isOffline = isOffline
        self.registry = registry
        self.admin = admin
        self.proxy = proxy
        self.serviceLogger = serviceLogger
        executor = ReplyExecutor(serviceLogger: serviceLogger, proxy: proxy, templateBudget: templateBudget)
        self.logger = logger
        (index, generation) = registry.snapshot()
        (sharedIndex, sharedGeneration) = (index, generation)
        isDebugLogging = logger.logLevel <= .debug
    }

    /// The newest published index; a lock is taken only when the registry changed since the last request.
    private var currentIndex: StubIndex {
        if registry.generation != generation {
            (index, generation) = registry.snapshot()
        }
        return index
    }

    /// The newest index sessions see, taken as `currentIndex` is.
    private var currentSharedIndex: StubIndex {
        if registry.generation != sharedGeneration {
            (sharedIndex, sharedGeneration) = registry.sharedSnapshot()
        }
        return sharedIndex
    }

    func handle(_ request: HTTPRequest, responder: Responder) {
        // Inside an intercepted tunnel a request names only its path: it is read as the https URL it is for.
        let request = responder.interceptedAuthority.map { Self.absolute(request, authority: $0) } ?? request
        guard let session = sessions.session(for: request, listenerTag: responder.listenerTag) else {
            // The session named in the header has ended (or never was).
            let error = ErrorResponse(
                .Code404NotFound,
                message: "There is no session '\(request.headers[SessionRegistry.header] ?? "")': it has ended, or was never opened (POST /__admin/sessions).")
            responder.send(MadeResponse(error, kind: "noSuchSession").encoded)
            return
        }
        if !request.isAbsoluteForm && request.path.hasPrefix(AdminAPI.prefix) {
            admin.handle(request, responder: responder, session: session)
            return
        }
        let startedAt = serviceLogger.isCapturing ? Date() : .distantPast
        let exchange = Exchange(request: request, responder: responder, startedAt: startedAt, session: session)
        let reply = decide(request, session: session)
        executor.carryOut(reply, for: exchange)
        if isDebugLogging {
            logDecision(reply, for: request)
        } else if case .made(let response, .unmatched?) = reply {
            // At the default level a miss is still worth its line: it is what a user looks for first.
            logger.info("\(request.method) \(request.target) -> \(response.status): no stub matches")
        }
    }

    /// The answer a request gets: a `CONNECT` tunnel, a stub, the upstream, or a 404 that explains the miss.
    private func decide(_ request: HTTPRequest, session: Session) -> Reply {
        if request.method == "CONNECT" { return tunnel(request) }
        let index = session.isMain ? currentIndex : currentSharedIndex
        if let entry = session.lookup(request, shared: index) { return .stub(entry, session.nextResponse(of: entry)) }
        if let proxy, let plan = proxy.plan(request) { return plan }
        if request.path == "/favicon.ico", request.method == "GET" || request.method == "HEAD" {
            // A browser asks for it on its own: an empty answer, not a miss in the journal.
            return .made(MadeResponse(status: 204, headers: HTTPHeaders(), body: Payload([UInt8]())), outcome: nil)
        }
        let nearMisses = session.nearMisses(request, shared: index)
        let closest = Self.closestStubs(nearMisses)
        let miss = Self.notFound(request, nearMisses: nearMisses, closest: closest, offline: isOffline)
        return .made(MadeResponse(miss), outcome: .unmatched(closestStubs: closest))
    }

    /// A request from inside an intercepted tunnel as the absolute https URL it is for (the default port left out,
    /// as a client writes it), so that stubs with a `host`, the host map and the proxy see where it was going.
    static func absolute(_ request: HTTPRequest, authority: String) -> HTTPRequest {
        guard !request.isAbsoluteForm else { return request }
        let host = authority.hasSuffix(":443") ? String(authority.dropLast(4)) : authority
        return HTTPRequest(method: request.method, target: "https://" + host + request.target, headers: request.headers, body: request.body)
    }

    /// A `CONNECT` is never a stub's: it is intercepted when its host is one Orrery intercepts, tunnelled blind
    /// when the proxy is on, and refused with a 404 otherwise.
    private func tunnel(_ request: HTTPRequest) -> Reply {
        if https.intercepts, let target = ConnectTarget(authority: request.target), https.intercepts(target.host) {
            do {
                return .intercept(target, try https.context())
            } catch {
                let failure = ErrorResponse(
                    .Code500InternalServerError, message: "CONNECT \(request.target) could not be intercepted: \(error)")
                return .made(MadeResponse(failure, kind: "tlsError"), outcome: nil)
            }
        }
        guard proxy != nil else {
            let reason = isOffline ? "Orrery is offline (--offline)" : "forwarding is off (--no-proxy, or no host map)"
            return .made(MadeResponse(ErrorResponse(.Code404NotFound, message: "CONNECT \(request.target) is not tunnelled: \(reason).")), outcome: nil)
        }
        guard let target = ConnectTarget(authority: request.target) else {
            let error = ErrorResponse(
                .Code400BadRequest,
                message: "CONNECT needs a host and a port (CONNECT api.example.com:443), not '\(request.target)'.")
            return .made(MadeResponse(error, kind: "badConnectTarget"), outcome: nil)
        }
        return .tunnel(target)
    }

    private func logDecision(_ reply: Reply, for request: HTTPRequest) {
        switch reply {
        case .stub(let entry, let prepared):
            logger.debug("\(request.method) \(request.target) -> \(prepared.status) from stub \(entry.stub.label)")
        case .made(let response, _):
            logger.debug("\(request.method) \(request.target) -> \(response.status)")
        case .intercept(let target, _):
            logger.debug("CONNECT \(target) intercepted")
        case .forward, .tunnel:
            break
        }
    }

    /// The closest stubs to a miss, with what differed: in the 404's body and in the journal.
    static func closestStubs(_ nearMisses: [StubIndex.NearMiss]) -> JSONValue {
        .array(
            nearMisses.map { miss in
                .object([
                    ("id", .string(miss.stub.stub.id)),
                    ("name", .string(miss.stub.stub.name)),
                    ("source", .string(miss.stub.stub.location?.description ?? "admin API")),
                    ("differences", .array(miss.mismatches.map(\.json))),
                ])
            })
    }

    /// The 404 for a request no stub answers: the request as seen, and the closest stubs with what differed.
    static func notFound(
        _ request: HTTPRequest, nearMisses: [StubIndex.NearMiss], closest: JSONValue, offline: Bool = false
    ) -> ErrorResponse {
        var message = "No stub matches \(request.method) \(request.pathAndQuery)."
        if let first = nearMisses.first, let difference = first.mismatches.first {
            message += " Closest: \(first.stub.stub.label), whose \(difference.field)"
            message += difference.name.map { " '\($0)'" } ?? ""
            message += " differs (expected \(difference.expected))."
        }
        if offline { message += " Orrery is offline (--offline): nothing is forwarded to an upstream." }
        return ErrorResponse(
            .Code404NotFound, message: message,
            details: [
                (
                    "request",
                    .object([
                        ("method", .string(request.method)), ("path", .string(request.path)),
                        ("query", .string(String(request.rawQuery))), ("host", .string(request.host)),
                    ])
                ),
                ("closestStubs", closest),
            ] + (offline ? [("offline", .bool(true))] : []))
    }
}
