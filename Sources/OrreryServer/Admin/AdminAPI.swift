import Foundation
import Logging
import OrreryCore
import OrreryEvent
import Synchronization

/// The admin API under `/__admin/`: JSON in and out; every error carries the status's `failureReason` and
/// `recoverySuggestion`. Its endpoints are the route table in `AdminAPI+Routes.swift`.
final class AdminAPI: Sendable {
    static let prefix = "/__admin"

    let registry: StubRegistry
    let sessions: SessionRegistry
    let https: HTTPS
    private let environments: EnvironmentRegistry?
    let serviceLogger: NetworkServiceLogger
    /// Whether misses are forwarded (a host map, and no `--no-proxy`).
    private let isProxying: Bool
    let logger: Logger
    private let startedAt = Date()
    private let threads: Int
    /// The token and the listening address; the port is known once the daemon has bound it (`listening`).
    private let access: Mutex<AdminAccess>
    /// `--record`'s folder: where `POST /__admin/recordings/start` records when its body names none.
    let defaultRecordingFolder: String?
    /// What `GET /__admin/metrics` scrapes.
    let metrics: DaemonMetrics?

    init(
        registry: StubRegistry, sessions: SessionRegistry, https: HTTPS, environments: EnvironmentRegistry?,
        serviceLogger: NetworkServiceLogger, isProxying: Bool, logger: Logger, threads: Int, token: String?,
        defaultRecordingFolder: String? = nil, metrics: DaemonMetrics? = nil
    ) {
        self.metrics = metrics
        self.defaultRecordingFolder = defaultRecordingFolder
        self.registry = registry
        self.sessions = sessions
        self.https = https
        self.environments = environments
        self.serviceLogger = serviceLogger
        self.isProxying = isProxying
        self.logger = logger
        self.threads = threads
        access = Mutex(AdminAccess(token: token, listenHost: "127.0.0.1", port: 0))
    }

    /// Tells the API the address the daemon listens on, once bound: a request's `Origin` and `Host` must name it
    /// (or loopback) unless it carries the token.
    func listening(host: String, port: Int) {
        access.withLock {
            $0.listenHost = host
            $0.port = port
        }
    }

    /// The answer to an admin call, as a value: the 401 or 403 when it may not use the API, else its endpoint's.
    /// - Parameter isThroughSessionPort: it came through a session's own port, which answers for that session alone.
    func reply(to request: HTTPRequest, peer: String, session: Session, isThroughSessionPort: Bool) -> AdminReply {
        // A probe comes by the pod's address, under whatever name: health says nothing a token guards.
        if request.method == "GET", request.path == Self.prefix + "/health" { return health(session: session) }
        return authorize(request, remoteAddress: peer)
            ?? route(request, session: session, isThroughSessionPort: isThroughSessionPort)
    }

    /// `GET /__admin/metrics`: the Prometheus text format.
    func metricsText() -> AdminReply {
        guard let metrics else { return .error(.Code404NotFound, "This daemon keeps no metrics.") }
        return AdminReply(
            status: 200, headers: ["Content-Type": DaemonMetrics.contentType, "Cache-Control": "no-store"],
            body: Array(metrics.scrape().utf8))
    }

    /// Nil when the request may use the API, else the 401 or 403 that says why not.
    func authorize(_ request: HTTPRequest, remoteAddress: String) -> AdminReply? {
        access.withLock { $0 }.refusal(request, remoteAddress: remoteAddress)
    }

    // MARK: - Endpoints

    func health(session: Session) -> AdminReply {
        var members: [(String, JSONValue)] = [
            ("status", .string("ok")),
            ("version", .string(OrreryVersion.current)),
            ("uptimeSeconds", .int(Int(Date().timeIntervalSince(startedAt)))),
            ("threads", .int(threads)),
            ("stubs", .int(session.stubs.visibleCount(shared: registry.index))),
            ("stubFiles", .int(registry.fileCount)),
            ("proxy", .bool(isProxying)),
            ("sessions", .int(sessions.count)),
        ]
        if let id = session.id { members.append(("session", .string(id))) }
        return .json(.object(members))
    }

    /// The stubs a session sees, in the order they are tried on a tie: the shared ones, then its own.
    func visibleStubs(_ session: Session) -> [IndexedStub] {
        session.stubs.visible(shared: registry.index)
    }

    func listStubs(session: Session) -> AdminReply {
        let stubs = visibleStubs(session).map { Self.describe($0.stub) }
        return .json(.object([("count", .int(stubs.count)), ("stubs", .array(stubs))]))
    }

    func stub(id: String, session: Session) -> AdminReply {
        guard let entry = session.stubs.stub(id: id, shared: registry.index) else { return .noSuchStub(id) }
        return .json(Self.describe(entry.stub))
    }

