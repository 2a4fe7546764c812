import Foundation
import Logging
import OrreryCore
import OrreryEvent

/// The admin API under `/__admin/`: JSON in and out; every error carries the status's `failureReason` and
/// `recoverySuggestion`.
final class AdminAPI: Sendable {
    static let prefix = "/__admin"

    private let registry: StubRegistry
    private let environments: EnvironmentRegistry?
    let serviceLogger: NetworkServiceLogger
    /// Whether misses are forwarded (a host map, and no `--no-proxy`).
    private let isProxying: Bool
    private let logger: Logger
    private let startedAt = Date()
    private let threads: Int
    /// Needed from clients that are not on loopback; without one, only loopback clients may use the API.
    private let token: String?
    /// `--record`'s folder: where `POST /__admin/recordings/start` records when its body names none.
    let defaultRecordingFolder: String?

    init(
        registry: StubRegistry, environments: EnvironmentRegistry?, serviceLogger: NetworkServiceLogger, isProxying: Bool,
        logger: Logger, threads: Int, token: String?, defaultRecordingFolder: String? = nil
    ) {
        self.defaultRecordingFolder = defaultRecordingFolder
        self.registry = registry
        self.environments = environments
        self.serviceLogger = serviceLogger
        self.isProxying = isProxying
        self.logger = logger
        self.threads = threads
        self.token = token
    }

    func handle(_ request: HTTPRequest, responder: Responder) {
        let reply: AdminReply
        if let refusal = authorize(request, remoteAddress: responder.remoteAddress) {
            reply = refusal
        } else {
            reply = route(request)
        }
        responder.send(status: reply.status, headers: reply.headers, body: reply.body)
    }

    private func authorize(_ request: HTTPRequest, remoteAddress: String) -> AdminReply? {
        let isLoopback = remoteAddress.hasPrefix("127.") || remoteAddress == "::1" || remoteAddress == "::ffff:127.0.0.1"
        if let token {
            let presented = request.headers["X-Orrery-Admin-Token"]
                ?? request.headers["Authorization"].map { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : $0 }
            if presented == token || (isLoopback && presented == nil) { return nil }
            return .error(.Code401Unauthorized, "The admin API needs its token in 'X-Orrery-Admin-Token' or 'Authorization: Bearer'.")
        }
        guard isLoopback else {
            return .error(.Code403Forbidden, "The admin API answers loopback clients only; start Orrery with --admin-token to allow others.")
        }
        return nil
    }

