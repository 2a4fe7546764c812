import Foundation
import Logging
import OrreryCore
import OrreryEvent
import OrreryOpenAPI
import Testing

@testable import OrreryServer

/// The daemon's pipeline put together as the daemon does it, minus the server: stub files in a temporary folder,
/// the registry, sessions, the admin API and a `Pipeline`, driven by request values. No port is opened.
final class PipelineHarness {
    let folder: URL
    let registry: StubRegistry
    let sessions: SessionRegistry
    let adminAPI: AdminAPI
    let pipeline: Pipeline

    /// - Parameters:
    ///   - files: file contents by path under the stubs folder.
    ///   - hostMap: a `hosts.json`, to forward misses.
    ///   - journal: the daemon-wide journal bounds.
    ///   - openAPI: what the specs answer (`--openapi`).
    init(
        files: [String: String], hostMap: String? = nil, journal: JournalLimits = JournalLimits(),
        openAPI: OpenAPIMock? = nil
    ) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-pipeline-\(UUID().uuidString)")
        let stubs = folder.appendingPathComponent("stubs")
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
        for (path, text) in files {
            let url = stubs.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        registry = StubRegistry(stubsFolder: stubs.path)
        try registry.reload()
        var environments: EnvironmentRegistry?
        if let hostMap {
            let path = folder.appendingPathComponent("hosts.json").path
            try Data(hostMap.utf8).write(to: URL(fileURLWithPath: path))
            let map = try #require(try HostMapDecoder.load(path: path))
            environments = try EnvironmentRegistry(
                map: map, statePath: folder.appendingPathComponent("state.json").path, override: nil, persistsChoices: false)
        }
        let logger = Logger(label: "pipeline-tests") { _ in SwiftLogNoOpLogHandler() }
        let serviceLogger = NetworkServiceLogger(
            journal: Journal(limits: journal, budget: JournalBudget(journal)), redactor: Redactor(), registry: registry,
            isProxying: environments != nil, logger: logger)
        sessions = SessionRegistry(mainJournal: serviceLogger.journal)
        sessions.attach(PortlessSessions(), host: "127.0.0.1")
        let https = HTTPS(caFolder: nil, interceptsEveryConnect: false, interceptedHosts: [])
        adminAPI = AdminAPI(
            registry: registry, sessions: sessions, https: https, environments: environments, serviceLogger: serviceLogger,
            isProxying: environments != nil, logger: logger, threads: 1, token: nil)
        let wireMockAdmin = WireMockAdmin(api: adminAPI) { [sessions] session in
            if let id = session.id { _ = sessions.remove(id: id) }
        }
        pipeline = Pipeline(
            registry: registry, admin: adminAPI, sessions: sessions, environments: environments, https: https,
            wireMockAdmin: wireMockAdmin, openAPI: openAPI)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The pipeline's decision for one request.
    func decide(
        _ method: String, _ target: String, headers: HTTPHeaders = [:], body: String = "", session: String? = nil,
        listenerTag: Int = 0
    ) -> Pipeline.Decision {
        var headers = headers
        if let session { headers.add(SessionRegistry.header, session) }
        return pipeline.decide(
            PipelineRequest(HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8)), listenerTag: listenerTag))
    }

    /// The answer the pipeline gives to a `GET`.
    func answer(
        _ target: String, session: String? = nil, listenerTag: Int = 0,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> (status: Int, text: String) {
        answer("GET", target, session: session, listenerTag: listenerTag, sourceLocation: sourceLocation)
    }

    /// The answer the pipeline gives, as status and body text; a failed expectation when it is not an answer.
    func answer(
        _ method: String, _ target: String, body: String = "", session: String? = nil, listenerTag: Int = 0,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> (status: Int, text: String) {
        let decision = decide(method, target, body: body, session: session, listenerTag: listenerTag)
        if case .stub(_, let prepared) = decision.reply {
            return (prepared.status, prepared.body.text)
        }
        if case .spec(let answer) = decision.reply {
            return (answer.status, answer.body.text)
        }
        guard case .answer(let answer) = decision.reply else {
            Issue.record("\(method) \(target) is not answered: \(decision.reply)", sourceLocation: sourceLocation)
            return (0, "")
        }
        // What the journal would keep and what goes out agree on the status.
        if let record = answer.record { #expect(record.status.code == answer.response.status, sourceLocation: sourceLocation) }
        return (answer.response.status, answer.response.body.text)
    }

    /// An admin call's status and JSON answer.
    func admin(
        _ method: String, _ path: String, json: String = "", session: String? = nil, listenerTag: Int = 0,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> (status: Int, json: JSONValue) {
        let (status, text) = answer(method, path, body: json, session: session, listenerTag: listenerTag, sourceLocation: sourceLocation)
        return (status, try JSONValue.parse(text))
    }

    /// Opens a session whose port speaks WireMock's admin API (with no port); returns its id and listener tag.
    func openWireMockSession() throws -> (id: String, tag: Int) {
        let (status, json) = try admin("POST", "/__admin/sessions", json: #"{"wiremock": true}"#)
        #expect(status == 201)
        #expect(json["wiremock"] == .bool(true))
        let id = try #require(json["id"]?.stringValue)
        let session = try #require(sessions.session(id: id))
        return (id, session.tag)
    }

    /// Opens a session (with no port); returns its id and listener tag.
    func openSession() throws -> (id: String, tag: Int) {
        let (status, json) = try admin("POST", "/__admin/sessions")
        #expect(status == 201)
        let id = try #require(json["id"]?.stringValue)
        let session = try #require(sessions.session(id: id))
        return (id, session.tag)
    }
}

/// Sessions reachable by their tag and header only: `Pipeline` takes the tag from the request value, so no port is
/// needed to test what a session's port answers.
final class PortlessSessions: SessionPorts {
    func openPort(tag: Int) throws(EventError) -> Int { 0 }
    func closePort(tag: Int) {}
}

extension JSONValue {
    var intValue: Int? {
        if case .number(let value, _) = self { return Int(value) }
        return nil
    }
}
