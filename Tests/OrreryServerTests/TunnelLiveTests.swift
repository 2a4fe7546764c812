import Foundation
import OrreryEvent
import OrreryServer
import Testing

/// `CONNECT` tunnels: HTTPS clients that use Orrery as their proxy, against real upstreams on loopback.
@Suite("CONNECT tunnels", .serialized)
struct TunnelLiveTests {
    @Test("curl reaches an HTTPS upstream through Orrery as its proxy; 10 MB pass each way intact")
    func httpsThroughTunnel() async throws {
        let certificates = try TestCertificates()
        let secure = try FixtureProcess.upstream(name: "secure", tls: certificates)
        let prod = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(prod.port)", "http")])]) {
            (server: LiveServer) async throws in
            let base = "https://localhost:\(secure.port)"
            let echo = try Curl.run(["-s", "--cacert", certificates.caCertificate, "\(base)/echo"], proxy: server.baseURL)
            // The upstream's own answer, not forwarded by the environment map: the tunnel goes where CONNECT said.
            #expect(echo.contains("\"name\": \"secure\""))
            #expect(!echo.contains("orrery"))

            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-tunnel-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let upload = Data((0..<10_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) })
            try upload.write(to: scratch)
            let uploaded = try Curl.run(
                ["-s", "--cacert", certificates.caCertificate, "--data-binary", "@\(scratch.path)", "\(base)/echo"],
                proxy: server.baseURL)
            #expect(uploaded.contains("\"bodyLength\": 10000000"))
            #expect(uploaded.contains(try Self.sha256(of: scratch)))

