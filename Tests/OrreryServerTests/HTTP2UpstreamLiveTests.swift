import Foundation
import OrreryEvent
import OrreryServer
import Testing

/// Forwarding to HTTP/2 upstreams with real peers: a grpcio server and client (h2c, the host map's `"http2": true`),
/// proxied, recorded and replayed offline with their trailers; curl over HTTP/2 and HTTP/1.1 to an upstream that
/// speaks only h2 over TLS (ALPN); and an upstream's refusals, resets, GOAWAY and silence as 502 and 504.
@Suite("HTTP/2 upstreams", .serialized)
struct HTTP2UpstreamLiveTests {
    /// A host map whose one configuration sends everything to `host`, marked as speaking HTTP/2 when `http2`.
    static func hostMap(host: String, scheme: String = "http", http2: Bool) -> String {
        """
        { "configurations": [ {
            "canonical_host": "api.example.com", "canonical_protocol": "\(scheme)", "release_key": "PROD",
            "hosts": [ { "key": "PROD", "host": "\(host)", "protocol": "\(scheme)"\(http2 ? #", "http2": true"# : "") } ] } ] }
        """
    }

    /// One gRPC call as `grpc_peer.py client` reports it.
    struct Call: Decodable, Equatable {
        var method: String
        var code: String
        var details: String
        var responses: [String]
        var trailers: [String: String]
    }

