import Foundation
import OrreryEvent
import OrreryServer
import Testing

/// HTTP/2 with real clients (curl, nghttp, httpx, the h2 library): h2c by prior knowledge and by Upgrade, h2 by
/// ALPN on the TLS port and inside intercepted tunnels, every stream its own request, faults per stream, and the
/// attack limits written as hand-made frames.
@Suite("HTTP/2")
struct HTTP2LiveTests {
    static let stubs = [
        "stubs/h2.yaml": """
        - request: { method: GET, path: /fast }
          response: { json: { fast: true } }
        - request: { method: GET, path: /slow }
          response: { json: { slow: true }, delay: 500 }
        - request: { method: GET, path: /reset }
          response: { fault: connectionReset }
        - request: { method: GET, path: /empty }
          response: { fault: emptyResponse }
        - request: { method: GET, path: /malformed }
          response: { fault: malformedResponse }
        - request: { method: GET, path: /truncated }
          response: { body: "0123456789abcdef0123456789abcdef", fault: truncatedBody }
        - request: { method: GET, path: /hold }
          response: { fault: noResponse }
        - request: { method: GET, path: /throttled }
          response: { body: "0123456789abcdef0123456789abcdef0123456789", throttle: { bytesPerSecond: 200 } }
        - request: { method: POST, path: /echo }
          response: { body: "{{request.method}} {{request.body}} {{request.headers.x-tag}}", template: true }
        - request: { method: GET, path: /big }
          response: { body: "\(String(repeating: "0123456789", count: 20_000))" }
        - request: { method: POST, path: /grpc.Greeter/SayHello }
          response:
            headers: { content-type: application/grpc }
            body: "\\0\\0\\0\\0\\0"
            trailers: { grpc-status: "0", grpc-message: OK }
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
        """
    ]

    static func with<Result>(
        configure: @escaping (inout DaemonConfiguration) -> Void = { _ in }, _ body: (LiveServer) async throws -> Result
    ) async throws -> Result {
        try await LiveServer.with(files: stubs, configure: configure, body)
    }

    static func journal(_ server: LiveServer) async throws -> [[String: Any]] {
        try #require(try await server.request("/__admin/requests?limit=100").json()["requests"] as? [[String: Any]])
    }

    @Test(
        "curl with prior knowledge and with Upgrade: h2c, and nghttp multiplexing: answers over HTTP/2, journaled as 2")
    func curlAndNghttp() async throws {
        try await Self.with { server in
            let prior = try Curl.run([
                "-s", "--http2-prior-knowledge", "-w", "|%{http_version}", server.baseURL + "/fast",
            ])
            #expect(prior == #"{"fast":true}|2"#)
            let upgraded = try Curl.run(["-s", "--http2", "-w", "|%{http_version}", server.baseURL + "/fast"])
            #expect(upgraded == #"{"fast":true}|2"#)
            let http1 = try Curl.run(["-s", "--http1.1", "-w", "|%{http_version}", server.baseURL + "/fast"])
            #expect(http1 == #"{"fast":true}|1.1"#)
            // A body that spans many DATA frames, and a POST answered by a template.
            let big = try Curl.run(["-s", "--http2-prior-knowledge", server.baseURL + "/big"])
            #expect(big.count == 200_000)
            let echo = try Curl.run(
                [
                    "-s", "--http2-prior-knowledge", "-H", "X-Tag: t1", "--data-binary", "hello",
                    server.baseURL + "/echo",
                ])
            #expect(echo == "POST hello t1")

            if ClientProcess.isInstalled("nghttp") {
                let output = try ClientProcess.run(
                    "nghttp", ["-ns", server.baseURL + "/slow", server.baseURL + "/fast", server.baseURL + "/reset"])
                let text = String(decoding: output, as: UTF8.self)
                #expect(text.contains("/fast") && text.contains("/slow"), "\(text)")
            }

            let entries = try await Self.journal(server)
            let versions = entries.compactMap { entry -> String? in
                let request = entry["request"] as? [String: Any]
                return "\(request?["path"] as? String ?? "?") \(request?["httpVersion"] as? String ?? "1.1")"
            }
            #expect(versions.filter { $0 == "/fast 2" }.count >= 2)
            #expect(versions.contains("/fast 1.1"))
            #expect(versions.contains("/echo 2"))
            let har = try await server.request("/__admin/requests.har").text
            #expect(har.contains(#""httpVersion":"HTTP/2""#) || har.contains(#""httpVersion": "HTTP/2""#))
        }
    }

