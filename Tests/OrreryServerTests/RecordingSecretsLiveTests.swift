import Foundation
import OrreryCore
import OrreryServer
import Testing

/// A recording of a local API with a login, a bearer token, an injected key and a query token, by default: none of
/// those values reaches a fixture, the journal, the HAR or the traffic log.
@Suite("Recording: secrets by default")
struct RecordingSecretsLiveTests {
    static let password = "pw-hunter2-0451"
    static let accessToken = "at-" + String(repeating: "7", count: 24)
    static let refreshToken = "rt-" + String(repeating: "5", count: 24)
    static let queryToken = "qt-0123456789abcdef"
    static let injectedKey = "injected-key-5f4e3d2c1b"

    @Test("login, bearer token, injected key and query token leave no trace in any file or admin answer")
    func noSecretAnywhere() async throws {
        let variable = "ORRERY_TEST_INJECTED_\(UUID().uuidString.replacingOccurrences(of: "-", with: ""))"
        setenv(variable, Self.injectedKey, 1)
        defer { unsetenv(variable) }
        let recordings = try RecordingLiveTests.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        let trafficLog = recordings.path + ".traffic.jsonl"
        defer { try? FileManager.default.removeItem(atPath: trafficLog) }
        let upstream = try FixtureProcess.upstream(name: "api")
        defer { upstream.stop() }
        let map = hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")], extra: #""inject_headers": {"X-Api-Key": "\#(variable)"},"#)
        var adminAnswers: [[UInt8]] = []
        try await LiveServer.with(files: ["config/hosts.json": map]) {
            $0.recording = RecordingSettings(folder: recordings.path)
            $0.trafficLog = TrafficLogSettings(path: trafficLog)
        } _: { (server: LiveServer) async throws in
            let answers = try PythonClient.send(
                port: server.port,
                [
                    .init(
                        "POST", "/rec/login", headers: [("Content-Type", "application/json")],
                        body: Array(#"{"username":"ada","password":"\#(Self.password)"}"#.utf8)),
                    .init("GET", "/rec/whoami", headers: [("Authorization", "Bearer \(Self.accessToken)")]),
                    .init("GET", "/echo/headers?access_token=\(Self.queryToken)&page=2"),
                    .init(
                        "POST", "/echo/form", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                        body: Array("user=ada&password=\(Self.password)".utf8)),
                ])
            #expect(answers.map(\.status) == [200, 200, 200, 200])
            // The client got the real answers: only what is kept is redacted.
            #expect(answers[0].text.contains(Self.accessToken))
            #expect(answers[2].text.contains(Self.injectedKey))
            for path in ["/__admin/requests?limit=100", "/__admin/requests.har", "/__admin/recordings"] {
                adminAnswers.append(Array(try await server.request(path).body))
            }
            let stopped = try await server.request("POST", "/__admin/recordings/stop").json()
            let redacted = try #require(stopped["redacted"] as? [String])
            for name in ["JSON field password", "JSON field access_token", "header Authorization", "query access_token", "injected X-Api-Key"] {
                #expect(redacted.contains(name), "\(redacted)")
            }
        }
        var places = RecordingLiveTests.files(under: recordings).map { (path: $0.key, bytes: $0.value) }
        #expect(places.count >= 4)
        places.append((trafficLog, Array(FileManager.default.contents(atPath: trafficLog) ?? Data())))
        places += adminAnswers.enumerated().map { ("admin answer \($0.offset)", $0.element) }
        for place in places {
            for secret in [Self.password, Self.accessToken, Self.refreshToken, Self.queryToken, Self.injectedKey] {
                #expect(!RecordingLiveTests.contains(place.bytes, secret), "\(place.path) holds \(secret)")
            }
        }
    }

    @Test("recording the same traffic again leaves every file byte for byte as it was")
    func stableFixtures() async throws {
        let upstream = try FixtureProcess.upstream(name: "api")
        defer { upstream.stop() }
        let map = hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])
        var runs: [[String: [UInt8]]] = []
        for _ in 0..<2 {
            let recordings = try RecordingLiveTests.recordingFolder()
            defer { try? FileManager.default.removeItem(at: recordings) }
            try await LiveServer.with(files: ["config/hosts.json": map]) {
                $0.recording = RecordingSettings(folder: recordings.path)
            } _: { (server: LiveServer) async throws in
                _ = try PythonClient.send(
                    port: server.port,
                    [
                        .init("GET", "/rec/json?b=2&a=1"), .init("GET", "/rec/text"), .init("GET", "/rec/image.png"),
                        .init("POST", "/rec/orders", headers: [("Content-Type", "application/json")], body: Array(#"{"sku":"A"}"#.utf8)),
                    ])
                _ = try await server.request("POST", "/__admin/recordings/stop")
            }
            runs.append(RecordingLiveTests.files(under: recordings))
        }
        #expect(runs[0].count >= 4)
        #expect(runs[0] == runs[1])
        let json = String(decoding: runs[0]["api.example.com/rec/orders.POST.yaml"] ?? [], as: UTF8.self)
        #expect(json.hasPrefix("# Recorded by Orrery from a recording; edit freely.\n"), "no time stamp: \(json)")
    }
}
