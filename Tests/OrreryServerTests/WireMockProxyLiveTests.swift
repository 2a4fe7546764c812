import Foundation
import OrreryServer
import Testing

/// WireMock's `proxyBaseUrl` in mappings, forwarded to a real upstream on loopback (Tests/Fixtures/upstream.py).
@Suite("WireMock proxyBaseUrl")
struct WireMockProxyLiveTests {
    static func mapping(upstreamPort: Int) -> String {
        """
        {"request": {"urlPathPattern": "/api/.*"},
         "response": {"proxyBaseUrl": "http://127.0.0.1:\(upstreamPort)/base",
                      "additionalProxyRequestHeaders": {"X-Added": "yes", "X-Replaced": "new"},
                      "removeProxyRequestHeaders": ["x-secret"]}}
        """
    }

    /// The upstream's echo as a name-to-value map (lowercased names).
    static func echoedHeaders(_ echo: [String: Any]) -> [String: String] {
        Dictionary(
            (echo["headers"] as? [[String]] ?? []).map { ($0[0].lowercased(), $0[1]) }, uniquingKeysWith: { a, _ in a })
    }

    /// Checks one forwarded request: the path and query after the base path, headers added, replaced and removed.
    static func expectForwarded(_ url: String, upstream: FixtureProcess) async throws {
        let result = try await HTTPClient.request(
            "POST", url + "/api/orders?x=1&y=two",
            headers: ["X-Secret": "s3cret", "X-Kept": "kept", "X-Replaced": "old"], body: Data("hello".utf8))
        #expect(result.status == 200, "\(result.text)")
        #expect(result.header("X-Upstream") == "prod")
        let echo = try result.json()
        #expect(echo["path"] as? String == "/base/api/orders?x=1&y=two")
        #expect(echo["method"] as? String == "POST")
        #expect(echo["bodyLength"] as? Int == 5)
        let headers = Self.echoedHeaders(echo)
        #expect(headers["host"] == "127.0.0.1:\(upstream.port)")
        #expect(headers["x-added"] == "yes")
        #expect(headers["x-replaced"] == "new")
        #expect(headers["x-kept"] == "kept")
        #expect(headers["x-secret"] == nil)
    }

    @Test("a mapping in a --wiremock-root forwards to proxyBaseUrl with the path and query, no host map needed")
    func rootMappingForwards() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(
            files: ["wm/mappings/proxy.json": Self.mapping(upstreamPort: prod.port)],
            configure: {
                $0.wireMockRoots = [
                    URL(fileURLWithPath: $0.stubsFolder).deletingLastPathComponent().appendingPathComponent("wm").path
                ]
                $0.allowsMissingStubsFolder = true
            }
        ) { (server: LiveServer) async throws in
            try await Self.expectForwarded(server.baseURL, upstream: prod)
            // What the mapping does not match is still a miss.
            #expect(try await server.request("/other").status == 404)
        }
    }

    @Test("a mapping posted to a WireMock session forwards; --offline answers 502 instead")
    func postedMappingForwards() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(files: [:], configure: { $0.allowsMissingStubsFolder = true }) {
            (server: LiveServer) async throws in
            let created = try await server.request("POST", "/__admin/sessions", body: Data(#"{"wiremock": true}"#.utf8))
            #expect(created.status == 201, "\(created.text)")
            let url = try #require(try created.json()["url"] as? String)
            let posted = try await HTTPClient.request(
                "POST", url + "/__admin/mappings", body: Data(Self.mapping(upstreamPort: prod.port).utf8))
            #expect(posted.status == 201, "\(posted.text)")
            try await Self.expectForwarded(url, upstream: prod)
        }
        try await LiveServer.with(
            files: [:],
            configure: {
                $0.allowsMissingStubsFolder = true; $0.isOffline = true
            }
        ) {
            (server: LiveServer) async throws in
            let created = try await server.request("POST", "/__admin/sessions", body: Data(#"{"wiremock": true}"#.utf8))
            let url = try #require(try created.json()["url"] as? String)
            _ = try await HTTPClient.request(
                "POST", url + "/__admin/mappings", body: Data(Self.mapping(upstreamPort: prod.port).utf8))
            let result = try await HTTPClient.request("GET", url + "/api/orders")
            #expect(result.status == 502, "\(result.text)")
            #expect(result.text.contains("offline"))
        }
    }

    @Test("recordings/start forwards a WireMock session's misses to targetBaseUrl; stop returns and adds the mappings")
    func recordingToTargetBaseURL() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(files: [:], configure: { $0.allowsMissingStubsFolder = true }) {
            (server: LiveServer) async throws in
            let created = try await server.request("POST", "/__admin/sessions", body: Data(#"{"wiremock": true}"#.utf8))
            let url = try #require(try created.json()["url"] as? String)
            func status() async throws -> String? {
                try await HTTPClient.request("GET", url + "/__admin/recordings/status").json()["status"] as? String
            }
            #expect(try await status() == "NeverStarted")
            let refused = try await HTTPClient.request(
                "POST", url + "/__admin/recordings/start", body: Data(#"{"targetBaseUrl": "ftp://x"}"#.utf8))
            #expect(refused.status == 422, "\(refused.text)")
            let start = #"{"targetBaseUrl": "http://127.0.0.1:\#(prod.port)"}"#
            let started = try await HTTPClient.request(
                "POST", url + "/__admin/recordings/start", body: Data(start.utf8))
            #expect(started.status == 200, "\(started.text)")
            #expect(try await status() == "Recording")
            let first = try await HTTPClient.request("GET", url + "/rec/json?q=1")
            #expect(first.status == 200, "\(first.text)")
            #expect(first.text.contains("Ada"))
            #expect(try await HTTPClient.request("GET", url + "/rec/text").status == 200)

            let stopped = try await HTTPClient.request("POST", url + "/__admin/recordings/stop")
            #expect(stopped.status == 200, "\(stopped.text)")
            let mappings = try #require(try stopped.json()["mappings"] as? [[String: Any]])
            let urls = mappings.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
            #expect(urls == ["/rec/json?q=1", "/rec/text"])
            #expect(try await status() == "Stopped")
            let listed = try await HTTPClient.request("GET", url + "/__admin/mappings").json()
            #expect(listed["meta"] as? [String: Any] != nil)
            #expect((listed["mappings"] as? [Any])?.count == 2)

            // The upstream gone, the recorded mappings answer; what was not recorded is a miss again.
            prod.stop()
            let replayed = try await HTTPClient.request("GET", url + "/rec/json?q=1")
            #expect(replayed.status == 200, "\(replayed.text)")
            #expect(replayed.text == first.text)
            #expect(replayed.header("Content-Type") == "application/json")
            #expect(try await HTTPClient.request("GET", url + "/rec/other").status == 404)
            #expect(try await HTTPClient.request("POST", url + "/__admin/recordings/stop").status == 400)
        }
    }
}
