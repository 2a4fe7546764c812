import Foundation
import OrreryCore
import OrreryEvent
import OrreryServer
import Testing

/// The proxy against real upstream servers on loopback (Tests/Fixtures/upstream.py).
@Suite("Proxy")
struct ProxyLiveTests {
    static let stub = #"{"request": {"path": "/stubbed"}, "response": {"body": "from stub"}}"#

    @Test("a stub wins; a miss reaches the active environment with Host, X-Forwarded-For and Via set")
    func missReachesUpstream() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(files: [
            "stubs/s.json": Self.stub,
            "config/hosts.json": hostMap([("PROD", "127.0.0.1:\(prod.port)", "http")]),
        ]) { (server: LiveServer) async throws in
            #expect(try await server.request("/stubbed").text == "from stub")
            #expect(try await server.request("/__admin/health").json()["proxy"] as? Bool == true)
            let result = try await server.request(
                "POST", "/orders?x=1", headers: ["X-Custom": "kept", "Connection": "X-Drop", "X-Drop": "gone"],
                body: Data("hello".utf8))
            #expect(result.status == 200)
            let echo = try result.json()
            #expect(echo["name"] as? String == "prod")
            #expect(echo["method"] as? String == "POST")
            #expect(echo["path"] as? String == "/orders?x=1")
            #expect(echo["bodyLength"] as? Int == 5)
            let headers = Dictionary((echo["headers"] as? [[String]] ?? []).map { ($0[0].lowercased(), $0[1]) }, uniquingKeysWith: { a, _ in a })
            #expect(headers["host"] == "127.0.0.1:\(prod.port)")
            #expect(headers["x-forwarded-for"] == "127.0.0.1")
            #expect(headers["via"]?.hasPrefix("1.1 orrery-") == true)
            #expect(headers["x-custom"] == "kept")
            #expect(headers["x-drop"] == nil)
            #expect(result.header("X-Upstream") == "prod")
            #expect(result.header("Via") == "1.1 orrery")
        }
    }

    @Test("switching environment through the admin API changes the next request's target, and is saved")
    func switchEnvironment() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        let qa = try FixtureProcess.upstream(name: "qa")
        let user = try FixtureProcess.upstream(name: "user")
        let map = hostMap([("PROD", "127.0.0.1:\(prod.port)", "http"), ("QA", "127.0.0.1:\(qa.port)", "http"), ("USER", nil, "http")])
        try await LiveServer.with(files: ["config/hosts.json": map]) { (server: LiveServer) async throws in
            #expect(try await server.request("/who").json()["name"] as? String == "prod")

            let switched = try await server.request("PUT", "/__admin/environments/api.example.com", body: Data(#"{"key": "QA"}"#.utf8))
            #expect(switched.status == 200)
            #expect(try await server.request("/who").json()["name"] as? String == "qa")

            let toUser = try await server.request(
                "PUT", "/__admin/environments/api.example.com",
                body: Data(#"{"key": "USER", "host": "127.0.0.1:\#(user.port)", "protocol": "http"}"#.utf8))
            #expect(toUser.status == 200)
            #expect(try await server.request("/who").json()["name"] as? String == "user")

            let unknown = try await server.request("PUT", "/__admin/environments/api.example.com", body: Data(#"{"key": "STAGING"}"#.utf8))
            #expect(unknown.status == 422)
            #expect(unknown.text.contains("has no environment 'STAGING'"))

            let listing = try await server.request("/__admin/environments").json()
            let configurations = try #require(listing["configurations"] as? [[String: Any]])
            #expect(configurations.first?["active"] as? String == "USER")

            let state = try String(contentsOf: server.folder.appendingPathComponent("config/hosts.state.json"), encoding: .utf8)
            #expect(state.contains("\"USER\""))
            #expect(state.contains("127.0.0.1:\(user.port)"))
            // Only whole files: no temporary file is left behind.
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: server.folder.appendingPathComponent("config").path)
            #expect(leftovers.sorted() == ["hosts.json", "hosts.state.json"])
        }
    }

    @Test("a saved choice survives a restart; --env overrides it")
    func choiceSurvivesRestart() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        let qa = try FixtureProcess.upstream(name: "qa")
        let map = hostMap([("PROD", "127.0.0.1:\(prod.port)", "http"), ("QA", "127.0.0.1:\(qa.port)", "http")])
        let state = #"{"api.example.com": {"key": "QA"}}"#
        try await LiveServer.with(files: ["config/hosts.json": map, "config/hosts.state.json": state]) { (server: LiveServer) async throws in
            #expect(try await server.request("/who").json()["name"] as? String == "qa")
        }
        try await LiveServer.with(
            files: ["config/hosts.json": map, "config/hosts.state.json": state], configure: { $0.environment = "PROD" }
        ) { (server: LiveServer) async throws in
            #expect(try await server.request("/who").json()["name"] as? String == "prod")
        }
    }

    @Test("forward proxy: absolute-URI requests, for a mapped host and for any other")
    func forwardProxy() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        let other = try FixtureProcess.upstream(name: "other")
        try await LiveServer.with(files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(prod.port)", "http")])]) {
            (server: LiveServer) async throws in
            let mapped = try RawSocket.exchange(
                port: server.port, "GET http://api.example.com/items?a=1 HTTP/1.1\r\nHost: api.example.com\r\nConnection: close\r\n\r\n")
            #expect(mapped.contains("\"name\": \"prod\""))
            #expect(mapped.contains("\"path\": \"/items?a=1\""))
            // curl as a proxy client, the way http_proxy makes clients behave.
            let proxied = try Curl.run(["-s", "-i", "http://127.0.0.1:\(other.port)/via-proxy"], proxy: server.baseURL)
            #expect(proxied.contains("\"name\": \"other\""))
            #expect(proxied.contains("Via: 1.1 orrery"))  // it went through Orrery, not straight to the upstream
        }
    }

    @Test("10 MB bodies both ways, a chunked answer and a gzip answer pass through intact")
    func bodies() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(prod.port)", "http")])]) {
            (server: LiveServer) async throws in
            let upload = Data((0..<10_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let echo = try await server.request("POST", "/upload", body: upload).json()
            #expect(echo["bodyLength"] as? Int == 10_000_000)

            let big = try await server.request("/big?size=10000000")
            #expect(big.body.count == 10_000_000)
            #expect(big.body.prefix(16) == Data("0123456789abcdef".utf8))

            let chunked = try await server.request("/chunked")
            #expect(chunked.text == "first,second,third")

            let raw = try RawSocket.exchange(port: server.port, "GET /gzip HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n")
            #expect(raw.contains("Content-Encoding: gzip"))
            let decoded = try await server.request("/gzip").json()
            #expect(decoded["compressed"] as? Bool == true)
        }
    }

    @Test("upstream down is 502 hostConnectionError, slow is 504, a reset is 502; stubs are served meanwhile")
    func failures() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        let closedPort = try Self.unusedPort()
        let map = hostMap([("PROD", "127.0.0.1:\(prod.port)", "http"), ("DOWN", "127.0.0.1:\(closedPort)", "http")])
        try await LiveServer.with(
            files: ["stubs/s.json": Self.stub, "config/hosts.json": map], configure: { $0.upstream.responseTimeoutMilliseconds = 600 }
        ) { (server: LiveServer) async throws in
            let slowURL = server.baseURL + "/slow?ms=3000"
            async let slow = HTTPClient.request("GET", slowURL)
            // While the slow request waits, stubs still answer.
            #expect(try await server.request("/stubbed").text == "from stub")
            let timedOut = try await slow
            #expect(timedOut.status == 504)
            #expect(timedOut.header("X-Orrery-Error") == "timeout")
            #expect(try timedOut.json()["recoverySuggestion"] is String)

            // The head and the first bytes were relayed as they came: the client sees the body cut, as it would
            // from the upstream itself, and the journal says why.
            await #expect(throws: (any Error).self) { try await server.request("/reset") }
            let journal = try await server.request("/__admin/requests?limit=1").json()
            let newest = try #require((journal["requests"] as? [[String: Any]])?.first)
            #expect((newest["proxied"] as? [String: Any])?["error"] as? String == "connectionReset")
            #expect((newest["response"] as? [String: Any])?["bodySize"] as? Int == 10)

            _ = try await server.request("PUT", "/__admin/environments/api.example.com", body: Data(#"{"key": "DOWN"}"#.utf8))
            let down = try await server.request("/anything")
            #expect(down.status == 502)
            #expect(down.header("X-Orrery-Error") == "hostConnectionError")
            let json = try down.json()
            #expect(json["kind"] as? String == "hostConnectionError")
            #expect(json["environment"] as? String == "DOWN")
            #expect(json["upstream"] as? String == "http://127.0.0.1:\(closedPort)")
            #expect(json["failureReason"] is String)
            #expect(try await server.request("/stubbed").text == "from stub")
        }
    }

    @Test("a kept-alive connection the upstream closed while idle is not reused")
    func closedPooledConnection() async throws {
        var upstream = try FixtureProcess.upstream(name: "first")
        let port = upstream.port
        let map = hostMap([("PROD", "127.0.0.1:\(port)", "http")])
        try await LiveServer.with(files: ["config/hosts.json": map]) { (server: LiveServer) async throws in
            let first = try await server.request("/rec/whoami")
            #expect(first.status == 200)
            // The upstream goes away with Orrery's connection to it still in the pool, and comes back on the
            // same port: the pooled connection is dead, the upstream is not.
            upstream.stop()
            upstream = try FixtureProcess.upstream(name: "second", port: port)
            for _ in 0..<3 {
                let again = try await server.request("/rec/whoami")
                #expect(again.status == 200)
                #expect(again.header("X-Orrery-Error") == nil)
            }
        }
        upstream.stop()
    }

    @Test("a request the upstream closes a kept-alive connection on, unanswered, is sent again on a new one")
    func retriedOnNewConnection() async throws {
        let upstream = try FixtureProcess.upstream(name: "prod")
        let map = hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])
        try await LiveServer.with(files: ["config/hosts.json": map]) { (server: LiveServer) async throws in
            for _ in 0..<3 {
                let answer = try await server.request("/drop-second")
                #expect(answer.status == 200)
                #expect(answer.text == "ok")
            }
        }
        upstream.stop()
    }

    @Test("a response head that arrives in parts, a long line split between them, is read whole")
    func splitHead() async throws {
        let upstream = try FixtureProcess.upstream(name: "prod")
        let map = hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])
        try await LiveServer.with(files: ["config/hosts.json": map]) { (server: LiveServer) async throws in
            let answer = try await server.request("/split-head")
            #expect(answer.status == 200)
            #expect(answer.header("X-Long") == String(repeating: "a", count: 6000))
            #expect(answer.text == "ok")
        }
        upstream.stop()
    }

    @Test("a name that does not resolve is 502 hostNotFound")
    func hostNotFound() async throws {
        let dns = try FixtureProcess("nxdomain-dns.py")
        try await LiveServer.with(
            files: ["config/hosts.json": hostMap([("PROD", "no-such-host.example.invalid", "http")])],
            configure: { $0.upstream.dnsServer = "127.0.0.1:\(dns.port)" }
        ) { (server: LiveServer) async throws in
            let result = try await server.request("/x")
            #expect(result.status == 502)
            #expect(result.header("X-Orrery-Error") == "hostNotFound")
            // It says the name did not resolve, not that an upstream answered badly.
            let reason = try #require(try result.json()["failureReason"] as? String)
            #expect(reason.contains("no-such-host.example.invalid could not be resolved"), "\(reason)")
            #expect(!reason.contains("invalid response"))
        }
    }

    @Test("HTTPS upstreams are verified: trusted with --upstream-ca, refused without it")
    func https() async throws {
        let certificates = try TestCertificates()
        let secure = try FixtureProcess.upstream(name: "secure", tls: certificates)
        let map = hostMap([("PROD", "localhost:\(secure.port)", "https")])
        try await LiveServer.with(files: ["config/hosts.json": map], configure: { $0.upstream.caFile = certificates.caCertificate }) {
            (server: LiveServer) async throws in
            let result = try await server.request("/secure")
            #expect(result.status == 200)
            #expect(try result.json()["name"] as? String == "secure")
            #expect(try await server.request("/again").status == 200)
        }
        try await LiveServer.with(files: ["config/hosts.json": map]) { (server: LiveServer) async throws in
            let refused = try await server.request("/secure")
            #expect(refused.status == 502)
            #expect(refused.header("X-Orrery-Error") == "tlsError")
        }
    }

    @Test("injected secret headers reach the upstream and appear in no response of Orrery's")
    func injectedSecret() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        setenv("ORRERY_TEST_SECRET_TOKEN", "s3cr3t-value", 1)
        let map = hostMap([("PROD", "127.0.0.1:\(prod.port)", "http")], extra: #""inject_headers": {"X-Api-Key": "ORRERY_TEST_SECRET_TOKEN"},"#)
        try await LiveServer.with(files: ["config/hosts.json": map]) { (server: LiveServer) async throws in
            let echo = try await server.request("/who").json()
            let headers = (echo["headers"] as? [[String]] ?? []).map { $0.joined(separator: ": ") }
            #expect(headers.contains("X-Api-Key: s3cr3t-value"))
            for path in ["/__admin/environments", "/__admin/health", "/__admin/stubs"] {
                #expect(!(try await server.request(path).text.contains("s3cr3t")))
            }
        }
    }

    @Test("--no-proxy turns forwarding off: a miss is a 404")
    func noProxy() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(
            files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(prod.port)", "http")])], configure: { $0.isProxyEnabled = false }
        ) { (server: LiveServer) async throws in
            #expect(try await server.request("/who").status == 404)
            #expect(try await server.request("/__admin/health").json()["proxy"] as? Bool == false)
        }
    }

    /// A loopback port nothing listens on (bound, read, closed).
    static func unusedPort() throws -> Int {
        let socket = try LoopbackSocket()
        defer { close(socket.descriptor) }
        return socket.port
    }
}