    @Test(
        "streams are independent: a delayed and a throttled stream hold back no other, and each fault breaks its stream only"
    )
    func streamsAndFaults() async throws {
        try await Self.with { server in
            let paths = [
                "/slow", "/fast", "/reset", "/empty", "/malformed", "/truncated", "/throttled", "/hold", "/big",
            ]
            let result = try H2Client.send(port: server.port, paths.map { H2Client.Request($0) }, timeout: 3)
            let streams = Dictionary(uniqueKeysWithValues: zip(paths, result.streams))
            let slow = try #require(streams["/slow"])
            let fast = try #require(streams["/fast"])
            #expect(slow.status == "200" && slow.body == #"{"slow":true}"#)
            #expect(fast.status == "200" && fast.body == #"{"fast":true}"#)
            let slowMs = try #require(slow.ms)
            let fastMs = try #require(fast.ms)
            #expect(slowMs >= 450 && fastMs < slowMs - 300, "fast \(fastMs) ms, slow \(slowMs) ms")
            // connectionReset: RST_STREAM INTERNAL_ERROR; emptyResponse: closed with no HEADERS.
            #expect(streams["/reset"]?.status == nil && streams["/reset"]?.reset == 2)
            #expect(streams["/empty"]?.status == nil && streams["/empty"]?.reset == 0)
            // malformedResponse: HEADERS no client accepts (a :status that is not one).
            #expect(streams["/malformed"]?.status == "orrery")
            // truncatedBody: the full length declared, half the body, then a reset.
            let truncated = try #require(streams["/truncated"])
            #expect(truncated.status == "200" && truncated.values("content-length") == ["32"])
            #expect(truncated.body == "0123456789abcdef" && truncated.reset == 2)
            let throttled = try #require(streams["/throttled"])
            #expect(throttled.body.count == 42 && (throttled.ms ?? 0) >= 150)
            // noResponse: held open.
            #expect(streams["/hold"]?.ms == nil && streams["/hold"]?.status == nil)
            #expect(streams["/big"]?.bytes.count == 200_000)
            #expect(result.goaway == nil)

            let faults = try await Self.journal(server).compactMap { $0["fault"] as? String }
            #expect(
                Set(faults).isSuperset(of: ["connectionReset", "emptyResponse", "malformedResponse", "truncatedBody"]))
        }
    }

    @Test("sessions by x-orrery-session and on a session's port, scenarios and the admin API, all over HTTP/2")
    func sessionsAndAdmin() async throws {
        try await Self.with { server in
            let created = try Curl.run(
                [
                    "-s", "--http2-prior-knowledge", "-X", "POST", "-d", #"{"name": "h2"}"#,
                    server.baseURL + "/__admin/sessions",
                ])
            let session = try #require(try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])
            let id = try #require(session["id"] as? String)
            let port = try #require(session["port"] as? Int)
            let stub = #"{"request": {"method": "GET", "path": "/mine"}, "response": {"body": "mine"}}"#
            let added = try Curl.run(
                [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2-prior-knowledge", "-d", stub,
                    "http://127.0.0.1:\(port)/__admin/stubs",
                ])
            #expect(added == "201")

            let answers = try H2Client.send(
                port: server.port,
                [
                    H2Client.Request("/mine", headers: [("x-orrery-session", id)]), H2Client.Request("/mine"),
                ])
            #expect(answers.streams.map(\.status) == ["200", "404"])
            #expect(answers.streams.first?.body == "mine")

            // The scenario moves in the session, one request at a time, on the session's own port.
            var bodies: [String] = []
            for request in [
                H2Client.Request("/cart"), H2Client.Request("POST", "/cart/checkout"), H2Client.Request("/cart"),
            ] {
                let stream = try #require(try H2Client.send(port: port, [request]).streams.first)
                bodies.append("\(stream.status ?? "-") \(stream.body)")
            }
            #expect(bodies == [#"200 {"items":1}"#, "201 ", #"200 {"items":0}"#])
            // The main session's scenario has not moved.
            let main = try H2Client.send(port: server.port, [H2Client.Request("/cart")])
            #expect(main.streams.first?.body == #"{"items":1}"#)

            let journal = try Curl.run(["-s", "--http2-prior-knowledge", "http://127.0.0.1:\(port)/__admin/requests"])
            let entries = try #require(
                (try JSONSerialization.jsonObject(with: Data(journal.utf8)) as? [String: Any])?["requests"]
                    as? [[String: Any]])
            #expect(entries.allSatisfy { $0["session"] as? String == id })
            #expect(entries.allSatisfy { ($0["request"] as? [String: Any])?["httpVersion"] as? String == "2" })
        }
    }

    @Test("the dashboard's event stream over HTTP/2: exchanges arrive as DATA on a stream that stays open")
    func eventStream() async throws {
        try await Self.with { server in
            let result = try H2Client.send(
                port: server.port, [H2Client.Request("/__admin/requests/stream"), H2Client.Request("/fast")],
                timeout: 1.5)
            let events = try #require(result.streams.first)
            #expect(
                events.status == "200" && events.values("content-type").first?.hasPrefix("text/event-stream") == true)
            #expect(events.ms == nil, "the stream stays open")
            #expect(events.body.contains("/fast"), "\(events.body.prefix(300))")
            #expect(result.streams.last?.body == #"{"fast":true}"#)
        }
    }

    @Test("h2 by ALPN on the TLS port and inside an intercepted CONNECT, with curl and httpx; http/1.1 still offered")
    func alpn() async throws {
        try await HTTPSLiveTests.with(configure: { configuration, _ in configuration.interceptsEveryConnect = true }) {
            server, ca in
            let port = try #require(server.daemon.tlsPort)
            let named = [
                "-s", "--cacert", ca, "--resolve", "api.example.test:\(port):127.0.0.1", "-w", "|%{http_version}",
            ]
            let direct = try Curl.run(named + ["--http2", "https://api.example.test:\(port)/hello"])
            #expect(direct == #"{"hello":"tls"}|2"#)
            let old = try Curl.run(named + ["--http1.1", "https://api.example.test:\(port)/hello"])
            #expect(old == #"{"hello":"tls"}|1.1"#)
            let tunnelled = try Curl.run(
                ["-s", "--cacert", ca, "--http2", "-w", "|%{http_version}", "https://api.example.test/hello"],
                proxy: server.baseURL)
            #expect(tunnelled == #"{"hello":"tls"}|2"#)

            let script = """
                import sys, httpx
                with httpx.Client(http2=True, verify=sys.argv[2], proxy="http://127.0.0.1:" + sys.argv[1], trust_env=False) as client:
                    for body in ["one", "two"]:
                        answer = client.post("https://api.example.test/echo", content=body, headers={"X-Scheme": "h2"})
                        print(answer.http_version, answer.status_code, answer.text)
                """
            let output = try ClientProcess.run("python3", ["-c", script, String(server.port), ca], timeout: 30)
            #expect(
                String(decoding: output, as: UTF8.self).split(separator: "\n")
                    == [#"HTTP/2 200 {"got":"one","scheme":"h2"}"#, #"HTTP/2 200 {"got":"two","scheme":"h2"}"#])

            let entries = try await Self.journal(server)
            let tunnelledEntries = entries.filter {
                ($0["request"] as? [String: Any])?["url"] as? String == "https://api.example.test/echo"
            }
            #expect(tunnelledEntries.count == 2)
            #expect(tunnelledEntries.allSatisfy { ($0["request"] as? [String: Any])?["httpVersion"] as? String == "2" })
        }
    }

    @Test("a stub's trailers: HTTP/2 trailers, HTTP/1.1 chunked trailers for TE: trailers, and none for other clients")
    func trailers() async throws {
        try await Self.with { server in
            let result = try H2Client.send(port: server.port, [H2Client.Request("POST", "/grpc.Greeter/SayHello")])
            let stream = try #require(result.streams.first)
            #expect(stream.status == "200" && stream.values("content-type") == ["application/grpc"])
            #expect(stream.bytes == [0, 0, 0, 0, 0])
            #expect(stream.trailers == [["grpc-status", "0"], ["grpc-message", "OK"]])

            let script = """
                import socket, sys
                for te in ["TE: trailers\\r\\n", ""]:
                    with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10) as s:
                        s.sendall(("POST /grpc.Greeter/SayHello HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 0\\r\\n" + te
                                   + "Connection: close\\r\\n\\r\\n").encode())
                        data = b""
                        while True:
                            piece = s.recv(65536)
                            if not piece:
                                break
                            data += piece
                    head, _, body = data.partition(b"\\r\\n\\r\\n")
                    print(repr(body), b"chunked" in head.lower(), b"content-length: 5" in head.lower())
                """
            let output = String(
                decoding: try ClientProcess.run("python3", ["-c", script, String(server.port)]), as: UTF8.self)
            #expect(
                output.split(separator: "\n") == [
                    #"b'5\r\n\x00\x00\x00\x00\x00\r\n0\r\ngrpc-status: 0\r\ngrpc-message: OK\r\n\r\n' True False"#,
                    #"b'\x00\x00\x00\x00\x00' False True"#,
                ])
        }
    }

    /// Each attack, the GOAWAY code it gets (nil: refused streams instead), and what else is expected.
    static let attacks: [(name: String, goaway: Int?)] = [
        ("rapid-reset", 2),  // nghttp2's own limit: INTERNAL_ERROR
        ("continuation-flood", 11),  // ENHANCE_YOUR_CALM
        ("hpack-bomb", 11),
        ("header-list", 11),
        ("ping-flood", 11),
        ("settings-flood", 11),
        ("zero-window", 3),  // FLOW_CONTROL_ERROR once the idle timeout passes with nothing sent
        ("max-streams", nil),
    ]

    @Test("attacks get GOAWAY (or refused streams) and the connection closed; the daemon and other connections go on")
    func attacks() async throws {
        try await Self.with(configure: {
            $0.http.idleTimeoutMilliseconds = 1000
            $0.http.http2MaxStreams = 10
        }) { server in
            for (name, goaway) in Self.attacks {
                let outcome = try H2Client.attack(name, port: server.port)
                if let goaway {
                    #expect(outcome.goaway?.error == goaway, "\(name): \(outcome)")
                } else {
                    // Twelve streams at once where ten are allowed: the last two are refused (REFUSED_STREAM).
                    #expect(outcome.resets == ["21": 7, "23": 7], "\(name): \(outcome)")
                }
                let after = try Curl.run(["-s", "--http2-prior-knowledge", server.baseURL + "/fast"])
                #expect(after == #"{"fast":true}"#, "after \(name)")
            }
        }
    }

    @Test("over TLS too, a flood and an HPACK bomb get their GOAWAY before the close")
    func attacksOverTLS() async throws {
        try await HTTPSLiveTests.with { server, ca in
            let port = try #require(server.daemon.tlsPort)
            for name in ["ping-flood", "hpack-bomb", "continuation-flood"] {
                let outcome = try H2Client.attack(name, port: port, tls: true)
                #expect(outcome.goaway?.error == 11, "\(name): \(outcome)")
            }
            let after = try Curl.run(
                [
                    "-s", "--cacert", ca, "--resolve", "api.example.test:\(port):127.0.0.1", "--http2",
                    "https://api.example.test:\(port)/hello",
                ])
            #expect(after == #"{"hello":"tls"}"#)
        }
    }
}