    private func route(_ request: HTTPRequest) -> AdminReply {
        var path = request.path.dropFirst(Self.prefix.count)
        while path.hasSuffix("/") { path = path.dropLast() }
        let parts = path.split(separator: "/").map(String.init)
        switch (request.method, parts.first, parts.count) {
        case ("GET", "health", 1): return health()
        case ("GET", "stubs", 1): return listStubs()
        case ("POST", "stubs", 1): return addStub(request)
        case ("POST", "stubs", 2) where parts[1] == "reload": return reload()
        case ("GET", "stubs", 2): return stub(id: parts[1])
        case ("PUT", "stubs", 2): return replaceStub(id: parts[1], request)
        case ("DELETE", "stubs", 2): return removeStub(id: parts[1])
        case ("GET", "environments", 1): return listEnvironments()
        case ("PUT", "environments", 2): return chooseEnvironment(canonicalHost: parts[1], request)
        case (_, "environments", 1): return .methodNotAllowed(request, allowed: "GET")
        case (_, "environments", 2): return .methodNotAllowed(request, allowed: "PUT")
        case (_, "health", 1): return .methodNotAllowed(request, allowed: "GET")
        case (_, "stubs", 1): return .methodNotAllowed(request, allowed: "GET, POST")
        case (_, "stubs", 2):
            return .methodNotAllowed(request, allowed: parts[1] == "reload" || parts[1] == "rewind" ? "POST" : "GET, PUT, DELETE")
        case ("GET", "requests", 1): return listRequests(request)
        case ("DELETE", "requests", 1): return clearRequests()
        case ("GET", "requests", 2) where parts[1] == "unmatched": return unmatchedRequests(request)
        case ("POST", "requests", 2) where parts[1] == "count": return countRequests(request)
        case ("POST", "requests", 2) where parts[1] == "find": return findRequests(request)
        case (_, "requests", 2) where parts[1] == "count" || parts[1] == "find": return .methodNotAllowed(request, allowed: "POST")
        case ("GET", "requests", 2): return journalEntry(id: parts[1])
        case (_, "requests", 1): return .methodNotAllowed(request, allowed: "GET, DELETE")
        case (_, "requests", 2): return .methodNotAllowed(request, allowed: "GET")
        case ("POST", "logging", 2) where parts[1] == "start": return startLogging(request)
        case ("POST", "logging", 2) where parts[1] == "stop": return stopLogging()
        case ("GET", "logging", 1): return loggingStatus()
        case (_, "logging", 1): return .methodNotAllowed(request, allowed: "GET")
        case (_, "logging", 2) where parts[1] == "start" || parts[1] == "stop": return .methodNotAllowed(request, allowed: "POST")
        case ("GET", "requests.har", 1): return har()
        case (_, "requests.har", 1): return .methodNotAllowed(request, allowed: "GET")
        case ("POST", "recordings", 2) where parts[1] == "start": return startRecording(request)
        case ("POST", "recordings", 2) where parts[1] == "stop": return stopRecording()
        case ("GET", "recordings", 1): return recordingStatus()
        case (_, "recordings", 1): return .methodNotAllowed(request, allowed: "GET")
        case (_, "recordings", 2) where parts[1] == "start" || parts[1] == "stop": return .methodNotAllowed(request, allowed: "POST")
        case ("POST", "stubs", 2) where parts[1] == "rewind":
            registry.rewindSequences()
            return .json(.object([("rewound", .bool(true))]))
        default:
            return .error(.Code404NotFound, "There is no admin endpoint \(request.method) \(request.path).")
        }
    }

    // MARK: - Endpoints

    private func health() -> AdminReply {
        let index = registry.index
        return .json(
            .object([
                ("status", .string("ok")),
                ("version", .string(OrreryVersion.current)),
                ("uptimeSeconds", .int(Int(Date().timeIntervalSince(startedAt)))),
                ("threads", .int(threads)),
                ("stubs", .int(index.count)),
                ("stubFiles", .int(registry.fileCount)),
                ("proxy", .bool(isProxying)),
            ]))
    }

    private func listStubs() -> AdminReply {
        let stubs = registry.index.stubs.map { Self.describe($0.stub) }
        return .json(.object([("count", .int(stubs.count)), ("stubs", .array(stubs))]))
    }

    private func stub(id: String) -> AdminReply {
        guard let entry = registry.index.stub(id: id) else { return .noSuchStub(id) }
        return .json(Self.describe(entry.stub))
    }

    private func addStub(_ request: HTTPRequest) -> AdminReply {
        switch decodeStub(request, id: nil) {
        case .failure(let reply): return reply
        case .success(let stub):
            registry.add(stub)
            logger.info("stub added through the admin API", metadata: ["id": "\(stub.id)"])
            return .json(Self.describe(stub), status: 201)
        }
    }

    private func replaceStub(id: String, _ request: HTTPRequest) -> AdminReply {
        switch decodeStub(request, id: id) {
        case .failure(let reply): return reply
        case .success(let stub):
            guard registry.replace(stub) else { return .noSuchStub(id) }
            return .json(Self.describe(stub))
        }
    }

    private func removeStub(id: String) -> AdminReply {
        guard registry.remove(id: id) else { return .noSuchStub(id) }
        return .json(.object([("deleted", .string(id))]))
    }

    private func reload() -> AdminReply {
        do {
            let (stubs, files) = try registry.reload()
            logger.info("stubs reloaded through the admin API", metadata: ["stubs": "\(stubs)", "files": "\(files)"])
            return .json(.object([("reloaded", .bool(true)), ("stubs", .int(stubs)), ("files", .int(files))]))
        } catch {
            logger.error("reload failed; the running stubs stay:\n\(error)")
            return .sourceErrors(error, message: "The stubs were not reloaded; the running set stays as it was.")
        }
    }

