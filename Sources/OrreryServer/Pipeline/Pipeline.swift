import Foundation
import OrreryCore
import OrreryEvent
import OrreryOpenAPI

/// The request pipeline as a function: a request value in, the session it belongs to and a reply value out. The
/// admin API first, then a `CONNECT`'s tunnel, the session's stubs, the upstream, and a 404 that explains the miss.
///
/// No socket, no connection and no event loop in between: every protocol's connection frames its requests into
/// `PipelineRequest` and its replies out through `ReplyExecutor`, and the tests call `decide` directly. One instance
/// per event loop, used only on that loop's thread, so the cached index needs no lock.
final class Pipeline {
    /// What `decide` gives: the session the request belongs to (nil when it names one the daemon does not have),
    /// and the reply.
    struct Decision {
        var session: Session?
        var reply: Reply
    }

    private let registry: StubRegistry
    private let admin: AdminAPI
    /// WireMock's admin API, for the ports that speak it (`--wiremock-port`, `{"wiremock": true}` sessions).
    private let wireMockAdmin: WireMockAdmin?
    private let sessions: SessionRegistry
    /// Nil when misses are not forwarded (no host map, `--no-proxy`, `--offline`).
    private let environments: EnvironmentRegistry?
    private let https: HTTPS
    /// `--offline`: misses say that nothing is forwarded.
    private let isOffline: Bool
    /// This daemon's `Via` entry: a request that already carries it has come round in a loop.
    private let via: String
    /// What rendering a stub's templates may cost per request.
    private let templateBudget: TemplateBudget
    /// `--openapi`: what the specs answer where no stub does.
    private let openAPI: OpenAPIMock?
    /// The stub files' index as this loop last took it, and its generation.
    private var index: StubIndex
    private var generation: Int

    init(
        registry: StubRegistry, admin: AdminAPI, sessions: SessionRegistry, environments: EnvironmentRegistry?,
        https: HTTPS, isOffline: Bool = false, templateBudget: TemplateBudget = TemplateBudget(), via: String = "",
        wireMockAdmin: WireMockAdmin? = nil,
        openAPI: OpenAPIMock? = nil
    ) {
        self.wireMockAdmin = wireMockAdmin
        self.via = via
        self.openAPI = openAPI
        self.templateBudget = templateBudget
        self.registry = registry
        self.admin = admin
        self.sessions = sessions
        self.environments = environments
        self.https = https
        self.isOffline = isOffline
        (index, generation) = registry.snapshot()
    }

    /// The newest published index; a lock is taken only when the registry changed since the last request.
    private var currentIndex: StubIndex {
        if registry.generation != generation {
            (index, generation) = registry.snapshot()
        }
        return index
    }

    /// The session `incoming` belongs to and the reply it gets. Inside an intercepted tunnel the request is already
    /// the absolute URL it is for (see `PipelineRequest`).
    func decide(_ incoming: PipelineRequest) -> Decision {
        let request = incoming.head
        guard let session = sessions.session(for: request, listenerTag: incoming.listenerTag) else {
            let name = request.headers[SessionRegistry.header] ?? ""
            let error = ErrorResponse(
                .Code404NotFound,
                message: "There is no session '\(name)': it has ended, or was never opened (POST /__admin/sessions).",
                details: [("session", .string(name))])
            return Decision(session: nil, reply: .made(Response(error, kind: "noSuchSession"), outcome: nil))
        }
        // Only a port speaks WireMock's dialect: on the daemon's port a session is reached with Orrery's admin API.
        let wireMock =
            incoming.listenerTag != 0 && (session.speaksWireMock || sessions.isWireMockPort(incoming.listenerTag))
        if wireMock, let wireMockAdmin, !request.isAbsoluteForm, request.path.hasPrefix(AdminAPI.prefix) {
            let reply = wireMockAdmin.reply(to: request, peer: incoming.peer, session: session)
            if let stream = reply.stream {
                return Decision(session: session, reply: .stream(stream))
            }
            return Decision(session: session, reply: .answer(Answer(reply.response.encoded, record: nil)))
        }
        if !request.isAbsoluteForm && request.path.hasPrefix(AdminAPI.prefix) {
            let reply = admin.reply(to: request, peer: incoming.peer, session: session, isThroughSessionPort: incoming.listenerTag != 0)
            if let stream = reply.stream { return Decision(session: session, reply: .stream(stream)) }
            return Decision(session: session, reply: .answer(Answer(reply.response.encoded, record: nil)))
        }
        return Decision(
            session: session, reply: reply(to: request, scheme: incoming.scheme, in: session, speaksWireMock: wireMock))
    }

