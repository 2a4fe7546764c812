import Foundation
import OrreryCore
import OrreryServer
import Testing

/// Sessions: private Orreries inside one daemon, for tests that run in parallel.
@Suite("Sessions")
struct SessionLiveTests {
    static let files = [
        "stubs/users.json": #"{"request": {"method": "GET", "path": "/users/1"}, "response": {"json": {"id": 1, "from": "file"}}}"#,
        "stubs/cart.yaml": """
            - request: { method: GET, path: /cart }
              scenario: checkout
              requiredState: Started
              response: { json: { items: 1 } }
            - request: { method: POST, path: /cart/checkout }
              scenario: checkout
              newState: paid
              response: { status: 201 }
            - request: { method: GET, path: /cart }
              scenario: checkout
              requiredState: paid
              response: { json: { items: 0 } }
            """,
    ]

    static func open(_ server: LiveServer, name: String? = nil) async throws -> (id: String, port: Int, url: String) {
        let body = name.map { Data(#"{"name": "\#($0)"}"#.utf8) }
        let created = try await server.request("POST", "/__admin/sessions", body: body)
        #expect(created.status == 201, "\(created.text)")
        let json = try created.json()
        let id = try #require(json["id"] as? String)
        let port = try #require(json["port"] as? Int)
        let url = try #require(json["url"] as? String)
        return (id, port, url)
    }

    @Test("a session is a private Orrery on its own port: its stubs and journal are its own, the files are shared")
    func isolation() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let a = try await Self.open(server, name: "a")
            let b = try await Self.open(server, name: "b")
            #expect(a.port != b.port && a.port != server.port)
            #expect(a.url == "http://127.0.0.1:\(a.port)")

            // A stub added to session a answers on a's port only.
            let stub = Data(#"{"request": {"method": "GET", "path": "/only-a"}, "response": {"body": "a"}}"#.utf8)
            #expect(try await HTTPClient.request("POST", a.url + "/__admin/stubs", body: stub).status == 201)
            #expect(try await HTTPClient.request("GET", a.url + "/only-a").text == "a")
            #expect(try await HTTPClient.request("GET", b.url + "/only-a").status == 404)
            #expect(try await server.request("/only-a").status == 404)
            // The header selects a session on the main port.
            #expect(try await server.request("/only-a", headers: ["X-Orrery-Session": a.id]).text == "a")
            // File stubs answer everywhere.
            for url in [a.url, b.url, server.baseURL] {
                #expect(try await HTTPClient.request("GET", url + "/users/1").json()["from"] as? String == "file")
            }
            // Each journal holds its own exchanges.
            let journalA = try await HTTPClient.request("GET", a.url + "/__admin/requests").json()
            let journalB = try await HTTPClient.request("GET", b.url + "/__admin/requests").json()
            #expect(journalA["total"] as? Int == 3)
            #expect(journalB["total"] as? Int == 2)
            let entries = try #require(journalA["requests"] as? [[String: Any]])
            #expect(entries.allSatisfy { $0["session"] as? String == a.id })
            // A session that removes a file stub removes it for itself alone.
            #expect(try await HTTPClient.request("DELETE", a.url + "/__admin/stubs/\(Self.fileStubID(server))").status == 200)
            #expect(try await HTTPClient.request("GET", a.url + "/users/1").status == 404)
            for url in [b.url, server.baseURL] {
                #expect(try await HTTPClient.request("GET", url + "/users/1").json()["from"] as? String == "file")
            }
            // The list shows the sessions.
            let list = try await server.request("/__admin/sessions").json()
            #expect(list["count"] as? Int == 2)
        }
    }

    static func fileStubID(_ server: LiveServer) async throws -> String {
        let stubs = try #require(try await server.request("/__admin/stubs").json()["stubs"] as? [[String: Any]])
        return try #require(stubs.first { ($0["source"] as? String)?.contains("users.json") == true }?["id"] as? String)
    }

    @Test("scenarios and sequences move per session; reset puts one session back and leaves the others")
    func statePerSession() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let a = try await Self.open(server)
            let b = try await Self.open(server)
            #expect(try await HTTPClient.request("GET", a.url + "/cart").json()["items"] as? Int == 1)
            #expect(try await HTTPClient.request("POST", a.url + "/cart/checkout").status == 201)
            #expect(try await HTTPClient.request("GET", a.url + "/cart").json()["items"] as? Int == 0)
            // b is still where every scenario starts.
            #expect(try await HTTPClient.request("GET", b.url + "/cart").json()["items"] as? Int == 1)
            let scenarios = try await HTTPClient.request("GET", a.url + "/__admin/scenarios").json()
            let checkout = try #require((scenarios["scenarios"] as? [[String: Any]])?.first)
            #expect(checkout["state"] as? String == "paid")
            #expect(checkout["possibleStates"] as? [String] == ["Started", "paid"])

            let reset = try await HTTPClient.request("POST", a.url + "/__admin/reset").json()
            #expect(reset["reset"] as? Bool == true)
            #expect(try await HTTPClient.request("GET", a.url + "/cart").json()["items"] as? Int == 1)
            #expect(try await HTTPClient.request("GET", a.url + "/__admin/requests").json()["total"] as? Int == 1)
            #expect(try await HTTPClient.request("GET", b.url + "/__admin/requests").json()["total"] as? Int == 1)
        }
    }

    @Test("ending a session closes its port; its id is then unknown on the main port")
    func ending() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let a = try await Self.open(server)
            #expect(try await HTTPClient.request("GET", a.url + "/users/1").status == 200)
            let deleted = try await server.request("DELETE", "/__admin/sessions/\(a.id)")
            #expect(deleted.status == 200)
            // The port is closed once every loop has let go of it.
            let closed = await Self.eventually { (try? RawConnection(port: a.port)) == nil }
            #expect(closed)
            let unknown = try await server.request("/users/1", headers: ["X-Orrery-Session": a.id])
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("There is no session"))
            #expect(try await server.request("DELETE", "/__admin/sessions/\(a.id)").status == 404)
        }
    }

    @Test("1,000 sessions open and close, each answering on its own port (fewer under a low open-file limit)")
    func many() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            var opened: [(id: String, port: Int, url: String)] = []
            // Sized to the open-file limit found (a default container's is 1,024): what ten sessions cost tells
            // how many more fit, with room left for the clients and the rest of the process.
            let before = Self.openDescriptors()
            for _ in 0..<10 { opened.append(try await Self.open(server)) }
            let perSession = max(1, (Self.openDescriptors() - before + 9) / 10)
            let room = (Self.openFileLimit() - Self.openDescriptors() - 256) / perSession
            let count = min(1_000, 10 + max(0, room))
            #expect(count >= 100, "the open-file limit leaves room for \(count) sessions only")
            for _ in 10..<count { opened.append(try await Self.open(server)) }
            #expect(Set(opened.map(\.port)).count == count)
            for session in opened.shuffled().prefix(20) {
                #expect(try await HTTPClient.request("GET", session.url + "/users/1").status == 200)
            }
            for session in opened {
                #expect(try await server.request("DELETE", "/__admin/sessions/\(session.id)").status == 200)
            }
            #expect(try await server.request("/__admin/sessions").json()["count"] as? Int == 0)
        }
    }

    @Test("an X-Orrery-Session naming no session is a 404 naming it, before any session was opened")
    func unknownSessionBeforeAny() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let unknown = try await server.request("/users/1", headers: ["X-Orrery-Session": "never-opened"])
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("'never-opened'"))
            #expect(try await server.request("/__admin/health", headers: ["X-Orrery-Session": "never-opened"]).status == 404)
            #expect(try await server.request("/users/1").status == 200)
        }
    }

    @Test("a session's port answers for itself alone: listing, opening, reading and ending sessions are 403")
    func sessionPortIsConfined() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let a = try await Self.open(server)
            let b = try await Self.open(server)
            for (method, path) in [
                ("GET", "/__admin/sessions"), ("POST", "/__admin/sessions"), ("GET", "/__admin/sessions/\(b.id)"),
                ("DELETE", "/__admin/sessions/\(b.id)"), ("POST", "/__admin/recordings/start"),
                ("POST", "/__admin/recordings/stop"), ("POST", "/__admin/logging/start"),
                ("POST", "/__admin/logging/stop"),
            ] {
                #expect(try await HTTPClient.request(method, a.url + path).status == 403, "\(method) \(path)")
            }
            // b is still open, and the daemon's port still manages sessions.
            #expect(try await HTTPClient.request("GET", b.url + "/users/1").status == 200)
            #expect(try await server.request("/__admin/sessions").json()["count"] as? Int == 2)
        }
    }

    @Test("--journal-entries bounds every session's journal together; the oldest exchange goes first")
    func journalBoundIsDaemonWide() async throws {
        try await LiveServer.with(files: Self.files, configure: { $0.journal.maximumEntries = 5 }) {
            (server: LiveServer) async throws in
            let sessions = [try await Self.open(server), try await Self.open(server), try await Self.open(server)]
            #expect(try await server.request("/users/1").status == 200)
            for session in sessions {
                for _ in 0..<3 { #expect(try await HTTPClient.request("GET", session.url + "/users/1").status == 200) }
            }
            var kept = try await server.request("/__admin/requests").json()["total"] as? Int ?? -1
            for session in sessions {
                kept += try await HTTPClient.request("GET", session.url + "/__admin/requests").json()["total"] as? Int ?? -1
            }
            #expect(kept == 5)
            // The daemon's own exchange was the oldest: it went first.
            #expect(try await server.request("/__admin/requests").json()["total"] as? Int == 0)
        }
    }

    static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    static func openFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        return limit.rlim_cur > rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<100 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
