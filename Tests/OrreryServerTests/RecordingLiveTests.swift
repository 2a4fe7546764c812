import Foundation
import OrreryCore
import OrreryEvent
import OrreryServer
import Testing

/// Recording through the proxy against a real upstream (Tests/Fixtures/upstream.py), then replaying with the
/// upstream gone, compared byte for byte with Python's http.client.
@Suite("Recording and replay")
struct RecordingLiveTests {
    static let token = "secret-token-0123456789"
    static let cookieSecret = "cookie-secret-4567"

    /// A folder for fixtures that outlives the servers of one test.
    static func recordingFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-recordings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Every file under `folder`, relative path → bytes.
    static func files(under folder: URL) -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { return found }
        for case let relative as String in enumerator {
            var isDirectory: ObjCBool = false
            let path = folder.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found[relative] = Array(FileManager.default.contents(atPath: path) ?? Data())
            }
        }
        return found
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let needle = Array(needle.utf8)
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    static let gzipAccepted = [("Accept-Encoding", "gzip, deflate")]

    /// What the app does while recording: every kind of answer the upstream gives.
    static let recordedRequests: [PythonClient.Request] = [
        .init("GET", "/rec/json?b=2&a=1"),
        .init("GET", "/rec/text"),
        .init("GET", "/rec/image.png"),
        .init("GET", "/gzip", headers: gzipAccepted),
        .init("GET", "/rec/deflate", headers: gzipAccepted),
        .init("GET", "/chunked"),
        .init("GET", "/rec/redirect"),
        .init("GET", "/status/204"),
        .init("GET", "/rec/etag"),
        .init("GET", "/rec/etag", headers: [("If-None-Match", "\"v1\"")]),
        .init("GET", "/rec/cookies"),
        .init("GET", "/rec/whoami", headers: [("Authorization", "Bearer \(token)")]),
        .init("GET", "/rec/counter"),
        .init("GET", "/rec/counter"),
        .init("GET", "/rec/counter"),
        .init("POST", "/rec/orders", headers: [("Content-Type", "application/json")], body: Array(#"{"sku":"A","qty":2}"#.utf8)),
        .init("GET", "/rec/big"),
    ]

    @Test("everything recorded replays with the upstream gone: same status, headers and body bytes")
    func recordThenReplay() async throws {
        let recordings = try Self.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        let upstream = try FixtureProcess.upstream(name: "prod")
        var recorded: [PythonClient.Answer] = []
        let trafficLog = recordings.path + ".traffic.jsonl"
        defer { try? FileManager.default.removeItem(atPath: trafficLog) }
        try await LiveServer.with(files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])]) {
            $0.recording = RecordingSettings(folder: recordings.path)
            $0.trafficLog = TrafficLogSettings(path: trafficLog)
        } _: { (server: LiveServer) async throws in
            recorded = try PythonClient.send(port: server.port, Self.recordedRequests)
            #expect(recorded.map(\.status) == [200, 200, 200, 200, 200, 200, 302, 204, 200, 304, 200, 200, 200, 200, 200, 201, 200])
            #expect(recorded[12..<15].map(\.text) == ["count 1", "count 2", "count 3"])

            // Redaction everywhere: no admin answer holds a secret.
            for path in ["/__admin/requests?limit=100", "/__admin/requests.har", "/__admin/recordings"] {
                let body = Array(try await server.request(path).body)
                #expect(!Self.contains(body, Self.token), "\(path)")
                #expect(!Self.contains(body, Self.cookieSecret), "\(path)")
            }
            let stopped = try await server.request("POST", "/__admin/recordings/stop").json()
            #expect(stopped["recording"] as? Bool == false)
            #expect(stopped["exchangesRecorded"] as? Int == Self.recordedRequests.count)
            #expect(stopped["error"] is NSNull)
        }
        upstream.stop()
        let logged = Array(FileManager.default.contents(atPath: trafficLog) ?? Data())
        #expect(logged.count > 1000)
        #expect(!Self.contains(logged, Self.token) && !Self.contains(logged, Self.cookieSecret), "the traffic log holds a secret")

        let written = Self.files(under: recordings)
        #expect(written.keys.contains("api.example.com/rec/json.GET.yaml"))
        #expect(written.keys.contains("api.example.com/gzip.GET.yaml"))
        #expect(written.keys.contains { $0.hasPrefix("api.example.com/rec/bodies/image.png.GET.") && $0.hasSuffix(".png") })
        #expect(written.keys.contains { $0.hasPrefix("api.example.com/rec/bodies/big.GET.") && $0.hasSuffix(".json") })
        #expect(!written.keys.contains { ($0 as NSString).lastPathComponent.hasPrefix(".") }, "no temporary file is left")
        for (path, bytes) in written {
            #expect(!Self.contains(bytes, Self.token), "\(path) holds the token")
            #expect(!Self.contains(bytes, Self.cookieSecret), "\(path) holds the cookie")
        }
        // gzip and deflate bodies are stored decoded and readable.
        let gzipFixture = String(decoding: written["api.example.com/gzip.GET.yaml"] ?? [], as: UTF8.self)
        #expect(gzipFixture.contains("encoding: gzip"))
        #expect(gzipFixture.contains(#"{"compressed": true"#))
        let deflateFixture = String(decoding: written["api.example.com/rec/deflate.GET.yaml"] ?? [], as: UTF8.self)
        #expect(deflateFixture.contains("encoding: deflate"))
        #expect(deflateFixture.contains(#""deflated": true"#))

        // Replay with no upstream at all: --offline, the recording folder's fixtures served (mode none).
        var replayRequests = Self.recordedRequests
        replayRequests[0] = .init("GET", "/rec/json?a=1&b=2")
        replayRequests[11] = .init("GET", "/rec/whoami", headers: [("Authorization", "Bearer another-token-999999")])
        replayRequests += [.init("GET", "/rec/counter"), .init("GET", "/gzip")]
        try await LiveServer.with(files: [:]) {
            $0.isOffline = true
            $0.recording = RecordingSettings(folder: recordings.path, mode: .none)
        } _: { (server: LiveServer) async throws in
            let replayed = try PythonClient.send(port: server.port, replayRequests)
            for (index, (before, after)) in zip(recorded, replayed).enumerated() where index != 10 && index != 11 {
                let request = "\(replayRequests[index].method) \(replayRequests[index].path)"
                #expect(after.status == before.status, "\(request)")
                #expect(after.lastingHeaders == before.lastingHeaders, "\(request)")
                #expect(after.decodedBody == before.decodedBody, "\(request)")
                #expect(after.values("Content-Encoding") == before.values("Content-Encoding"), "\(request)")
            }
            // The recorded encoding is applied again for a client that takes it, and left off for one that does not.
            #expect(replayed[3].values("Content-Encoding") == ["gzip"])
            #expect(replayed[4].values("Content-Encoding") == ["deflate"])
            #expect(replayed[18].values("Content-Encoding").isEmpty)
            #expect(replayed[18].bytes == recorded[3].decodedBody)
            // A sequence replays in order, then repeats its last answer.
            #expect((replayed[12..<15].map(\.text) + [replayed[17].text]) == ["count 1", "count 2", "count 3", "count 3"])
            // Cookies replay as the placeholder; the rest of the answer is the same.
            #expect(replayed[10].values("Set-Cookie") == ["[REDACTED]", "[REDACTED]"])
            #expect(replayed[10].values("X-After") == ["cookies"])
            // The echoed token was scrubbed, and another token still finds the fixture.
            #expect(replayed[11].status == 200)
            #expect(replayed[11].text.contains("[REDACTED]"))
            #expect(!replayed[11].text.contains(Self.token))
            // Nothing went to an upstream.
            let unmatched = try await server.request("/__admin/requests/unmatched").json()
            #expect(unmatched["total"] as? Int == 0)
        }
    }

    static let handWrittenFixture = """
        - request: { method: GET, url: /rec/json }
          response: { status: 200, body: from fixture }
        """

    /// A recording server whose folder already holds a fixture for GET /rec/json.
    static func withRecording(
        mode: RecordMode, _ body: (LiveServer, URL) async throws -> Void
    ) async throws {
        let recordings = try recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        try TemporaryFolder.write(handWrittenFixture, to: recordings.appendingPathComponent("api.example.com/rec/json.GET.yaml"))
        let upstream = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])]) {
            $0.recording = RecordingSettings(folder: recordings.path, mode: mode)
        } _: { (server: LiveServer) async throws in
            try await body(server, recordings)
        }
    }

    static func text(_ folder: URL, _ path: String) -> String {
        (try? String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }

    @Test("once: a route with fixtures replays them and is not recorded; other routes are")
    func modeOnce() async throws {
        try await Self.withRecording(mode: .once) { server, recordings in
            #expect(try await server.request("/rec/json").text == "from fixture")
            // Same route, no fixture for this query: forwarded, but the route is not recorded in this mode.
            #expect(try await server.request("/rec/json?x=1").status == 200)
            #expect(try await server.request("/rec/text").status == 200)
            let stopped = try await server.request("POST", "/__admin/recordings/stop").json()
            #expect(stopped["files"] as? [String] == ["api.example.com/rec/text.GET.yaml"])
            #expect(Self.text(recordings, "api.example.com/rec/json.GET.yaml") == Self.handWrittenFixture)
            // Once stopped, what was recorded answers.
            #expect(try await server.request("/rec/text").text.hasPrefix("héllo"))
        }
    }

    @Test("new_episodes: requests a fixture answers replay; new ones are appended to the route's file")
    func modeNewEpisodes() async throws {
        try await Self.withRecording(mode: .newEpisodes) { server, recordings in
            #expect(try await server.request("/rec/json").text == "from fixture")
            #expect(try await server.request("/rec/json?x=1").json()["id"] as? Int == 7)
            let stopped = try await server.request("POST", "/__admin/recordings/stop").json()
            #expect(stopped["files"] as? [String] == ["api.example.com/rec/json.GET.yaml"])
            let file = Self.text(recordings, "api.example.com/rec/json.GET.yaml")
            #expect(file.hasPrefix(Self.handWrittenFixture))
            #expect(file.contains("url: /rec/json?x=1"))
            #expect(try await server.request("/rec/json").text == "from fixture")
            #expect(try await server.request("/rec/json?x=1").json()["id"] as? Int == 7)
        }
    }

    @Test("all: fixtures do not answer during the session, and the routes recorded are written anew")
    func modeAll() async throws {
        try await Self.withRecording(mode: .all) { server, recordings in
            #expect(try await server.request("/rec/json").json()["id"] as? Int == 7)
            _ = try await server.request("POST", "/__admin/recordings/stop")
            let file = Self.text(recordings, "api.example.com/rec/json.GET.yaml")
            #expect(file.contains("url: /rec/json"))
            #expect(!file.contains("from fixture"))
            #expect(try await server.request("/rec/json").json()["id"] as? Int == 7)
        }
    }

    @Test("none: fixtures replay, misses are forwarded, nothing is written")
    func modeNone() async throws {
        try await Self.withRecording(mode: .none) { server, recordings in
            #expect(try await server.request("/rec/json").text == "from fixture")
            #expect(try await server.request("/rec/text").status == 200)
            let status = try await server.request("/__admin/recordings").json()
            #expect(status["recording"] as? Bool == true)
            #expect(status["exchangesRecorded"] as? Int == 0)
            #expect(Self.files(under: recordings).keys.sorted() == ["api.example.com/rec/json.GET.yaml"])
        }
    }

    @Test("start and stop through the admin API; errors say what to do")
    func adminAPI() async throws {
        let recordings = try Self.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        let upstream = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])]) {
            (server: LiveServer) async throws in
            #expect(try await server.request("/__admin/recordings").json()["recording"] as? Bool == false)
            let missing = try await server.request("POST", "/__admin/recordings/start", body: Data("{}".utf8))
            #expect(missing.status == 422)
            let badMode = try await server.request(
                "POST", "/__admin/recordings/start", body: Data(#"{"folder": "\#(recordings.path)", "mode": "sometimes"}"#.utf8))
            #expect(badMode.status == 422)
            #expect(badMode.text.contains("once, new_episodes, all, none"))
            let started = try await server.request(
                "POST", "/__admin/recordings/start",
                body: Data(#"{"folder": "\#(recordings.path)", "mode": "new_episodes", "matchHeaders": ["X-Tenant"]}"#.utf8))
            #expect(started.status == 200)
            #expect(try started.json()["mode"] as? String == "new_episodes")
            let again = try await server.request("POST", "/__admin/recordings/start", body: Data(#"{"folder": "/tmp/x"}"#.utf8))
            #expect(again.status == 409)
            _ = try await server.request("/rec/json", headers: ["X-Tenant": "blue"])
            let stopped = try await server.request("POST", "/__admin/recordings/stop").json()
            #expect(stopped["exchangesRecorded"] as? Int == 1)
            // The header is part of the fixture now: another tenant is a miss, which the proxy forwards.
            let fixture = Self.text(recordings, "api.example.com/rec/json.GET.yaml")
            #expect(fixture.contains("X-Tenant: blue"))
            #expect(try await server.request("/__admin/stubs").json()["count"] as? Int == 1)
            #expect(try await server.request("GET", "/__admin/recordings/start").status == 405)
        }
    }

    @Test("recording into the stubs folder itself: its files are read once, as fixtures, and pinned during the session")
    func stubsFolderIsTheRecordingFolder() async throws {
        let upstream = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(files: [
            "config/hosts.json": hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")]),
            "stubs/api.example.com/rec/json.GET.yaml": Self.handWrittenFixture,
        ]) {
            $0.recording = RecordingSettings(folder: $0.stubsFolder, mode: .newEpisodes)
        } _: { (server: LiveServer) async throws in
            #expect(try await server.request("/__admin/stubs").json()["count"] as? Int == 1)
            #expect(try await server.request("/rec/counter").text == "count 1")
            #expect(try await server.request("/rec/counter").text == "count 2")
            // Reloading during the session keeps the pinned fixtures: the counter is still recorded, not replayed.
            #expect(try await server.request("POST", "/__admin/stubs/reload").status == 200)
            #expect(try await server.request("/rec/counter").text == "count 3")
            _ = try await server.request("POST", "/__admin/recordings/stop")
            #expect(try await server.request("/__admin/stubs").json()["count"] as? Int == 2)
            var answers: [String] = []
            for _ in 0..<4 { answers.append(try await server.request("/rec/counter").text) }
            #expect(answers == ["count 1", "count 2", "count 3", "count 3"])
        }
    }

    @Test("without the proxy nothing can be recorded: start is refused, except mode none, which only replays")
    func withoutProxy() async throws {
        let recordings = try Self.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        try await LiveServer.with(files: [:]) { (server: LiveServer) async throws in
            let refused = try await server.request(
                "POST", "/__admin/recordings/start", body: Data(#"{"folder": "\#(recordings.path)"}"#.utf8))
            #expect(refused.status == 409)
            #expect(refused.text.contains("recording needs the proxy"))
            let replaying = try await server.request(
                "POST", "/__admin/recordings/start", body: Data(#"{"folder": "\#(recordings.path)", "mode": "none"}"#.utf8))
            #expect(replaying.status == 200)
        }
    }

    @Test("a recording folder with a broken fixture does not start, and says where")
    func brokenFixture() async throws {
        let recordings = try Self.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        try TemporaryFolder.write("- request: { path: /a }\n  response: { statsu: 200 }\n", to: recordings.appendingPathComponent("a.GET.yaml"))
        let upstream = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])]) {
            (server: LiveServer) async throws in
            let refused = try await server.request(
                "POST", "/__admin/recordings/start", body: Data(#"{"folder": "\#(recordings.path)"}"#.utf8))
            #expect(refused.status == 422)
            #expect(refused.text.contains("a.GET.yaml:2: unknown key 'statsu'"))
            #expect(try await server.request("/__admin/recordings").json()["recording"] as? Bool == false)
        }
    }
}