    /// `POST /__admin/stubs`: the stub-file format, as JSON or YAML: one stub (answered with it), or a list or
    /// `{base, stubs}` (answered with all of them, added only if every one can be).
    func addStub(_ request: HTTPRequest, session: Session) -> AdminReply {
        let node: SourceNode
        switch parseBody(request, allowsYAML: true) {
        case .success(let parsed): node = parsed
        case .failure(let reply): return reply
        }
        let isFile: Bool
        switch node.value {
        case .array: isFile = true
        case .object: isFile = node["stubs"] != nil || node["base"] != nil
        default: isFile = false
        }
        guard isFile else {
            switch decodeStub(node, id: nil) {
            case .failure(let reply): return reply
            case .success(let stub):
                if let refusal = refusal(adding: stub, session: session) { return refusal }
                guard add(stub, session: session) else { return Self.taken(stub.id) }
                return .json(Self.describe(stub), status: 201)
            }
        }
        var decoder = bodyDecoder(makeID: { _ in StubID.random() })
        var stubs = decoder.decodeFile(node)
        guard decoder.errors.isEmpty else {
            return .sourceErrors(SourceErrors(decoder.errors), message: "The stubs are not valid; none was added.")
        }
        for index in stubs.indices { stubs[index].location = nil }
        let ids = stubs.map(\.id)
        if let repeated = ids.first(where: { id in ids.filter { $0 == id }.count > 1 }) {
            return .error(.Code422UnprocessableContent, "The id '\(repeated)' is given to more than one stub; none was added.")
        }
        for stub in stubs {
            if let refusal = refusal(adding: stub, session: session) { return refusal }
        }
        for stub in stubs where !add(stub, session: session) { return Self.taken(stub.id) }
        return .json(.object([("stubs", .array(stubs.map(Self.describe)))]), status: 201)
    }

    /// Why a stub cannot be added (its id names an endpoint, or is taken), or nil when it can.
    private func refusal(adding stub: Stub, session: Session) -> AdminReply? {
        guard Self.isAddressable(stubID: stub.id) else {
            return .error(
                .Code422UnprocessableContent,
                "The id '\(stub.id)' names the admin endpoint \(Self.prefix)/stubs/\(stub.id), so the stub could not be read, replaced or removed by id; choose another id.")
        }
        return session.stubs.stub(id: stub.id, shared: registry.index) != nil ? Self.taken(stub.id) : nil
    }

    private static func taken(_ id: String) -> AdminReply {
        .error(
            .Code409Conflict,
            "A stub with id '\(id)' already exists; replace it with PUT \(Self.prefix)/stubs/\(id), or leave the id out to get a new one.")
    }

    /// Adds the stub to the session; false when its id was taken meanwhile.
    private func add(_ stub: Stub, session: Session) -> Bool {
        let isAdded = registry.prepareAdded(stub).map { session.stubs.add($0, shared: registry.index) } ?? false
        if isAdded {
            logger.info("stub added through the admin API", metadata: ["id": "\(stub.id)", "session": "\(session.id ?? "main")"])
        }
        return isAdded
    }

    /// Whether `GET /__admin/stubs/{id}` reaches the stub: an id such as `reload` is a path of its own in the table.
    static func isAddressable(stubID id: String) -> Bool {
        guard case .route(let route, _) = router.resolve(method: "GET", path: ["__admin", "stubs", id]) else { return false }
        return route.pattern == AdminPathPattern("/__admin/stubs/{id}")
    }

    /// `DELETE /__admin/stubs`: every stub added over the API goes; stubs from files stay.
    func removeAPIStubs(session: Session) -> AdminReply {
        let removed = session.stubs.removeAll()
        logger.info("\(removed) stubs added through the admin API removed")
        return .json(.object([("apiStubsRemoved", .int(removed)), ("stubs", .int(visibleStubs(session).count))]))
    }

    func rewind(session: Session) -> AdminReply {
        session.sequences.rewind()
        return .json(.object([("rewound", .bool(true))]))
    }

    func replaceStub(id: String, _ request: HTTPRequest, session: Session) -> AdminReply {
        switch decodeStub(request, id: id) {
        case .failure(let reply): return reply
        case .success(let stub):
            guard let prepared = registry.prepareAdded(stub), session.stubs.replace(prepared, shared: registry.index) else {
                return .noSuchStub(id)
            }
            return .json(Self.describe(stub))
        }
    }

    func removeStub(id: String, session: Session) -> AdminReply {
        guard session.stubs.remove(id: id, shared: registry.index) else { return .noSuchStub(id) }
        return .json(.object([("deleted", .string(id))]))
    }

    /// `GET /__admin/ca.pem`: the local CA's certificate (made now if there is none yet), never its key.
    func caCertificate() -> AdminReply {
        do {
            let pem = try https.authority().certificate.pem()
            var reply = AdminReply(
                status: 200, headers: ["Content-Type": "application/x-pem-file", "Cache-Control": "no-store"], body: pem)
            reply.headers.add("Content-Disposition", "attachment; filename=\"orrery-ca.pem\"")
            return reply
        } catch {
            return .error(.Code500InternalServerError, "The local CA cannot be used: \(error)")
        }
    }

