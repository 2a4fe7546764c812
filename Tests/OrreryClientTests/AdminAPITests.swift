import Foundation
import OrreryClient
import Testing

/// Every admin call of the client against a real daemon, one daemon per test.
@Suite struct AdminAPITests {
    static let userStub = """
        - name: user-1
          id: user-1
          request: { method: GET, path: /users/1 }
          response: { json: { id: 1, name: Ada } }
        """

    @Test func health() async throws {
        let daemon = try await Daemon.start(stubs: ["users.yaml": Self.userStub])
        defer { daemon.stop() }
        let health = try await daemon.client.health()
        #expect(health.status == "ok")
        #expect(!health.version.isEmpty)
        #expect(health.stubs == 1)
        #expect(health.stubFiles == 1)
        #expect(health.threads == 1)
        #expect(health.isProxying == false)
    }

    @Test func stubsAreListedAddedReadReplacedAndRemoved() async throws {
        let daemon = try await Daemon.start(stubs: ["users.yaml": Self.userStub])
        defer { daemon.stop() }
        let client = daemon.client

        let fromFile = try #require(try await client.stubs().first)
        #expect(fromFile.id == "user-1")
        #expect(fromFile.name == "user-1")
        #expect(fromFile.source.hasSuffix("users.yaml:1"))
        #expect(!fromFile.isFromAdminAPI)

        let id = try await stubRequest(.get, "/flags").named("flags").andReturn(.code200OK).withJSON(["beta": true])
            .install(on: client)
        let added = try await client.stub(id: id)
        #expect(added.isFromAdminAPI)
        #expect(added.name == "flags")
        #expect(added.definition["request"]?["url"] == "/flags")
        #expect(try await HTTP.send("GET", "/flags", to: daemon).json() == ["beta": true])

        let replaced = try await client.replaceStub(id: id, with: stubRequest(.get, "/flags").andReturn(503))
        #expect(replaced.id == id)
        #expect(try await HTTP.send("GET", "/flags", to: daemon).status == 503)

        try await client.removeStub(id: id)
        let error = try await #require(throws: OrreryClientError.self) { try await client.stub(id: id) }
        #expect(error.kind == .daemonError)
        #expect(error.status == 404)
        #expect(error.message.contains(id))
        #expect(try await client.stubs().map(\.id) == ["user-1"])

        try await client.addStub(stubRequest(.get, "/a"))
        try await client.addStub(json: ["request": ["path": "/b"], "response": ["status": 204]])
        let removed = try await client.removeAPIStubs()
        #expect(removed.apiStubsRemoved == 2)
        #expect(removed.stubs == 1)
    }