    private func listEnvironments() -> AdminReply {
        guard let environments else {
            return .error(.Code404NotFound, "There is no host map (config/hosts.json), so there are no environments.")
        }
        return .json(environments.json)
    }

    /// `{"key": "QA"}`, or `{"key": "USER", "host": "127.0.0.1:9001", "protocol": "http"}`.
    private func chooseEnvironment(canonicalHost: String, _ request: HTTPRequest) -> AdminReply {
        guard let environments else {
            return .error(.Code404NotFound, "There is no host map (config/hosts.json), so there are no environments.")
        }
        guard let body = try? JSONValue.parse(request.body), let key = body["key"]?.stringValue else {
            return .error(.Code400BadRequest, "The body must be JSON with a \"key\", such as {\"key\": \"QA\"}.")
        }
        let choice = EnvironmentChoice(key: key, host: body["host"]?.stringValue, protocol: body["protocol"]?.stringValue)
        do {
            try environments.choose(choice, forCanonicalHost: PercentDecoding.decode(canonicalHost))
        } catch {
            return .error(.Code422UnprocessableContent, error.description)
        }
        logger.info("environment of \(canonicalHost) is now \(key)\(choice.host.map { " (\($0))" } ?? "")")
        return .json(environments.json)
    }

    /// A request body parsed as JSON for the stub decoder, or the 422 that says where it is not JSON.
    func parseBody(_ request: HTTPRequest) -> Result<SourceNode, AdminReply> {
        do {
            return .success(try StubLoader.parse(request.body, isJSON: true))
        } catch {
            let source = SourceError(file: "request body", line: error.line, message: error.message)
            return .failure(.sourceErrors(SourceErrors([source]), message: "The body is not valid JSON."))
        }
    }

    /// A decoder for stub-file JSON sent in a request body; `bodyFile` paths resolve in the stubs folder.
    func bodyDecoder(makeID: @escaping (Int) -> String) -> StubDecoder {
        let root = URL(fileURLWithPath: registry.stubsFolder)
        return StubDecoder(displayPath: "request body", directory: root, stubsRoot: root, makeID: makeID)
    }

    /// Parses a stub from a request body (the stub-file format, as JSON).
    private func decodeStub(_ request: HTTPRequest, id: String?) -> Result<Stub, AdminReply> {
        let node: SourceNode
        switch parseBody(request) {
        case .success(let parsed): node = parsed
        case .failure(let reply): return .failure(reply)
        }
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

/// An admin API answer, ready to send.
struct AdminReply: Error {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    static func json(_ value: JSONValue, status: Int = 200) -> AdminReply {
        AdminReply(
            status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: Array((value.prettyEncoded + "\n").utf8))
    }

    static func error(_ code: HTTPStatusCode, _ message: String, details: [(String, JSONValue)] = []) -> AdminReply {
        let error = ErrorResponse(code, message: message, details: details)
        return AdminReply(status: error.status, headers: error.headers, body: error.body)
    }

    /// 405 with the `Allow` header a client needs to try again.
    static func methodNotAllowed(_ request: HTTPRequest, allowed: String) -> AdminReply {
        var reply = AdminReply.error(.Code405MethodNotAllowed, "\(request.method) is not supported on \(request.path); use \(allowed).")
        reply.headers.add("Allow", allowed)
        return reply
    }

    static func noSuchStub(_ id: String) -> AdminReply {
        .error(.Code404NotFound, "There is no stub with id '\(id)'.")
    }

    static func sourceErrors(_ errors: SourceErrors, message: String) -> AdminReply {
        let list: [JSONValue] = errors.errors.map { error in
            .object([
                ("file", .string(error.file)), ("line", .int(error.line)), ("message", .string(error.message)),
                ("text", .string(error.description)),
            ])
        }
        return .error(.Code422UnprocessableContent, message, details: [("errors", .array(list))])
    }
}

/// Orrery's version, reported by `--version` and the health endpoint.
public enum OrreryVersion {
    public static let current = "0.1.0"
}