    /// Runs the gRPC client against `port` (h2c, as grpcio does by default).
    static func grpcCalls(port: Int) throws -> [Call] {
        let output = try ClientProcess.run(
            "python3", [FixtureProcess.fixtures.appendingPathComponent("grpc_peer.py").path, "client", String(port)],
            timeout: 60)
        return try String(decoding: output, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Call.self, from: Data($0.utf8))
        }
    }

    /// Whether `calls` are the expected ones: same codes, messages and responses, and at least the expected
    /// trailing metadata (a trailers-only error through Orrery also shows its `via` and `content-length`).
    static func match(_ calls: [Call]) -> Bool {
        calls.count == expectedCalls.count
            && zip(calls, expectedCalls).allSatisfy { call, expected in
                call.method == expected.method && call.code == expected.code && call.details == expected.details
                    && call.responses == expected.responses
                    && expected.trailers.allSatisfy { call.trailers[$0.key] == $0.value }
            }
    }

    static func hex(_ text: String) -> String { Array(text.utf8).map { String(format: "%02x", $0) }.joined() }

    /// What the gRPC peer answers, called directly or through Orrery.
    static let expectedCalls = [
        Call(
            method: "Unary", code: "OK", details: "", responses: [hex("echo:hello")],
            trailers: ["x-served-by": "grpc-peer"]),
        Call(
            method: "Count", code: "OK", details: "", responses: ["item-1", "item-2", "item-3"].map(hex), trailers: [:]),
        Call(method: "Fail", code: "INVALID_ARGUMENT", details: "no such item: 42", responses: [], trailers: [:]),
    ]

    static func journal(_ server: LiveServer) async throws -> [[String: Any]] {
        try #require(try await server.request("/__admin/requests?limit=100").json()["requests"] as? [[String: Any]])
    }

    @Test(
        "gRPC through Orrery to a grpcio server over h2c: unary, server-streaming and an error status; recorded with trailers; replayed offline"
    )
    func grpcProxiedRecordedReplayed() async throws {
        let peer = try FixtureProcess("grpc_peer.py", ["server"])
        defer { peer.stop() }
        #expect(try Self.grpcCalls(port: peer.port) == Self.expectedCalls, "the peer itself")

        let recordings = try RecordingLiveTests.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        let files = ["config/hosts.json": Self.hostMap(host: "127.0.0.1:\(peer.port)", http2: true)]
        try await LiveServer.with(files: files) {
            $0.recording = RecordingSettings(folder: recordings.path)
        } _: { (server: LiveServer) async throws in
            let calls = try Self.grpcCalls(port: server.port)
            #expect(Self.match(calls), "through Orrery: \(calls)")
            let entries = try await Self.journal(server)
            let unary = try #require(
                entries.first { ($0["request"] as? [String: Any])?["path"] as? String == "/orrery.test.Echo/Unary" })
            let response = try #require(unary["response"] as? [String: Any])
            // The journal writes trailers as headers: a list of {name, value}.
            let trailers = "\(response["trailers"] ?? "none")"
            #expect(
                trailers.contains("grpc-status") && trailers.contains("x-served-by"), "journaled trailers: \(response)")
            #expect((unary["request"] as? [String: Any])?["httpVersion"] as? String == "2")
            let stopped = try await server.request("POST", "/__admin/recordings/stop").json()
            #expect(stopped["exchangesRecorded"] as? Int == 3)
        }
        let written = RecordingLiveTests.files(under: recordings)
        let fixtures = written.filter { $0.key.hasSuffix(".yaml") }.map { String(decoding: $0.value, as: UTF8.self) }
        #expect(
            fixtures.contains { $0.contains("trailers:") && $0.contains("grpc-status") && $0.contains("x-served-by") },
            "\(written.keys)")

        // The upstream is gone: the recording answers, trailers and all.
        peer.stop()
        try await LiveServer.with(files: [:]) {
            $0.isOffline = true
            $0.recording = RecordingSettings(folder: recordings.path, mode: .none)
        } _: { (server: LiveServer) async throws in
            let calls = try Self.grpcCalls(port: server.port)
            #expect(Self.match(calls), "replayed offline: \(calls)")
        }
    }

    @Test(
        "curl over HTTP/2 and HTTP/1.1 through Orrery to an upstream that speaks only h2 over TLS: bodies, trailers, request bodies"
    )
    func curlToTLSUpstream() async throws {
        let certificates = try TestCertificates()
        let upstream = try FixtureProcess(
            "h2_upstream.py", ["--name", "secure-h2", "--tls", certificates.serverCertificate, certificates.serverKey])
        defer { upstream.stop() }
        // No "http2" mark: ALPN says it.
        let files = [
            "config/hosts.json": Self.hostMap(host: "127.0.0.1:\(upstream.port)", scheme: "https", http2: false)
        ]
        try await LiveServer.with(files: files) {
            $0.upstream.caFile = certificates.caCertificate
        } _: { (server: LiveServer) async throws in
            let url = server.baseURL + "/hello"
            let h2 = try Curl.run(["-s", "--http2-prior-knowledge", "-D", "-", url])
            #expect(h2.hasPrefix("HTTP/2 200"), "\(h2)")
            #expect(h2.contains("hello over h2 from secure-h2"))
            #expect(h2.contains("x-checksum: sha-ok"), "trailers reach an HTTP/2 client: \(h2)")

            let chunked = try Curl.run(["-s", "--http1.1", "-H", "TE: trailers", "-D", "-", url])
            #expect(chunked.hasPrefix("HTTP/1.1 200"), "\(chunked)")
            #expect(chunked.lowercased().contains("transfer-encoding: chunked"))
            #expect(chunked.contains("hello over h2 from secure-h2"))
            #expect(chunked.contains("x-checksum: sha-ok"), "chunked trailers for TE: trailers: \(chunked)")

            let plain = try Curl.run(["-s", "--http1.1", "-D", "-", url])
            #expect(plain.contains("hello over h2 from secure-h2"))
            #expect(!plain.contains("x-checksum"), "no trailers for a client that did not ask: \(plain)")

            let echo = try Curl.run(["-s", "--http1.1", "--data-binary", "ping-body", server.baseURL + "/echo"])
            let fields = try #require(
                try JSONSerialization.jsonObject(with: Data(echo.utf8)) as? [String: Any], "\(echo)")
            #expect(fields["method"] as? String == "POST")
            #expect(fields["body"] as? String == "ping-body")
            #expect(fields["te"] as? String == "trailers")
            #expect(fields["authority"] as? String == "127.0.0.1:\(upstream.port)")

            // More than one flow-control window, streamed through, with its trailers at the end.
            for version in ["--http2-prior-knowledge", "--http1.1"] {
                let big = try Curl.run(["-s", version, "-H", "TE: trailers", "-D", "-", server.baseURL + "/big"])
                // The longest run of "x" is the body, whole and once (curl prints the trailer `x-size` right after it).
                let longestRun = big.replacingOccurrences(of: "x-size", with: "").utf8
                    .split { $0 != UInt8(ascii: "x") }.map(\.count).max()
                #expect(longestRun == 300_000, "\(version)")
                #expect(big.contains("x-size: 300000"), "\(version)")
            }

            let entries = try await Self.journal(server)
            #expect(
                entries.contains {
                    ($0["proxied"] as? [String: Any])?["upstream"] as? String == "https://127.0.0.1:\(upstream.port)"
                })
        }
    }

    @Test(
        "an h2c upstream's refused stream, reset, GOAWAY and silence, and a port nobody listens on: 502 and 504, the next request fine"
    )
    func upstreamErrors() async throws {
        let upstream = try FixtureProcess("h2_upstream.py", ["--name", "plain-h2"])
        defer { upstream.stop() }
        let files = ["config/hosts.json": Self.hostMap(host: "127.0.0.1:\(upstream.port)", http2: true)]
        try await LiveServer.with(files: files) {
            $0.upstream.responseTimeoutMilliseconds = 800
        } _: { (server: LiveServer) async throws in
            func status(_ path: String, _ version: String = "--http1.1") throws -> String {
                try Curl.run(["-s", version, "-o", "/dev/null", "-w", "%{http_code}", server.baseURL + path])
            }
            #expect(try status("/hello") == "200")
            #expect(try status("/refuse") == "502")
            #expect(try status("/hello", "--http2-prior-knowledge") == "200")
            #expect(try status("/goaway") == "502")
            #expect(try status("/hello") == "200")
            #expect(try status("/silent") == "504")
            #expect(try status("/hello") == "200")
            // Reset after the head and part of the body: the client sees the answer cut, the journal says why.
            let cut = try Curl.run(["-s", "--http1.1", "-w", "|%{http_code}", server.baseURL + "/reset"])
            #expect(cut.hasSuffix("|200") || cut.hasSuffix("|502"), "\(cut)")
            #expect(try status("/hello", "--http2-prior-knowledge") == "200")

            let entries = try await Self.journal(server)
            let refused = try #require(
                entries.first { ($0["request"] as? [String: Any])?["path"] as? String == "/refuse" })
            #expect("\(refused)".contains("REFUSED_STREAM"), "\(refused)")
            let reset = try #require(
                entries.first { ($0["request"] as? [String: Any])?["path"] as? String == "/reset" })
            #expect((reset["proxied"] as? [String: Any])?["error"] as? String == "connectionReset", "\(reset)")
        }

        // Nobody listens: the same 502 as for HTTP/1.1.
        let closedPort = try FixtureProcess("h2_upstream.py", ["--name", "gone"])
        let port = closedPort.port
        closedPort.stop()
        let refusedFiles = ["config/hosts.json": Self.hostMap(host: "127.0.0.1:\(port)", http2: true)]
        try await LiveServer.with(files: refusedFiles) { server in
            let refused = try Curl.run(["-s", "--http2-prior-knowledge", "-D", "-", server.baseURL + "/hello"])
            #expect(refused.hasPrefix("HTTP/2 502"), "\(refused)")
            #expect(
                refused.contains("x-orrery-error: hostConnectionError")
                    || refused.contains("X-Orrery-Error: hostConnectionError"), "\(refused)")
        }
    }
}