    func reload() -> AdminReply {
        do {
            let (stubs, files) = try registry.reload()
            logger.info("stubs reloaded through the admin API", metadata: ["stubs": "\(stubs)", "files": "\(files)"])
            return .json(.object([("reloaded", .bool(true)), ("stubs", .int(stubs)), ("files", .int(files))]))
        } catch {
            logger.error("reload failed; the running stubs stay:\n\(error)")
            return .sourceErrors(
                error, message: "The stubs were not reloaded; the running set stays as it was.",
                failureReason: "A stub file or the host map has errors.",
                recoverySuggestion: "Fix the files listed in errors (each with its line), then reload again.")
        }
    }

    func listEnvironments() -> AdminReply {
        guard let environments else {
            return .error(.Code404NotFound, "There is no host map (config/hosts.json), so there are no environments.")
        }
        return .json(environments.json)
    }

    /// `{"key": "QA"}`, or `{"key": "USER", "host": "127.0.0.1:9001", "protocol": "http"}`.
    func chooseEnvironment(canonicalHost: String, _ request: HTTPRequest) -> AdminReply {
        guard let environments else {
            return .error(.Code404NotFound, "There is no host map (config/hosts.json), so there are no environments.")
        }
        guard let body = try? JSONValue.parse(request.body), let key = body["key"]?.stringValue else {
            return .error(.Code400BadRequest, "The body must be JSON with a \"key\", such as {\"key\": \"QA\"}.")
        }
        let choice = EnvironmentChoice(key: key, host: body["host"]?.stringValue, protocol: body["protocol"]?.stringValue)
        do {
            try environments.choose(choice, forCanonicalHost: canonicalHost)
        } catch {
            return .error(.Code422UnprocessableContent, error.description)
        }
        logger.info("environment of \(canonicalHost) is now \(key)\(choice.host.map { " (\($0))" } ?? "")")
        return .json(environments.json)
    }

    /// A request body parsed as JSON for the stub decoder, or the 422 that says where it is not JSON.
    func parseBody(_ request: HTTPRequest) -> AdminInput<SourceNode> {
        parseBody(request, allowsYAML: false)
    }

    /// A request body parsed for the stub decoder: JSON, or with `allowsYAML` YAML too (a YAML content type, or a
    /// body that does not open as JSON does), or the 422 that says where it does not parse.
    func parseBody(_ request: HTTPRequest, allowsYAML: Bool) -> AdminInput<SourceNode> {
        let first = request.body.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        let isYAML =
            allowsYAML
            && (request.headers["Content-Type"]?.lowercased().contains("yaml") == true
                || (first != UInt8(ascii: "{") && first != UInt8(ascii: "[")))
        do {
            return .success(try StubLoader.parse(request.body, isJSON: !isYAML))
        } catch {
            let source = SourceError(file: "request body", line: error.line, message: error.message)
            return .failure(
                .sourceErrors(
                    SourceErrors([source]), message: "The body is not valid \(isYAML ? "YAML" : "JSON").",
                    failureReason: "The body could not be parsed as \(isYAML ? "YAML" : "JSON").",
                    recoverySuggestion: allowsYAML
                        ? "Send the stub-file format as JSON or YAML (one stub, a list, or {base, stubs}); errors gives the line."
                        : "Send JSON; errors gives the line where it stops being JSON."))
        }
    }

    /// A decoder for stub-file JSON sent in a request body; `bodyFile` paths resolve in the stubs folder.
    func bodyDecoder(makeID: @escaping (Int) -> String) -> StubDecoder {
        let root = URL(fileURLWithPath: registry.stubsFolder)
        return StubDecoder(displayPath: "request body", directory: root, stubsRoot: root, makeID: makeID)
    }

    /// Parses a stub from a request body (the stub-file format, as JSON).
    private func decodeStub(_ request: HTTPRequest, id: String?) -> AdminInput<Stub> {
        switch parseBody(request) {
        case .success(let node): return decodeStub(node, id: id)
        case .failure(let reply): return .failure(reply)
        }
    }

    /// Decodes one stub of the stub-file format.
    private func decodeStub(_ node: SourceNode, id: String?) -> AdminInput<Stub> {
        var decoder = bodyDecoder(makeID: { _ in id ?? StubID.random() })
        guard var stub = decoder.decodeSingle(node), decoder.errors.isEmpty else {
            return .failure(.sourceErrors(SourceErrors(decoder.errors), message: "The stub is not valid."))
        }
        if let id { stub.id = id }
        stub.location = nil
        return .success(stub)
    }

    static func describe(_ stub: Stub) -> JSONValue {
        .object([
            ("id", .string(stub.id)),
            ("name", .string(stub.name)),
            ("source", .string(stub.location?.description ?? "admin API")),
            ("priority", stub.priority.map { .int($0) } ?? .null),
            ("specificity", .int(stub.request.specificity)),
            ("stub", stub.definition),
        ])
    }
}

/// Orrery's version, reported by `--version` and the health endpoint.
public enum OrreryVersion {
    public static let current = "0.1.0"
}