    /// The answer a request that is not for the admin API gets in `session`.
    private func reply(to request: HTTPRequest, scheme: String, in session: Session, speaksWireMock: Bool = false)
        -> Reply
    {
        if request.method == "CONNECT" { return tunnel(request) }
        let index = currentIndex
        if let entry = session.lookup(request, shared: index) {
            let prepared = session.nextResponse(of: entry)
            if isOffline, let target = prepared.proxy {
                let source = entry.stub.location.map { "\($0)" } ?? "stub \(entry.stub.id)"
                return Self.offline(source, forwardingTo: target)
            }
            return Self.answer(request, scheme: scheme, from: entry, prepared: prepared, budget: templateBudget)
        }
        // A GraphQL batch no stub takes whole is answered operation by operation; a miss explains the first
        // operation no stub answers.
        // Nil for the request itself: a copy of it, made up front, was retained field by field and released on
        // every request a spec or an upstream answers.
        var missedOperation: HTTPRequest?
        switch Self.graphQLBatch(request, scheme: scheme, in: session, index: index, budget: templateBudget) {
        case .answered(let reply)?: return reply
        case .missed(let operation)?: missedOperation = operation
        case nil: break
        }
        if let openAPI, let answer = openAPI.answer(request) { return .spec(answer) }
        if speaksWireMock, let target = session.wireMockRecording.target {
            return recordingForward(target)
        }
        if let environments, let plan = ProxyForwarder.plan(request, environments: environments, via: via) { return plan }
        if let openAPI { return .spec(openAPI.notFound(request)) }
        if request.path == "/favicon.ico", request.method == "GET" || request.method == "HEAD" {
            // A browser asks for it on its own: an empty answer, not a miss in the journal.
            return .made(Response(status: 204, headers: HTTPHeaders(), body: Payload([UInt8]())), outcome: nil)
        }
        let nearMisses = session.nearMisses(missedOperation ?? request, shared: index)
        let closest = Self.closestStubs(nearMisses)
        if speaksWireMock {
            let hasStubs = session.stubs.visibleCount(shared: index) > 0
            let answer = WireMockShapes.notMatched(request, closestStubs: closest, hasStubs: hasStubs)
            return .made(answer, outcome: .unmatched(closestStubs: closest))
        }
        let miss = Self.notFound(request, nearMisses: nearMisses, closest: closest, offline: isOffline)
        return .made(Response(miss), outcome: .unmatched(closestStubs: closest))
    }

    /// A miss on a WireMock port that records (`recordings/start`): forwarded to the recording's target, or a
    /// 502 that says why when Orrery is offline.
    private func recordingForward(_ target: ProxyTarget) -> Reply {
        guard isOffline else { return .forward(ProxyForwarder.Plan(upstream: target.upstream, stubTarget: target)) }
        return Self.offline("the recording", forwardingTo: target)
    }

    /// The 502 for a forward to an explicit target (a `proxy:` stub, a WireMock recording) under `--offline`.
    private static func offline(_ source: String, forwardingTo target: ProxyTarget) -> Reply {
        let message = "\(source) forwards to \(target.upstream.origin), and Orrery is offline (--offline)"
        let failure = ErrorResponse(.Code502BadGateway, message: message, details: [("kind", .string("offline"))])
        return .made(
            Response(failure, kind: "offline"),
            outcome: .proxied(environment: nil, upstream: target.upstream.origin, error: "offline"))
    }

    // MARK: - Stub answers

