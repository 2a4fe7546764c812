import Foundation
import Glibc
import OrreryCore
import OrreryEvent
import OrreryServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// HTTPS: the local CA, the TLS port, and `CONNECT`s intercepted so that HTTPS traffic is stubbed, journaled,
/// recorded and replayed; real clients (curl, Python, URLSession) and a real TLS upstream with its own test CA.
@Suite("HTTPS")
struct HTTPSLiveTests {
    static let stubs = [
        "stubs/api.yaml": """
            base: { host: api.example.test }
            stubs:
              - request: { method: GET, path: /hello }
                response: { json: { hello: tls } }
              - request: { method: POST, path: /echo }
                response: { template: true, json: { got: "{{request.body}}", scheme: "{{request.headers.x-scheme}}" } }
            """
    ]

    /// A daemon with a CA of its own (in the test's folder), a TLS port, and interception as `configure` says.
    static func with<Result>(
        files: [String: String] = stubs, configure: @escaping (inout DaemonConfiguration, URL) -> Void = { _, _ in },
        _ body: (LiveServer, String) async throws -> Result
    ) async throws -> Result {
        let ca = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: ca) }
        return try await LiveServer.with(files: files, configure: { configuration in
            configuration.caFolder = ca.path
            configuration.tlsPort = 0
            configure(&configuration, ca)
        }) { (server: LiveServer) async throws in
            try await body(server, ca.appendingPathComponent("ca.pem").path)
        }
    }

    @Test("curl and Python through Orrery as their proxy reach a stubbed HTTPS host, on one kept-alive tunnel")
    func interceptedStubs() async throws {
        try await Self.with(configure: { configuration, _ in configuration.interceptsEveryConnect = true }) { server, ca in
            let both = try Curl.run(
                ["-s", "--cacert", ca, "-w", "|%{num_connects}\n", "https://api.example.test/hello", "https://api.example.test/hello"],
                proxy: server.baseURL)
            #expect(both == "{\"hello\":\"tls\"}|1\n{\"hello\":\"tls\"}|0\n")

            let script = """
                import sys, http.client, ssl
                context = ssl.create_default_context(cafile=sys.argv[2])
                connection = http.client.HTTPSConnection("127.0.0.1", int(sys.argv[1]), context=context, timeout=10)
                connection.set_tunnel("api.example.test", 443)
                for body in ["one", "two"]:
                    connection.request("POST", "/echo", body=body, headers={"X-Scheme": "yes"})
                    answer = connection.getresponse()
                    print(answer.status, answer.read().decode())
                """
            let output = try ClientProcess.run("python3", ["-c", script, String(server.port), ca], timeout: 30)
            let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
            #expect(lines == [#"200 {"got":"one","scheme":"yes"}"#, #"200 {"got":"two","scheme":"yes"}"#])

            // The journal has them as https exchanges for the host the client named.
            let journal = try await server.request("/__admin/requests").json()
            let entries = try #require(journal["requests"] as? [[String: Any]])
            #expect(entries.count == 4)
            #expect(entries.allSatisfy { $0["scheme"] as? String == "https" })
            let urls = entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
            #expect(urls.contains("https://api.example.test/hello") && urls.contains("https://api.example.test/echo"))
        }
    }

    static let interceptEverything: @Sendable (inout DaemonConfiguration, URL) -> Void = { configuration, _ in
        configuration.interceptsEveryConnect = true
    }

    /// Runs Tests/Fixtures/tunnel_tls_client.py and decodes what it prints.
    static func tunnelClient(_ arguments: [String]) throws -> [String: Any] {
        let script = FixtureProcess.fixtures.appendingPathComponent("tunnel_tls_client.py").path
        let output = try ClientProcess.run("python3", [script] + arguments, timeout: 30)
        return try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
    }

    @Test("a ClientHello sent with the CONNECT, whole or in part, is read first: handshake and two requests succeed")
    func helloWithTheConnect() async throws {
        try await Self.with(configure: Self.interceptEverything) { server, ca in
            // The whole hello, a piece of its record header, and none of it (the usual client, which waits).
            for split in ["all", "3", "0"] {
                let answer = try Self.tunnelClient(["pipelined", String(server.port), ca, "api.example.test", split])
                let hello = #"200 {"hello":"tls"}"#
                #expect(answer["answers"] as? [String] == [hello, hello], "split \(split)")
                #expect(answer["version"] as? String == "TLSv1.3")
            }
            let journal = try await server.request("/__admin/requests").json()
            #expect((journal["requests"] as? [[String: Any]])?.count == 6)
        }
    }

    @Test(
        "requests that come together (with the handshake's end, each in its own record, one write) are all answered, on a tunnel and the TLS port, while the client does not read"
    )
    func requestsInOneWrite() async throws {
        // 8 KB answers: 1,500 of them fill the socket, so that answers written with SSL_write straight to the
        // socket meet a full one and go on through the bufferevent.
        let big = String(repeating: "x", count: 8_000)
        var files = Self.stubs
        files["stubs/big.yaml"] = """
            base: { host: api.example.test }
            stubs:
              - request: { method: GET, path: /big }
                response: { json: { big: "\(big)" } }
            """
        try await Self.with(files: files, configure: Self.interceptEverything) { server, ca in
            let tlsPort = try #require(server.daemon.tlsPort)
            let host = "api.example.test"
            for (path, count) in [("/hello", 1), ("/hello", 3), ("/big", 1_500)] {
                for (port, way) in [(server.port, "tunnel"), (tlsPort, "direct")] {
                    let answer = try Self.tunnelClient(["burst", String(port), ca, host, path, String(count), way])
                    #expect(answer["answers"] as? Int == count, "\(path) \(count) \(way)")
                    let expected = path == "/big" ? #"200 {"big":"\#(big)"}"# : #"200 {"hello":"tls"}"#
                    #expect(answer["distinct"] as? [String] == [expected], "\(path) \(count) \(way)")
                }
            }
        }
    }

    @Test(
        "a client that shuts its sending side after its request still reads the answer, sent after the end was read, in a tunnel and on the TLS port"
    )
    func halfClosedClient() async throws {
        var files = Self.stubs
        // The answer waits, so that the end of the client's input is read before it goes out.
        files["stubs/slow.yaml"] = """
            base: { host: api.example.test }
            stubs:
              - request: { method: GET, path: /slow }
                response: { json: { slow: true }, delay: 300 }
            """
        try await Self.with(files: files, configure: Self.interceptEverything) { server, ca in
            let tlsPort = try #require(server.daemon.tlsPort)
            for (port, way) in [(server.port, "tunnel"), (tlsPort, "direct")] {
                let answer = try Self.tunnelClient(["halfclose", String(port), ca, "api.example.test", "/slow", way])
                #expect(answer["distinct"] as? [String] == [#"200 {"slow":true}"#], "\(way)")
            }
        }
    }

    @Test("a client that offers its last session resumes it (TLS 1.3 and 1.2 tickets), in a tunnel and on the TLS port")
    func sessionResumption() async throws {
        try await Self.with(configure: Self.interceptEverything) { server, ca in
            let tlsPort = try #require(server.daemon.tlsPort)
            let host = "api.example.test"
            let proxy = String(server.port)
            let direct = String(tlsPort)
            for arguments in [
                [proxy, ca, host, "3"], [direct, ca, host, "3", "direct"],
                [proxy, ca, host, "3", "tunnel", "1.2"], [direct, ca, host, "3", "direct", "1.2"],
            ] {
                let answer = try Self.tunnelClient(["resume"] + arguments)
                #expect(answer["reused"] as? [Bool] == [false, true, true], "\(arguments)")
                #expect(Set(answer["serials"] as? [String] ?? []).count == 1)
                #expect((answer["answers"] as? [String])?.allSatisfy { $0 == #"200 {"hello":"tls"}"# } == true)
            }
        }
    }

    @Test("a restarted daemon presents the leaf it stored beside the CA: the same serial, through a tunnel")
    func leafSurvivesRestart() async throws {
        let ca = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: ca) }
        var serials: [String] = []
        for _ in 0..<2 {
            try await LiveServer.with(
                files: Self.stubs,
                configure: { configuration in
                    configuration.caFolder = ca.path
                    configuration.interceptsEveryConnect = true
                }
            ) { (server: LiveServer) async throws in
                let answer = try Self.tunnelClient(
                    ["resume", String(server.port), ca.appendingPathComponent("ca.pem").path, "api.example.test", "1"])
                serials += answer["serials"] as? [String] ?? []
            }
        }
        #expect(serials.count == 2 && serials[0] == serials[1], "\(serials)")
        #expect(FileManager.default.fileExists(atPath: ca.appendingPathComponent("leaves/api.example.test.pem").path))
    }

    @Test("on the TLS port an answer that closes its connection reaches the client before the close")
    func answersBeforeCloseOnTLS() async throws {
        try await Self.with { server, ca in
            let port = try #require(server.daemon.tlsPort)
            let url = "https://127.0.0.1:\(port)/hello"
            let host = ["-H", "Host: api.example.test"]
            let closing = try Curl.run(["-s", "--cacert", ca, "-H", "Connection: close"] + host + [url])
            #expect(closing == #"{"hello":"tls"}"#)
            let old = try Curl.run(["-s", "--cacert", ca, "--http1.0"] + host + [url])
            #expect(old == #"{"hello":"tls"}"#)
            // An error Orrery closes after (400 for a request without Host) arrives whole too.
            let script = """
                import socket, ssl, sys
                context = ssl.create_default_context(cafile=sys.argv[2])
                context.check_hostname = False
                with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10) as raw:
                    with context.wrap_socket(raw) as tls:
                        tls.sendall(b"GET / HTTP/1.1\\r\\n\\r\\n")
                        data = b""
                        while True:
                            piece = tls.recv(65536)
                            if not piece: break
                            data += piece
                print(data.split(b"\\r\\n")[0].decode())
                """
            let output = try ClientProcess.run("python3", ["-c", script, String(port), ca], timeout: 30)
            #expect(String(decoding: output, as: UTF8.self) == "HTTP/1.1 400 Bad Request\n")
        }
    }

    @Test("the TLS port serves what the main port serves, and /__admin/ca.pem is the CA")
    func tlsPort() async throws {
        try await Self.with { server, ca in
            let port = try #require(server.daemon.tlsPort)
            let health = try Curl.run(["-s", "--cacert", ca, "https://127.0.0.1:\(port)/__admin/health"])
            #expect(health.contains("\"ok\""))
            let named = try Curl.run(
                ["-s", "--cacert", ca, "--resolve", "api.example.test:\(port):127.0.0.1", "https://api.example.test:\(port)/hello"])
            #expect(named == #"{"hello":"tls"}"#)
            // Its URL in the journal and the HAR is absolute, as an intercepted request's is.
            let journal = try await server.request("/__admin/requests").json()
            let urls = (journal["requests"] as? [[String: Any]] ?? []).compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
            #expect(urls.contains("https://api.example.test:\(port)/hello"), "\(urls)")
            #expect(try await server.request("/__admin/requests.har").text.contains("https://api.example.test:\(port)/hello"))
            // The CA served over the admin API is the one on disk, and no key is in it.
            let pem = try await server.request("/__admin/ca.pem")
            #expect(pem.status == 200)
            #expect(pem.text == (try String(contentsOfFile: ca, encoding: .utf8)))
            #expect(!pem.text.contains("PRIVATE KEY"))
        }
    }

    @Test("an intercepted request no stub answers goes to the real host over verified TLS; an unverified one is a 502 that says why")
    func forwardedOverVerifiedTLS() async throws {
        let certificates = try TestCertificates()
        let secure = try FixtureProcess.upstream(name: "secure", tls: certificates)
        // A host map (any) turns forwarding on; the upstream is not in it, so requests go where CONNECT said.
        let files = Self.stubs.merging(["config/hosts.json": hostMap([("PROD", "127.0.0.1:1", "http")])]) { $1 }
        try await Self.with(files: files, configure: { configuration, _ in
            configuration.interceptsEveryConnect = true
            configuration.upstream.caFile = certificates.caCertificate
        }) { server, ca in
            let echo = try Curl.run(["-s", "--cacert", ca, "https://127.0.0.1:\(secure.port)/echo"], proxy: server.baseURL)
            #expect(echo.contains("\"name\": \"secure\""))
            let journal = try await server.request("/__admin/requests").json()
            let entry = try #require((journal["requests"] as? [[String: Any]])?.first)
            #expect((entry["proxied"] as? [String: Any])?["upstream"] as? String == "https://127.0.0.1:\(secure.port)")
        }
        try await Self.with(files: files, configure: { configuration, _ in configuration.interceptsEveryConnect = true }) {
            server, ca in
            // Without the upstream's CA, its certificate cannot be verified.
            // HTTP/1.1 inside the tunnel, as this test reads its head (curl would otherwise take h2 by ALPN).
            let refused = try Curl.run(
                ["-s", "-i", "--http1.1", "--cacert", ca, "https://127.0.0.1:\(secure.port)/echo"],
                proxy: server.baseURL)
            #expect(refused.hasPrefix("HTTP/1.1 200 Connection Established"))
            #expect(refused.contains("HTTP/1.1 502 Bad Gateway"))
            #expect(refused.contains("X-Orrery-Error: tlsError"))
            #expect(refused.contains("could not be verified"))
            #expect(refused.contains("\"failureReason\" : \"The TLS connection to the upstream failed") || refused.contains("\"failureReason\": \"The TLS connection to the upstream failed"))
        }
    }

    @Test("HTTPS traffic recorded through an intercepted tunnel replays with the upstream gone, offline, through the tunnel again")
    func recordAndReplay() async throws {
        let certificates = try TestCertificates()
        let secure = try FixtureProcess.upstream(name: "recorded", tls: certificates)
        let recordings = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-https-rec-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: recordings) }
        let files = ["config/hosts.json": hostMap([("PROD", "127.0.0.1:1", "http")])]
        let target = "https://localhost:\(secure.port)/recorded?x=1"
        let recorded = try await Self.with(files: files, configure: { configuration, _ in
            configuration.interceptsEveryConnect = true
            configuration.upstream.caFile = certificates.caCertificate
            configuration.recording = RecordingSettings(folder: recordings.path)
        }) { server, ca in
            try Curl.run(["-s", "--cacert", ca, target], proxy: server.baseURL)
        }
        #expect(recorded.contains("\"name\": \"recorded\""))
        secure.stop()
        try await Self.with(files: [:], configure: { configuration, _ in
            configuration.interceptsEveryConnect = true
            configuration.isOffline = true
            configuration.recording = RecordingSettings(folder: recordings.path, mode: .none)
        }) { server, ca in
            let replayed = try Curl.run(["-s", "--cacert", ca, target], proxy: server.baseURL)
            #expect(replayed == recorded)
        }
    }

    @Test("a CONNECT to a host not intercepted stays a blind tunnel: the client sees the upstream's own certificate")
    func blindTunnel() async throws {
        let certificates = try TestCertificates()
        let secure = try FixtureProcess.upstream(name: "blind", tls: certificates)
        let files = Self.stubs.merging(["config/hosts.json": hostMap([("PROD", "127.0.0.1:1", "http")])]) { $1 }
        let pattern = try HostPattern("*.example.test")
        try await Self.with(files: files, configure: { configuration, _ in
            configuration.interceptedHosts = [pattern]
        }) { server, ca in
            // Intercepted: Orrery's certificate, the stub's answer.
            #expect(try Curl.run(["-s", "--cacert", ca, "https://api.example.test/hello"], proxy: server.baseURL) == #"{"hello":"tls"}"#)
            // Not intercepted: only the upstream's own CA verifies what comes back.
            let blind = try Curl.run(["-s", "--cacert", certificates.caCertificate, "https://localhost:\(secure.port)/echo"], proxy: server.baseURL)
            #expect(blind.contains("\"name\": \"blind\""))
            let withOrreryCA = try Curl.run(["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", ca, "https://localhost:\(secure.port)/echo"], proxy: server.baseURL)
            #expect(withOrreryCA == "000")
        }
    }

    @Test("garbage, plain HTTP and silent clients on the TLS port are dropped; the daemon goes on serving")
    func hostileClients() async throws {
        try await Self.with(configure: { configuration, _ in configuration.http.headerTimeoutMilliseconds = 300 }) { server, ca in
            let port = try #require(server.daemon.tlsPort)
            var generator = SeededGenerator(seed: 0x7153)
            for _ in 0..<20 {
                let noise = (0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let answer = try RawSocket.exchange(port: port, noise, timeout: 3)
                #expect(!answer.contains("HTTP/1.1 200"))
            }
            // Plain HTTP on the TLS port: the handshake fails and the connection ends (a reset, since the rest of
            // the request is left unread).
            let plain = try RawConnection(port: port, timeout: 3)
            plain.send("GET /__admin/health HTTP/1.1\r\nHost: x\r\n\r\n")
            let (answer, closed) = plain.readToEnd()
            #expect(!String(decoding: answer, as: UTF8.self).contains("200 OK"))
            #expect(closed || plain.lastError == ECONNRESET)
            // Silent clients are closed after the handshake deadline (the header timeout).
            let silent = try (0..<10).map { _ in try RawConnection(port: port, timeout: 3) }
            for connection in silent {
                let (bytes, closed) = connection.readToEnd()
                #expect(bytes.isEmpty && closed)
            }
            #expect(try Curl.run(["-s", "--cacert", ca, "https://127.0.0.1:\(port)/__admin/health"]).contains("\"ok\""))
        }
    }
}