            _ = try Curl.run(
                ["-s", "--cacert", certificates.caCertificate, "-o", scratch.path, "\(base)/big?size=10000000"], proxy: server.baseURL)
            let downloaded = try Data(contentsOf: scratch)
            #expect(downloaded.count == 10_000_000)
            #expect(downloaded.prefix(16) == Data("0123456789abcdef".utf8))
            #expect(downloaded.suffix(16) == Data("0123456789abcdef".utf8))
        }
    }

    @Test("bytes sent together with the CONNECT reach the upstream; the tunnel closes when the upstream does")
    func pipelinedBytes() async throws {
        let plain = try FixtureProcess.upstream(name: "plain")
        try await LiveServer.with(files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(plain.port)", "http")])]) {
            (server: LiveServer) async throws in
            let answer = try RawSocket.exchangeExpectingClose(
                port: server.port,
                "CONNECT 127.0.0.1:\(plain.port) HTTP/1.1\r\nHost: 127.0.0.1:\(plain.port)\r\n\r\n"
                    + "GET /echo/raw HTTP/1.1\r\nHost: tunnelled\r\nConnection: close\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200 OK\r\n"))
            #expect(answer.contains("\"path\": \"/echo/raw\""))
            #expect(answer.contains(#"["Host", "tunnelled"]"#))  // byte for byte: no Host rewriting, no Via
            #expect(!answer.contains("Via"))
        }
    }

    @Test("stubs answer while a tunnel is open, and stopping the daemon closes the tunnel")
    func stubsDuringTunnel() async throws {
        let plain = try FixtureProcess.upstream(name: "plain")
        let server = try LiveServer(files: [
            "stubs/s.json": ProxyLiveTests.stub,
            "config/hosts.json": hostMap([("PROD", "127.0.0.1:\(plain.port)", "http")]),
        ])
        var stopped = false
        defer { if !stopped { server.stop() } }

        let tunnel = try RawConnection(port: server.port)
        tunnel.send("CONNECT 127.0.0.1:\(plain.port) HTTP/1.1\r\nHost: 127.0.0.1:\(plain.port)\r\n\r\n")
        #expect(tunnel.read(through: "\r\n\r\n") == "HTTP/1.1 200 Connection Established\r\n\r\n")

        #expect(try await server.request("/stubbed").text == "from stub")
        // Two keep-alive requests through the same tunnel, each after the other's answer.
        for round in 1...2 {
            tunnel.send("GET /echo/\(round) HTTP/1.1\r\nHost: tunnelled\r\n\r\n")
            let answer = try Self.readResponse(from: tunnel)
            #expect(answer.hasPrefix("HTTP/1.1 200 OK"))
            #expect(answer.contains("\"path\": \"/echo/\(round)\""))
        }
        #expect(try await server.request("/stubbed").text == "from stub")

        server.stop()
        stopped = true
        #expect(tunnel.readToEnd().closed)
    }

    @Test("no loops through the daemon: a CONNECT to its own ports (main, session, by localhost) and a request back to it are 508")
    func loops() async throws {
        let plain = try FixtureProcess.upstream(name: "plain")
        let map = hostMap([("PROD", "127.0.0.1:\(plain.port)", "http"), ("USER", nil, "http")])
        try await LiveServer.with(files: ["config/hosts.json": map]) { (server: LiveServer) async throws in
            let session = try await SessionLiveTests.open(server, name: "looped")
            let connection = try RawConnection(port: server.port)
            for target in ["127.0.0.1:\(server.port)", "localhost:\(server.port)", "127.0.0.1:\(session.port)"] {
                connection.send("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n")
                let answer = try Self.readResponse(from: connection)
                #expect(answer.hasPrefix("HTTP/1.1 508 Loop Detected"), "\(target): \(answer.prefix(200))")
                #expect(answer.contains("X-Orrery-Error: loopDetected"))
                #expect(answer.contains("\"failureReason\""))
            }
            // The connection goes on, and a CONNECT elsewhere still works.
            connection.send("CONNECT 127.0.0.1:\(plain.port) HTTP/1.1\r\nHost: x\r\n\r\nGET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let after = String(decoding: connection.readToEnd().0, as: UTF8.self)
            #expect(after.contains("\"name\": \"plain\""))

            // A host map that points back at the daemon: the request comes back with its Via and is refused at once.
            let switched = try await server.request(
                "PUT", "/__admin/environments/api.example.com",
                body: Data(#"{"key": "USER", "host": "127.0.0.1:\#(server.port)", "protocol": "http"}"#.utf8))
            #expect(switched.status == 200, "\(switched.text)")
            let looped = try await server.request("/anything")
            #expect(looped.status == 508)
            #expect(looped.header("X-Orrery-Error") == "loopDetected")
            // Two exchanges in the journal (the one sent and the one that came back), not a hundred.
            let journal = try await server.request("/__admin/requests").json()
            #expect((journal["requests"] as? [Any])?.count == 2)
        }
    }

    @Test("a tunnel with no traffic either way closes after --tunnel-idle-timeout; one with traffic stays")
    func idleTunnel() async throws {
        let plain = try FixtureProcess.upstream(name: "plain")
        try await LiveServer.with(
            files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(plain.port)", "http")])],
            configure: { $0.http.tunnelIdleTimeoutMilliseconds = 1_500 }
        ) { (server: LiveServer) async throws in
            let busy = try RawConnection(port: server.port)
            let idle = try RawConnection(port: server.port)
            for tunnel in [busy, idle] {
                tunnel.send("CONNECT 127.0.0.1:\(plain.port) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(tunnel.read(through: "\r\n\r\n") == "HTTP/1.1 200 Connection Established\r\n\r\n")
            }
            // The busy one sends a request every 200 ms for 2.4 s: never idle for the 1.5 s timeout, but open longer
            // than it. (The suite runs its tests one at a time: beside the 10 MB transfers, this test's own reads
            // and sleeps were held up for seconds, the busy tunnel sat idle past the timeout, and the daemon closed
            // it as it should.)
            for round in 1...12 {
                busy.send("GET /echo/\(round) HTTP/1.1\r\nHost: tunnelled\r\n\r\n")
                #expect(try Self.readResponse(from: busy).contains("\"path\": \"/echo/\(round)\""))
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(idle.readToEnd().closed)
            busy.send("GET /echo/last HTTP/1.1\r\nHost: tunnelled\r\n\r\n")
            #expect(try Self.readResponse(from: busy).contains("/echo/last"))
        }
    }

    @Test("open tunnels count against --max-connections: at the limit the daemon stops accepting until one closes")
    func tunnelsCount() async throws {
        let plain = try FixtureProcess.upstream(name: "plain")
        try await LiveServer.with(
            files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(plain.port)", "http")])], threads: 1,
            configure: { $0.http.maxConnectionsPerLoop = 2 }
        ) { (server: LiveServer) async throws in
            var tunnels: [RawConnection] = []
            for _ in 0..<2 {
                let tunnel = try RawConnection(port: server.port)
                tunnel.send("CONNECT 127.0.0.1:\(plain.port) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(tunnel.read(through: "\r\n\r\n") == "HTTP/1.1 200 Connection Established\r\n\r\n")
                tunnels.append(tunnel)
            }
            // A third client waits in the backlog, unanswered, while both tunnels are open.
            let third = try RawConnection(port: server.port, timeout: 1)
            third.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(third.read(through: "\r\n\r\n") == nil)
            tunnels[0].close()
            #expect(third.read(through: "\r\n\r\n")?.hasPrefix("HTTP/1.1 200") == true)
        }
    }

    @Test("a refused CONNECT says why, framed so the connection goes on: closed port 502, no port 400, forwarding off 404")
    func refused() async throws {
        let plain = try FixtureProcess.upstream(name: "plain")
        let closedPort = try ProxyLiveTests.unusedPort()
        let map = hostMap([("PROD", "127.0.0.1:\(plain.port)", "http")])
        try await LiveServer.with(files: ["config/hosts.json": map]) { (server: LiveServer) async throws in
            let connection = try RawConnection(port: server.port)
            connection.send("CONNECT 127.0.0.1:\(closedPort) HTTP/1.1\r\nHost: 127.0.0.1:\(closedPort)\r\n\r\n")
            let down = try Self.readResponse(from: connection)
            #expect(down.hasPrefix("HTTP/1.1 502"))
            #expect(down.contains("X-Orrery-Error: hostConnectionError"))
            #expect(down.contains("\"upstream\": \"127.0.0.1:\(closedPort)\""))

            connection.send("CONNECT api.example.com HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
            let noPort = try Self.readResponse(from: connection)
            #expect(noPort.hasPrefix("HTTP/1.1 400"))
            #expect(noPort.contains("X-Orrery-Error: badConnectTarget"))

            // The same connection then opens a tunnel that works.
            connection.send("CONNECT 127.0.0.1:\(plain.port) HTTP/1.1\r\nHost: 127.0.0.1:\(plain.port)\r\n\r\nGET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let (bytes, closed) = connection.readToEnd()
            let after = String(decoding: bytes, as: UTF8.self)
            #expect(closed)
            #expect(after.hasPrefix("HTTP/1.1 200 Connection Established\r\n\r\n"))
            #expect(after.contains("\"name\": \"plain\""))
        }
        try await LiveServer.with(files: ["config/hosts.json": map], configure: { $0.isProxyEnabled = false }) {
            (server: LiveServer) async throws in
            let connection = try RawConnection(port: server.port)
            connection.send("CONNECT 127.0.0.1:\(plain.port) HTTP/1.1\r\nHost: 127.0.0.1:\(plain.port)\r\n\r\n")
            let off = try Self.readResponse(from: connection)
            #expect(off.hasPrefix("HTTP/1.1 404"))
            #expect(off.contains("forwarding is off"))
        }
    }

    /// Reads one response with a `Content-Length` from `connection`: its head and exactly that many body bytes.
    static func readResponse(from connection: RawConnection) throws -> String {
        let head = try #require(connection.read(through: "\r\n\r\n"), "no response head")
        let lengthLine = try #require(
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }, "no Content-Length in \(head)")
        let length = try #require(Int(lengthLine.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)))
        let body = try #require(connection.read(count: length), "the body ended early")
        return head + body
    }

    static func sha256(of file: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: data, as: UTF8.self).prefix(64))
    }
}