    @Test func anIDInUseIsAConflict() async throws {
        let daemon = try await Daemon.start(stubs: ["users.yaml": Self.userStub])
        defer { daemon.stop() }
        let error = try await #require(throws: OrreryClientError.self) {
            try await stubRequest(.get, "/other").withID("user-1").install(on: daemon.client)
        }
        #expect(error.status == 409)
        #expect(error.message.contains("user-1"))
        #expect(error.failureReason != nil)
    }

    @Test func reloadReadsFilesAndReportsBrokenOnesWithTheirLine() async throws {
        let daemon = try await Daemon.start(stubs: ["users.yaml": Self.userStub])
        defer { daemon.stop() }
        try Data("{\"request\": {\"path\": \"/more\"}, \"response\": {\"status\": 204}}".utf8)
            .write(to: URL(fileURLWithPath: daemon.path("stubs/more.json")))
        let reloaded = try await daemon.client.reloadStubs()
        #expect(reloaded.stubs == 2)
        #expect(reloaded.files == 2)

        try Data("- request: { path: /broken }\n  response: { status: 200, bodyy: x }\n".utf8)
            .write(to: URL(fileURLWithPath: daemon.path("stubs/broken.yaml")))
        let error = try await #require(throws: OrreryClientError.self) { try await daemon.client.reloadStubs() }
        #expect(error.status == 422)
        #expect(error.description.contains("broken.yaml:2"))
        #expect(error.description.contains("bodyy"))
        #expect(try await daemon.client.health().stubs == 2)
    }

    @Test func resetRemovesAPIStubsAndClearsTheJournal() async throws {
        let daemon = try await Daemon.start(stubs: ["users.yaml": Self.userStub])
        defer { daemon.stop() }
        let client = daemon.client
        try await stubRequest(.get, "/extra").install(on: client)
        _ = try await HTTP.send("GET", "/extra", to: daemon)
        _ = try await HTTP.send("GET", "/users/1", to: daemon)

        let summary = try await client.reset()
        #expect(summary.apiStubsRemoved == 1)
        #expect(summary.requestsCleared == 2)
        #expect(summary.stubs == 1)
        #expect(try await client.requests().total == 0)
        #expect(try await client.stubs().count == 1)
    }

    @Test func rewindStartsSequencesOver() async throws {
        let sequence = """
            - request: { path: /jobs/7 }
              responses:
                - { json: { state: running } }
                - { json: { state: done } }
            """
        let daemon = try await Daemon.start(stubs: ["jobs.yaml": sequence])
        defer { daemon.stop() }
        #expect(try await HTTP.send("GET", "/jobs/7", to: daemon).json()["state"] == "running")
        #expect(try await HTTP.send("GET", "/jobs/7", to: daemon).json()["state"] == "done")
        try await daemon.client.rewindSequences()
        #expect(try await HTTP.send("GET", "/jobs/7", to: daemon).json()["state"] == "running")
    }

    @Test func theJournalIsPagedFoundCountedAndCleared() async throws {
        let daemon = try await Daemon.start(stubs: ["users.yaml": Self.userStub])
        defer { daemon.stop() }
        let client = daemon.client
        _ = try await HTTP.send("GET", "/users/1", to: daemon, headers: ["X-Trace": "t-1"])
        _ = try await HTTP.send("GET", "/users/2", to: daemon)
        _ = try await HTTP.send("POST", "/orders?tenant=a", to: daemon, body: Data("{\"sku\": \"A\"}".utf8))

        let page = try await client.requests(limit: 2)
        #expect(page.total == 3)
        #expect(page.limit == 2)
        #expect(page.requests.map(\.request.path) == ["/orders", "/users/2"])
        let oldest = try #require(try await client.requests(limit: 5, offset: 2).requests.first)
        #expect(oldest.request.url == "/users/1")
        #expect(oldest.isMatched)
        #expect(oldest.stub?.id == "user-1")
        #expect(oldest.request.header("x-trace") == "t-1")
        #expect(oldest.response.status == 200)

        let byID = try await client.request(id: oldest.id)
        #expect(byID == oldest)
        let post = try await client.request(id: try #require(page.requests.first).id)
        #expect(post.request.query?["tenant"] == "a")
        #expect(post.request.body == "{\"sku\": \"A\"}")

        let unmatched = try await client.unmatchedRequests()
        #expect(unmatched.map(\.request.path) == ["/orders", "/users/2"])
        #expect(unmatched.allSatisfy { !$0.isMatched && $0.response.status == 404 })

        #expect(try await client.count(.get, "/users/1") == 1)
        #expect(try await client.count(RequestPattern(.any, path: "/orders").withJSON(["sku": "A"])) == 1)
        #expect(try await client.count(RequestPattern(.get)) == 2)
        #expect(try await client.findRequests(.post, "/orders?tenant=a").map(\.id) == [post.id])

        #expect(try await client.clearRequests() == 3)
        #expect(try await client.requests().requests.isEmpty)
        let gone = try await #require(throws: OrreryClientError.self) { try await client.request(id: oldest.id) }
        #expect(gone.status == 404)
    }

    @Test func harIsTheJournalAsAnHTTPArchive() async throws {
        let daemon = try await Daemon.start(stubs: ["users.yaml": Self.userStub])
        defer { daemon.stop() }
        _ = try await HTTP.send("GET", "/users/1", to: daemon)
        let har = try JSON(parsing: try await daemon.client.har())
        #expect(har["log"]?["version"] == "1.2")
        #expect(har["log"]?["entries"]?.arrayValue?.count == 1)
        #expect(har["log"]?["entries"]?[0]?["request"]?["url"]?.stringValue?.hasSuffix("/users/1") == true)
    }

    @Test func environmentsAreListedAndChosen() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let client = daemon.client
        let configuration = try #require(try await client.environments().first)
        #expect(configuration.canonicalHost == "api.example.com")
        #expect(configuration.releaseKey == "PROD")
        #expect(configuration.prereleaseKey == "QA")
        #expect(configuration.activeKey == "PROD")
        #expect(configuration.hosts.map(\.key) == ["PROD", "QA", "USER"])
        #expect(configuration.active?.host == "api.example.com")

        let qa = try #require(try await client.chooseEnvironment("QA", for: "api.example.com").first)
        #expect(qa.activeKey == "QA")
        #expect(qa.active?.host == "qa.api.example.com")

        let user = try await client.chooseUserEnvironment(
            host: "127.0.0.1:9001", protocol: .http, for: "api.example.com")
        let active = try #require(user.first?.active)
        #expect(active.key == "USER")
        #expect(active.host == "127.0.0.1:9001")
        #expect(active.protocol == "http")
        #expect(active.isActive)
        #expect(try await client.environments().first?.activeKey == "USER")

        let unknown = try await #require(throws: OrreryClientError.self) {
            try await client.chooseEnvironment("STAGING", for: "api.example.com")
        }
        #expect(unknown.status == 422)
        #expect(unknown.message.contains("STAGING"))
    }

    @Test func recordingsStartStopAndReport() async throws {
        let upstream = try await Daemon.start()
        defer { upstream.stop() }
        try await stubRequest(.get, "/hello").andReturn(200).withJSON(["from": "upstream"]).install(on: upstream.client)
        let daemon = try await Daemon.start(isProxying: true)
        defer { daemon.stop() }
        let client = daemon.client
        try await client.chooseUserEnvironment(
            host: "127.0.0.1:\(upstream.port)", protocol: .http, for: "api.example.com")

        #expect(try await client.recordingStatus().isRecording == false)
        let started = try await client.startRecording(folder: "recordings", mode: .once, matchHeaders: ["X-Tenant"])
        #expect(started.isRecording)
        #expect(started.folder == "recordings")
        #expect(started.mode == .once)
        #expect(started.matchHeaders == ["X-Tenant"])
        let again = try await #require(throws: OrreryClientError.self) {
            try await client.startRecording(folder: "other")
        }
        #expect(again.status == 409)

        let answer = try await HTTP.send("GET", "/hello", to: daemon)
        #expect(answer.status == 200)
        #expect(try answer.json() == ["from": "upstream"])

        let stopped = try await client.stopRecording()
        #expect(!stopped.isRecording)
        #expect(stopped.exchangesRecorded == 1)
        let file = try #require(stopped.files?.first)
        #expect(file.hasSuffix("hello.GET.yaml"))
        #expect(try await client.recordingStatus().exchangesRecorded == 1)
        #expect(FileManager.default.fileExists(atPath: daemon.path("recordings/\(file)")))
    }

    @Test func theTrafficLogStartsStopsAndReports() async throws {
        let daemon = try await Daemon.start(stubs: ["users.yaml": Self.userStub])
        defer { daemon.stop() }
        let client = daemon.client
        let file = daemon.path("traffic.jsonl")
        #expect(try await client.trafficLogStatus().isLogging == false)

        let started = try await client.startTrafficLog(file: file, includeHeaders: false, includeBody: true)
        #expect(started.isLogging)
        #expect(started.file == file)
        #expect(started.includeHeaders == false)
        #expect(started.includeBody == true)
        _ = try await HTTP.send("GET", "/users/1", to: daemon)

        let stopped = try await client.stopTrafficLog()
        #expect(!stopped.isLogging)
        #expect(stopped.exchangesWritten == 1)
        #expect(try await client.trafficLogStatus().isLogging == false)
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
        #expect(try JSON(parsing: Data(lines[0].utf8))["request"]?["path"] == "/users/1")

        let refused = try await #require(throws: OrreryClientError.self) {
            try await client.startTrafficLog(file: "/dev/null")
        }
        #expect(refused.status == 400)
    }

    @Test func everyCallCarriesTheSessionAndTheToken() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        // A client whose base URL has a path is not on the admin API: its calls reach this stub and the journal of
        // the session its header names (a header naming no session would be a 404).
        let first = try await daemon.client.createSession(name: "first")
        let second = try await daemon.client.createSession(name: "second")
        for id in [first.id, second.id] {
            try await stubRequest(.any, pattern: "^/spy/").andReturn(200)
                .withJSON(["status": "ok", "version": "spy", "stubs": 0]).install(on: daemon.client.inSession(id))
        }
        let spyURL = try #require(URL(string: "http://127.0.0.1:\(daemon.port)/spy"))
        let spy = OrreryClient(baseURL: spyURL, session: first.id, adminToken: "secret-token")
        #expect(try await spy.health().version == "spy")
        _ = try await spy.inSession(second.id).health()

        let calls =
            try await daemon.client.inSession(first.id).requests().requests
            + daemon.client.inSession(second.id).requests().requests
        #expect(calls.map(\.request.path) == ["/spy/__admin/health", "/spy/__admin/health"])
        #expect(calls.map { $0.request.header("X-Orrery-Session") } == [first.id, second.id])
        // The journal redacts what it does not know to be harmless; the header is there either way.
        #expect(calls.allSatisfy { $0.request.header("X-Orrery-Admin-Token") != nil })
        #expect(spy.session == first.id)
        #expect(spy.inSession(nil).session == nil)
    }

    @Test func sessions() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let client = daemon.client
        let session = try await client.createSession(name: "checkout")
        #expect(!session.id.isEmpty)
        #expect(try await client.sessions().contains { $0.id == session.id })
        let scoped = client.inSession(session.id)
        try await stubRequest(.get, "/mine").install(on: scoped)
        #expect(try await scoped.stubs().contains { $0.isFromAdminAPI })
        #expect(try await client.stubs().allSatisfy { !$0.isFromAdminAPI })
        _ = try await HTTP.send("GET", "/mine", to: daemon, headers: ["X-Orrery-Session": session.id])
        let exchange = try #require(try await scoped.requests().requests.first)
        #expect(exchange.session == session.id && exchange.stub != nil && exchange.fault == nil)
        try await client.endSession(id: session.id)
        #expect(try await client.sessions().allSatisfy { $0.id != session.id })
        let ended = try await #require(throws: OrreryClientError.self) { try await client.endSession(id: session.id) }
        #expect(ended.status == 404 && ended.call == "DELETE /__admin/sessions/\(session.id)")
        #expect(ended.failureReason != nil && ended.recoverySuggestion != nil)
    }

    @Test func scenarios() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let client = daemon.client
        try await client.addStub(
            stubRequest(.post, "/cart/checkout").inScenario("checkout", whenState: "Started", willSetStateTo: "paid")
                .andReturn(201))
        #expect(try await client.scenarios().contains(Scenario(name: "checkout", state: Scenario.startedState)))
        try await client.setScenario("checkout", state: "paid")
        #expect(try await client.scenarios().contains(Scenario(name: "checkout", state: "paid")))
        try await client.resetScenarios()
        #expect(try await client.scenarios().allSatisfy { $0.state == Scenario.startedState })
        // A scenario no stub names is refused with the daemon's reason.
        let unknown = try await #require(throws: OrreryClientError.self) { try await client.setScenario("nope", state: "x") }
        #expect(unknown.status == 404 && unknown.call == "PUT /__admin/scenarios/nope")
        #expect(unknown.message.contains("nope"))
    }
}