/// URLSession over HTTPS to Orrery. On Linux, URLSession (libcurl) trusts only the system's CA bundle, so the
/// requests run in a child copy of this test binary, in a mount namespace of its own where the bundle also holds
/// Orrery's CA: the machine's own trust is never touched.
@Suite("HTTPS with URLSession")
struct URLSessionHTTPSTests {
    static let bundle = "/etc/ssl/certs/ca-certificates.crt"

    /// Whether this machine lets a process make its own user and mount namespaces (some containers do not).
    static let canUseNamespaces: Bool = {
        guard FileManager.default.fileExists(atPath: bundle), FileManager.default.fileExists(atPath: "/proc/self/exe"),
            ClientProcess.isInstalled("unshare")
        else { return false }
        return (try? ClientProcess.run("unshare", ["-rm", "true"], timeout: 10)) != nil
    }()

    @Test(
        "URLSession reaches the TLS port, and a stubbed host through Orrery as its https_proxy",
        .enabled(if: canUseNamespaces, "needs user and mount namespaces (unshare -rm) to trust the test CA"))
    func urlSession() async throws {
        try await HTTPSLiveTests.with(configure: { configuration, _ in configuration.interceptsEveryConnect = true }) {
            server, ca in
            let port = try #require(server.daemon.tlsPort)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-probe-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let combined = folder.appendingPathComponent("bundle.crt").path
            let log = folder.appendingPathComponent("probe.log").path
            let script = #"cat "$1" "$2" > "$3" && mount --bind "$3" "$4" && shift 4 && exec "$@""#
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            var environment = ProcessInfo.processInfo.environment.filter { !$0.key.lowercased().hasSuffix("_proxy") }
            environment[URLSessionHTTPSProbe.directVariable] = "https://localhost:\(port)/__admin/health"
            environment[URLSessionHTTPSProbe.proxiedVariable] = "https://api.example.test/hello"
            environment[URLSessionHTTPSProbe.proxyVariable] = server.baseURL
            environment["no_proxy"] = "127.0.0.1,localhost"
            let child = Process()
            child.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            child.arguments = [
                "unshare", "-rm", "/bin/sh", "-c", script, "sh", Self.bundle, ca, combined, Self.bundle, executable,
                "--testing-library", "swift-testing", "--filter", "URLSessionHTTPSProbe",
            ]
            child.environment = environment
            _ = FileManager.default.createFile(atPath: log, contents: nil)  // FileHandle below says why if it failed
            child.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            child.standardError = child.standardOutput
            try child.run()
            let deadline = ContinuousClock.now + .seconds(60)
            while child.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            if child.isRunning { kill(child.processIdentifier, SIGKILL) }
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(child.terminationReason == .exit && child.terminationStatus == 0, "\(output.suffix(3000))")
            #expect(output.contains("Test probe() passed"), "\(output.suffix(3000))")
        }
    }
}

/// Runs only in the child process started above, whose CA bundle trusts the test CA.
@Suite struct URLSessionHTTPSProbe {
    static let directVariable = "ORRERY_HTTPS_PROBE_DIRECT"
    static let proxiedVariable = "ORRERY_HTTPS_PROBE_PROXIED"
    static let proxyVariable = "ORRERY_HTTPS_PROBE_PROXY"

    @Test(.enabled(if: ProcessInfo.processInfo.environment[directVariable] != nil))
    func probe() async throws {
        let environment = ProcessInfo.processInfo.environment
        let direct = try #require(environment[Self.directVariable].flatMap(URL.init(string:)))
        let proxied = try #require(environment[Self.proxiedVariable].flatMap(URL.init(string:)))
        let session = URLSession(configuration: .ephemeral)
        let (health, first) = try await session.data(from: direct)
        #expect((first as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: health, as: UTF8.self).contains("\"ok\""))
        // libcurl reads the proxy from the environment per request; api.example.test is not in no_proxy.
        setenv("https_proxy", try #require(environment[Self.proxyVariable]), 1)
        let (hello, second) = try await session.data(from: proxied)
        #expect((second as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: hello, as: UTF8.self) == #"{"hello":"tls"}"#)
    }
}