    /// A stub's answer for this request: the prepared one as it is (the request path's usual case: nothing made),
    /// or, for a dynamic response, the delay drawn, the template or page rendered, the fault chosen.
    static func answer(
        _ request: HTTPRequest, scheme: String, from entry: IndexedStub, prepared: PreparedResponse,
        budget: TemplateBudget = TemplateBudget()
    ) -> Reply {
        if let script = prepared.websocket { return .webSocket(entry, script, budget) }
        if let events = prepared.events { return .events(entry, prepared, events) }
        if let target = prepared.proxy {
            return .forward(
                ProxyForwarder.Plan(
                    upstream: target.upstream, stubTarget: target, delayMilliseconds: prepared.delayMilliseconds))
        }
        guard let dynamic = prepared.dynamic else { return .stub(entry, prepared) }
        var generator = SystemRandomNumberGenerator()
        let delay = dynamic.delay == nil ? prepared.delayMilliseconds : dynamic.sampleDelay(using: &generator)
        if let fault = dynamic.fault, fault != .truncatedBody {
            return .fault(fault, delayMilliseconds: delay, outcome: .stub(entry.stub))
        }
        // The answer is made once and finished in place: built from locals, its journal record and encoded
        // response were copied into it, field by field.
        let answer: Answer
        if dynamic.rendersBody {
            let rendered = dynamic.renderAnswer(
                request, parameters: entry.parameters(for: request), scheme: scheme, budget: budget)
            var encoded = dynamic.encoded(status: rendered.status, headers: rendered.headers, body: rendered.body)
            encoded.trailers = prepared.encoded.trailers
            // The usual template or page, without a fault or a bandwidth limit: sent and journaled as a prepared
            // answer is. An answer object with its journal record (the stub's outcome copied into it, read back
            // field by field) cost about 1,800 instructions more.
            guard dynamic.fault != nil || dynamic.throttle != nil else {
                return .rendered(
                    entry, encoded, headers: rendered.headers, body: rendered.body, delayMilliseconds: delay)
            }
            answer = Answer(
                encoded,
                record: JournalRecord(
                    status: HTTPStatus(rendered.status), headers: rendered.headers, body: rendered.body,
                    outcome: .stub(entry.stub)),
                delayMilliseconds: delay, bytesPerSecond: dynamic.throttle?.bytesPerSecond)
        } else {
            answer = Answer(
                prepared.encoded(for: request.headers),
                record: JournalRecord(
                    status: HTTPStatus(prepared.status), headers: prepared.headers, body: prepared.body,
                    outcome: .stub(entry.stub)),
                delayMilliseconds: delay, bytesPerSecond: dynamic.throttle?.bytesPerSecond)
        }
        if dynamic.fault == .truncatedBody {
            // The answer it would have been, cut: the head with the full length, half the body.
            let sent = Fault.truncatedLength(of: answer.response.body.count)
            answer.truncatedBodyBytes = sent
            answer.record?.body = answer.response.body.withUnsafeBytes { Payload($0.prefix(sent)) }
            answer.record?.fault = Fault.truncatedBody.rawValue
        }
        return .answer(answer)
    }

    // MARK: - CONNECT

    /// A `CONNECT` is never a stub's: it is intercepted when its host is one Orrery intercepts, tunnelled blind
    /// when the proxy is on, and refused with a 404 otherwise.
    private func tunnel(_ request: HTTPRequest) -> Reply {
        if https.intercepts, let target = ConnectTarget(authority: request.target), https.intercepts(target.host) {
            do {
                return .intercept(target, try https.context())
            } catch {
                let failure = ErrorResponse(
                    .Code500InternalServerError, message: "CONNECT \(request.target) could not be intercepted: \(error)")
                return .made(Response(failure, kind: "tlsError"), outcome: nil)
            }
        }
        guard environments != nil else {
            let reason = isOffline ? "Orrery is offline (--offline)" : "forwarding is off (--no-proxy, or no host map)"
            return .made(Response(ErrorResponse(.Code404NotFound, message: "CONNECT \(request.target) is not tunnelled: \(reason).")), outcome: nil)
        }
        guard let target = ConnectTarget(authority: request.target) else {
            let error = ErrorResponse(
                .Code400BadRequest,
                message: "CONNECT needs a host and a port (CONNECT api.example.com:443), not '\(request.target)'.")
            return .made(Response(error, kind: "badConnectTarget"), outcome: nil)
        }
        return .tunnel(target)
    }

    // MARK: - Misses

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