/// The proxy and recording with HTTP/2 clients: an HTTP/1.1 upstream's answers relayed on streams, recorded, and
/// replayed offline over HTTP/2 as they were recorded.
@Suite("HTTP/2 forwarding and recording")
struct HTTP2RecordingLiveTests {
    static let requests: [H2Client.Request] = [
        .init("/rec/json?b=2&a=1"), .init("/rec/text"), .init("/rec/image.png"), .init("/chunked"), .init("/rec/big"),
        .init(
            "POST", "/rec/orders", headers: [("Content-Type", "application/json")], body: Array(#"{"sku":"A"}"#.utf8)),
    ]

    @Test("forwarded streams are relayed and recorded; the recording replays offline over HTTP/2, byte for byte")
    func recordThenReplay() async throws {
        let recordings = try RecordingLiveTests.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        let upstream = try FixtureProcess.upstream(name: "prod")
        var recorded: [H2Client.Stream] = []
        try await LiveServer.with(files: [
            "config/hosts.json": hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])
        ]) {
            $0.recording = RecordingSettings(folder: recordings.path)
        } _: { (server: LiveServer) async throws in
            recorded = try H2Client.send(port: server.port, Self.requests, timeout: 10).streams
            #expect(recorded.map(\.status) == ["200", "200", "200", "200", "200", "201"])
            #expect(recorded.allSatisfy { $0.reset == nil && $0.ms != nil })
            let stopped = try await server.request("POST", "/__admin/recordings/stop").json()
            #expect(stopped["exchangesRecorded"] as? Int == Self.requests.count)
        }
        upstream.stop()
        let written = RecordingLiveTests.files(under: recordings)
        #expect(written.keys.contains("api.example.com/rec/json.GET.yaml"))
        try await LiveServer.with(files: [:]) {
            $0.isOffline = true
            $0.recording = RecordingSettings(folder: recordings.path, mode: .none)
        } _: { (server: LiveServer) async throws in
            var replay = Self.requests
            replay[0] = .init("/rec/json?a=1&b=2")
            let replayed = try H2Client.send(port: server.port, replay, timeout: 10).streams
            for (index, (before, after)) in zip(recorded, replayed).enumerated() {
                #expect(after.status == before.status, "\(replay[index].path)")
                #expect(after.bytes == before.bytes, "\(replay[index].path)")
                #expect(after.values("content-type") == before.values("content-type"), "\(replay[index].path)")
            }
        }
    }
}
