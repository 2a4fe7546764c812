import Foundation
import OrreryEvent
import OrreryServer
import Testing

/// WebSocket and server-sent-event stubs, with real clients: Python's `websockets`, Node's WebSocket, curl, and raw
/// frames from Python for what a well-behaved client never sends.
@Suite("Real-time stubs")
struct RealtimeLiveTests {
    static let chat = """
        - name: chat
          request:
            path: /chat
            websocket: true
          response:
            websocket:
              onOpen:
                - text: welcome
              onMessage:
                - match: { json: { type: ping } }
                  reply:
                    - json: { type: pong }
                - match: { contains: hello }
                  reply:
                    - text: "you said {{message.text}}"
                      template: true
                    - text: later
                      delay: 150
                - match: { binaryEqualTo: AAFiaW5hcnk= }
                  reply:
                    - binary: AQI=
                - match: bye
                  reply: [ see you ]
                  close: { code: 4000, reason: done }
        - name: scores
          request:
            path: /scores
          response:
            events:
              - event: score
                data: { home: 1, away: 0 }
                id: "1"
              - data: "second\\nline"
                delay: 200
                retry: 1000
              - data: third
                delay: 200
        - name: open scores
          request:
            path: /live
          response:
            keepOpen: true
            events:
              - data: first
        """

    static var hasWebsockets: Bool {
        ClientProcess.isInstalled("python3")
            && (try? ClientProcess.run("python3", ["-c", "import websockets"], timeout: 30)) != nil
    }

    static func python(_ mode: String, port: Int, _ argument: String? = nil) throws -> [String: Any] {
        let script = FixtureProcess.fixtures.appendingPathComponent("websocket_client.py").path
        let output = try ClientProcess.run(
            "python3", [script, mode, String(port)] + (argument.map { [$0] } ?? []), timeout: 30)
        return try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
    }

    static func journal(_ server: LiveServer) async throws -> [[String: Any]] {
        let answer = try await server.request("/__admin/requests")
        return try #require(try answer.json()["requests"] as? [[String: Any]])
    }

    @Test(
        "Python's websockets client: onOpen, JSON and template replies with a delay, a miss, a ping, binary, a close",
        .enabled(if: hasWebsockets))
    func scriptPlays() async throws {
        try await LiveServer.with(files: ["stubs/chat.yaml": Self.chat]) { server in
            let result = try Self.python("script", port: server.port)
            let seen = try #require(result["seen"] as? [Any])
            #expect(seen.count == 6)
            #expect(seen.first as? String == "welcome")
            #expect(seen[1] as? String == #"{"type":"pong"}"#)
            #expect(seen[2] as? String == "you said hello there")
            #expect(seen[3] as? String == "later")
            #expect((seen[4] as? [String: Any])?["binary"] as? [Int] == [1, 2])
            #expect(seen[5] as? String == "see you")
            #expect((result["delayMs"] as? Double ?? 0) >= 140)
            #expect(result["closeCode"] as? Int == 4000)
            #expect(result["closeReason"] as? String == "done")

            // The socket is journaled once it ends: the 101 and every message, the miss marked.
            let entry = try #require(try await Self.journal(server).first)
            #expect((entry["response"] as? [String: Any])?["status"] as? Int == 101)
            let messages = try #require(entry["messages"] as? [[String: Any]])
            let miss = try #require(messages.first { $0["text"] as? String == "nothing matches this" })
            #expect(miss["direction"] as? String == "client")
            #expect(miss["matched"] as? Bool == false)
            #expect(messages.contains { $0["opcode"] as? String == "ping" && $0["direction"] as? String == "client" })
            #expect(messages.contains { $0["opcode"] as? String == "pong" && $0["direction"] as? String == "server" })
            #expect(messages.contains { $0["opcode"] as? String == "binary" && $0["size"] as? Int == 8 })
            #expect(messages.last?["opcode"] as? String == "close")
        }
    }

    @Test("Two sockets at once each hear the answers to their own messages", .enabled(if: hasWebsockets))
    func socketsIsolate() async throws {
        try await LiveServer.with(files: ["stubs/chat.yaml": Self.chat]) { server in
            let result = try Self.python("isolated", port: server.port)
            #expect(result["answers"] as? [String] == ["you said hello from first", "you said hello from second"])
        }
    }

    @Test("Node's WebSocket client", .enabled(if: ClientProcess.isInstalled("node")))
    func nodeClient() async throws {
        try await LiveServer.with(files: ["stubs/chat.yaml": Self.chat]) { server in
            let script = """
                const ws = new WebSocket("ws://127.0.0.1:\(server.port)/chat");
                const seen = [];
                const timer = setTimeout(() => { console.log(JSON.stringify({ seen, timeout: true })); process.exit(1); }, 10000);
                ws.onmessage = (event) => { seen.push(event.data); if (event.data === "welcome") ws.send("bye"); };
                ws.onclose = (event) => { clearTimeout(timer); console.log(JSON.stringify({ seen, code: event.code, reason: event.reason })); };
                """
            let version = try ClientProcess.run(
                "node", ["-e", "console.log(typeof globalThis.WebSocket)"], timeout: 30)
            let flags =
                String(decoding: version, as: UTF8.self).contains("function") ? [] : ["--experimental-websocket"]
            let output = try ClientProcess.run("node", flags + ["-e", script], timeout: 30)
            let result = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
            #expect(result["seen"] as? [String] == ["welcome", "see you"])
            #expect(result["code"] as? Int == 4000)
            #expect(result["reason"] as? String == "done")
        }
    }

    @Test(
        "Unmasked frames, invalid UTF-8, reserved bits and oversized control frames get their close codes",
        .enabled(if: ClientProcess.isInstalled("python3")))
    func badFrames() async throws {
        try await LiveServer.with(files: ["stubs/chat.yaml": Self.chat]) { server in
            let cases: [(frames: String, code: Int)] = [
                ("810568656c6c6f", 1002),  // "hello" unmasked
                ("8182" + "00000000" + "c328", 1007),  // text that is not UTF-8
                ("c18100000000" + "41", 1002),  // RSV1 with no extension agreed
                ("89fe007e00000000" + String(repeating: "00", count: 126), 1002),  // a ping of 126 bytes
                ("8080" + "00000000", 1002),  // a continuation with no message begun
            ]
            for (frames, code) in cases {
                let result = try Self.python("raw", port: server.port, frames)
                #expect((result["status"] as? String)?.hasPrefix("HTTP/1.1 101") == true)
                let sent = try #require(result["frames"] as? [[String: Any]])
                #expect(sent.last?["opcode"] as? Int == 8, "\(frames)")
                #expect(sent.last?["code"] as? Int == code, "\(frames)")
            }
            // The daemon is unaffected: a plain request still answers.
            #expect(try await server.request("/scores").status == 200)
        }
    }

    @Test("A request for a WebSocket stub's path without the upgrade is a miss that says so; a bad handshake is a 400")
    func notAnUpgrade() async throws {
        try await LiveServer.with(files: ["stubs/chat.yaml": Self.chat]) { server in
            let plain = try await server.request("/chat")
            #expect(plain.status == 404)
            #expect(plain.text.contains("Upgrade"))
            let old = try await server.request(
                "/chat",
                headers: [
                    "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "8",
                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                ])
            #expect(old.status == 400)
            #expect(old.text.contains("version 13"))
        }
    }

    @Test(
        "Server-sent events arrive as they are due, with their fields, and the stream ends",
        .enabled(if: ClientProcess.isInstalled("python3")))
    func eventsTiming() async throws {
        try await LiveServer.with(files: ["stubs/chat.yaml": Self.chat]) { server in
            let result = try Self.python("events", port: server.port, "/scores")
            let raw = try #require(result["raw"] as? String)
            #expect(raw.contains("Content-Type: text/event-stream"))
            #expect(raw.contains("event: score\nid: 1\ndata: {\"home\":1,\"away\":0}\n\n"))
            #expect(raw.contains("retry: 1000\ndata: second\ndata: line\n\n"))
            let arrivals = try #require(result["arrivals"] as? [Double])
            #expect(arrivals.count == 3)
            // Each event waits for its delay after the one before it (the timing is the feature under test).
            if arrivals.count == 3 {
                #expect(arrivals[1] - arrivals[0] >= 180)
                #expect(arrivals[2] - arrivals[1] >= 180)
            }
        }
    }

    @Test(
        "curl reads a stream to its end, and a keepOpen stream stays open after its events",
        .enabled(if: ClientProcess.isInstalled("curl")))
    func curlStreams() async throws {
        try await LiveServer.with(files: ["stubs/chat.yaml": Self.chat]) { server in
            let output = try ClientProcess.run(
                "curl", ["-sN", "--max-time", "10", "http://127.0.0.1:\(server.port)/scores"], timeout: 30)
            #expect(String(decoding: output, as: UTF8.self).hasSuffix("data: third\n\n"))
            // curl gives up after its --max-time on a stream that stays open (exit 28), having read the first event.
            let open = try RawConnection(port: server.port)
            open.send("GET /live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(open.read(through: "data: first\n\n") != nil)
            let journal = try await Self.journal(server)
            #expect(journal.contains { ($0["request"] as? [String: Any])?["path"] as? String == "/live" })
        }
    }

    @Test(
        "A WebSocket no stub answers is forwarded to the host map's upstream, frame by frame, and journaled",
        .enabled(if: hasWebsockets))
    func forwarded() async throws {
        let upstream = try FixtureProcess("websocket_upstream.py")
        defer { upstream.stop() }
        let map = hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])
        try await LiveServer.with(files: ["config/hosts.json": map]) { server in
            let result = try Self.python("forwarded", port: server.port)
            let seen = try #require(result["seen"] as? [Any])
            #expect(seen.count == 3)
            #expect(seen.first as? String == "opened /feed")
            #expect(seen.dropFirst().first as? String == "echo: hi")
            #expect(seen.last as? [Int] == [3, 2, 1])
            #expect(result["closeCode"] as? Int == 4001)
            let entry = try #require(try await Self.journal(server).first)
            #expect((entry["response"] as? [String: Any])?["status"] as? Int == 101)
            #expect((entry["proxied"] as? [String: Any])?["environment"] as? String == "PROD")
            let messages = try #require(entry["messages"] as? [[String: Any]])
            let texts = messages.compactMap { message -> String? in
                guard let text = message["text"] as? String, let direction = message["direction"] as? String else {
                    return nil
                }
                return direction + " " + text
            }
            #expect(Array(texts.prefix(3)) == ["server opened /feed", "client hi", "server echo: hi"])
            #expect(messages.contains { $0["opcode"] as? String == "binary" && $0["direction"] as? String == "client" })
            #expect(
                messages.contains { $0["opcode"] as? String == "close" && $0["text"] as? String == "4001 asked to" })
        }
    }

    @Test(
        "A forwarded WebSocket is recorded into a stub that replays the server's messages, offline",
        .enabled(if: hasWebsockets))
    func recordedAndReplayed() async throws {
        let recordings = try RecordingLiveTests.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        let upstream = try FixtureProcess("websocket_upstream.py")
        let map = hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])
        let recorded = try await LiveServer.with(files: ["config/hosts.json": map]) {
            $0.recording = RecordingSettings(folder: recordings.path)
        } _: { server in
            let result = try Self.python("forwarded", port: server.port)
            _ = try await server.request("POST", "/__admin/recordings/stop")
            return result
        }
        upstream.stop()
        let file = recordings.appendingPathComponent("api.example.com/feed.WEBSOCKET.json")
        #expect(FileManager.default.fileExists(atPath: file.path))
        // No upstream now, and the daemon offline: the recording answers.
        try await LiveServer.with(files: [:]) {
            $0.isOffline = true
            $0.recording = RecordingSettings(folder: recordings.path, mode: .none)
        } _: { server in
            let replayed = try Self.python("forwarded", port: server.port)
            #expect(replayed["closeCode"] as? Int == recorded["closeCode"] as? Int)
            let seen = try #require(replayed["seen"] as? [Any])
            #expect(seen.first as? String == "opened /feed")
            #expect(seen.dropFirst().first as? String == "echo: hi")
            #expect(seen.last as? [Int] == [3, 2, 1])
        }
    }

    /// The `forwarded` client's run against the echo upstream, as every way of reaching it should see it.
    static func expectEchoed(_ result: [String: Any], path: String = "/feed") {
        let seen = result["seen"] as? [Any] ?? []
        #expect(seen.count == 3, "\(result)")
        #expect(seen.first as? String == "opened \(path)")
        #expect(seen.dropFirst().first as? String == "echo: hi")
        #expect(seen.last as? [Int] == [3, 2, 1])
        #expect(result["closeCode"] as? Int == 4001)
    }

    static func forwardedOverTLS(port: Int, ca: String, url: String, tunnel: String? = nil) throws -> [String: Any] {
        let script = FixtureProcess.fixtures.appendingPathComponent("websocket_client.py").path
        let output = try ClientProcess.run(
            "python3", [script, "forwarded-tls", String(port), ca, url] + (tunnel.map { [$0] } ?? []), timeout: 30)
        return try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
    }

    @Test(
        "A WebSocket forwarded to a wss:// upstream: verified with --upstream-ca, frame by frame, journaled; refused without it",
        .enabled(if: hasWebsockets))
    func forwardedToTLSUpstream() async throws {
        let certificates = try TestCertificates()
        let upstream = try FixtureProcess(
            "websocket_upstream.py", ["--tls", certificates.serverCertificate, certificates.serverKey])
        defer { upstream.stop() }
        let map = hostMap([("PROD", "localhost:\(upstream.port)", "https")])
        try await LiveServer.with(files: ["config/hosts.json": map]) {
            $0.upstream.caFile = certificates.caCertificate
        } _: { server in
            Self.expectEchoed(try Self.python("forwarded", port: server.port))
            let entry = try #require(try await Self.journal(server).first)
            #expect((entry["response"] as? [String: Any])?["status"] as? Int == 101)
            #expect(
                (entry["proxied"] as? [String: Any])?["upstream"] as? String == "https://localhost:\(upstream.port)")
            let messages = try #require(entry["messages"] as? [[String: Any]])
            #expect(messages.contains { $0["text"] as? String == "echo: hi" && $0["direction"] as? String == "server" })
            #expect(
                messages.contains { $0["opcode"] as? String == "close" && $0["text"] as? String == "4001 asked to" })
        }
        // Without the test CA the upstream's certificate cannot be verified: a 502 that says so, nothing relayed.
        try await LiveServer.with(files: ["config/hosts.json": map]) { server in
            let raw = try Self.python("raw-upgrade", port: server.port, "api.example.com")
            #expect(raw["status"] as? String == "HTTP/1.1 502 Bad Gateway", "\(raw)")
            let body = raw["body"] as? String ?? ""
            #expect(body.contains("could not be verified"), "\(body)")
            #expect((raw["headers"] as? String ?? "").contains("X-Orrery-Error: tlsError"), "\(raw)")
        }
    }

    @Test(
        "wss:// to Orrery's TLS port and inside an intercepted CONNECT, forwarded to a wss:// upstream",
        .enabled(if: hasWebsockets))
    func tlsClientToTLSUpstream() async throws {
        let certificates = try TestCertificates()
        let upstream = try FixtureProcess(
            "websocket_upstream.py", ["--tls", certificates.serverCertificate, certificates.serverKey])
        defer { upstream.stop() }
        let files = ["config/hosts.json": hostMap([("PROD", "localhost:\(upstream.port)", "https")])]
        try await HTTPSLiveTests.with(files: files) { configuration, _ in
            configuration.interceptsEveryConnect = true
            configuration.upstream.caFile = certificates.caCertificate
        } _: { server, ca in
            // The TLS port: the host map sends api.example.com to the wss:// upstream.
            let port = try #require(server.daemon.tlsPort)
            Self.expectEchoed(try Self.forwardedOverTLS(port: port, ca: ca, url: "wss://api.example.com/feed"))
            // Inside a CONNECT to the upstream itself: Orrery's leaf for localhost, then the real one beyond it.
            let target = "localhost:\(upstream.port)"
            Self.expectEchoed(
                try Self.forwardedOverTLS(port: server.port, ca: ca, url: "wss://\(target)/inside", tunnel: target),
                path: "/inside")
            let journal = try await Self.journal(server)
            let inside = try #require(journal.first { "\($0)".contains("/inside") }, "\(journal)")
            #expect("\(inside)".contains("https://\(target)/inside"), "\(inside)")
            #expect((inside["response"] as? [String: Any])?["status"] as? Int == 101)
            #expect((inside["messages"] as? [[String: Any]])?.contains { $0["text"] as? String == "echo: hi" } == true)
        }
    }

    @Test(
        "A WebSocket forwarded to a wss:// upstream is recorded, then replayed offline with the upstream gone",
        .enabled(if: hasWebsockets))
    func tlsUpstreamRecordedAndReplayed() async throws {
        let recordings = try RecordingLiveTests.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        let certificates = try TestCertificates()
        let upstream = try FixtureProcess(
            "websocket_upstream.py", ["--tls", certificates.serverCertificate, certificates.serverKey])
        let map = hostMap([("PROD", "localhost:\(upstream.port)", "https")])
        let recorded = try await LiveServer.with(files: ["config/hosts.json": map]) {
            $0.upstream.caFile = certificates.caCertificate
            $0.recording = RecordingSettings(folder: recordings.path)
        } _: { server in
            let result = try Self.python("forwarded", port: server.port)
            _ = try await server.request("POST", "/__admin/recordings/stop")
            return result
        }
        upstream.stop()
        Self.expectEchoed(recorded)
        let file = recordings.appendingPathComponent("api.example.com/feed.WEBSOCKET.json")
        #expect(FileManager.default.fileExists(atPath: file.path))
        try await LiveServer.with(files: [:]) {
            $0.isOffline = true
            $0.recording = RecordingSettings(folder: recordings.path, mode: .none)
        } _: { server in
            Self.expectEchoed(try Self.python("forwarded", port: server.port))
        }
    }

    static func http2(_ mode: String, port: Int, _ arguments: [String] = []) throws -> [String: Any] {
        let script = FixtureProcess.fixtures.appendingPathComponent("websocket_h2_client.py").path
        let output = try ClientProcess.run("python3", [script, mode, String(port)] + arguments, timeout: 60)
        return try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
    }

    static var hasH2: Bool {
        ClientProcess.isInstalled("python3")
            && (try? ClientProcess.run("python3", ["-c", "import h2"], timeout: 30)) != nil
    }

    /// What the `script` mode of the HTTP/2 client must see from the chat stub, whichever way it connects.
    static func expectHTTP2Script(_ result: [String: Any]) {
        #expect(result["connectProtocol"] as? Int == 1, "\(result)")
        #expect(result["status"] as? Int == 200)
        #expect(result["accept"] as? Bool == false)
        let seen = result["seen"] as? [Any] ?? []
        #expect(seen.count == 8, "\(result)")
        guard seen.count == 8 else { return }
        #expect(seen[0] as? String == "welcome")
        #expect(seen[1] as? String == #"{"type":"pong"}"#)
        #expect(seen[2] as? String == "you said hello there")
        #expect(seen[3] as? String == "later")
        #expect((seen[4] as? [String: Any])?["pong"] as? String == "are you there")
        #expect((seen[5] as? [String: Any])?["binary"] as? [Int] == [1, 2])
        #expect(seen[6] as? String == "see you")
        #expect((seen[7] as? [String: Any])?["close"] as? Int == 4000)
        #expect((seen[7] as? [String: Any])?["reason"] as? String == "done")
        #expect((result["delayMs"] as? Double ?? 0) >= 140)
        // The close ends the stream; the request beside it on the same connection was answered.
        #expect(result["ended"] as? Bool == true)
        #expect(result["otherStatus"] as? Int == 200)
    }

    @Test(
        "RFC 8441 over h2c: SETTINGS_ENABLE_CONNECT_PROTOCOL, an extended CONNECT answered 200, the script as DATA, journaled",
        .enabled(if: hasH2))
    func http2Script() async throws {
        try await LiveServer.with(files: ["stubs/chat.yaml": Self.chat]) { server in
            Self.expectHTTP2Script(try Self.http2("script", port: server.port))
            let journal = try await Self.journal(server)
            let entry = try #require(journal.first { "\($0)".contains("/chat") }, "\(journal)")
            let request = try #require(entry["request"] as? [String: Any])
            #expect(request["httpVersion"] as? String == "2")
            #expect((entry["response"] as? [String: Any])?["status"] as? Int == 200)
            let messages = try #require(entry["messages"] as? [[String: Any]])
            let texts = messages.compactMap { message -> String? in
                guard let text = message["text"] as? String, let direction = message["direction"] as? String else {
                    return nil
                }
                return direction + " " + text
            }
            // The client's message as Python's json.dumps wrote it; the stub's reply as compact JSON.
            #expect(
                Array(texts.prefix(3)) == ["server welcome", #"client {"type": "ping"}"#, #"server {"type":"pong"}"#])
            #expect(texts.last == "server 4000 done")
            #expect(messages.contains { $0["opcode"] as? String == "ping" && $0["direction"] as? String == "client" })
        }
    }

    @Test("RFC 8441 over h2 on the TLS port (ALPN h2): the same script", .enabled(if: hasH2))
    func http2OverTLS() async throws {
        try await HTTPSLiveTests.with(files: ["stubs/chat.yaml": Self.chat]) { server, ca in
            let port = try #require(server.daemon.tlsPort)
            Self.expectHTTP2Script(try Self.http2("script", port: port, ["--ca=\(ca)"]))
        }
    }

    @Test(
        "RFC 8441: bad frames close their own stream with their code; the streams beside them are answered",
        .enabled(if: hasH2))
    func http2BadFrames() async throws {
        try await LiveServer.with(files: ["stubs/chat.yaml": Self.chat]) { server in
            let cases: [(frames: String, code: Int)] = [
                ("810568656c6c6f", 1002),  // "hello" unmasked
                ("8182" + "00000000" + "c328", 1007),  // text that is not UTF-8
                ("81ff" + "0000000001000001" + "00000000", 1009),  // a frame of 16 MiB and one byte
                ("c18100000000" + "41", 1002),  // RSV1 with no extension agreed
            ]
            let result = try Self.http2("bad", port: server.port, cases.map(\.frames))
            let closes = try #require(result["closes"] as? [[String: Any]])
            #expect(closes.map { $0["code"] as? Int } == cases.map(\.code), "\(result)")
            #expect(closes.allSatisfy { $0["ended"] as? Bool == true }, "\(result)")
            #expect(result["otherStatus"] as? Int == 200)
        }
    }

    @Test(
        "RFC 8441: a WebSocket no stub answers is forwarded over HTTP/1.1 to ws:// and wss:// upstreams, journaled",
        .enabled(if: hasH2 && hasWebsockets))
    func http2Forwarded() async throws {
        let certificates = try TestCertificates()
        let plain = try FixtureProcess("websocket_upstream.py")
        defer { plain.stop() }
        let secure = try FixtureProcess(
            "websocket_upstream.py", ["--tls", certificates.serverCertificate, certificates.serverKey])
        defer { secure.stop() }
        for (host, scheme) in [("127.0.0.1:\(plain.port)", "http"), ("localhost:\(secure.port)", "https")] {
            try await LiveServer.with(files: ["config/hosts.json": hostMap([("PROD", host, scheme)])]) {
                $0.upstream.caFile = certificates.caCertificate
            } _: { server in
                let result = try Self.http2("forwarded", port: server.port)
                #expect(result["status"] as? Int == 200, "\(result)")
                let seen = result["seen"] as? [Any] ?? []
                #expect(seen.first as? String == "opened /feed", "\(result)")
                #expect(seen.dropFirst().first as? String == "echo: hi")
                #expect((seen.dropFirst(2).first as? [String: Any])?["binary"] as? [Int] == [3, 2, 1])
                #expect((seen.last as? [String: Any])?["close"] as? Int == 4001)
                #expect(result["ended"] as? Bool == true)
                let entry = try #require(try await Self.journal(server).first)
                #expect((entry["request"] as? [String: Any])?["httpVersion"] as? String == "2")
                #expect((entry["response"] as? [String: Any])?["status"] as? Int == 200)
                #expect((entry["proxied"] as? [String: Any])?["upstream"] as? String == "\(scheme)://\(host)")
                let messages = try #require(entry["messages"] as? [[String: Any]])
                #expect(
                    messages.contains { $0["text"] as? String == "echo: hi" && $0["direction"] as? String == "server" })
            }
        }
    }

    @Test(
        "A proxied event stream reaches the client as the upstream sends it, not when it ends",
        .enabled(if: ClientProcess.isInstalled("python3")))
    func proxiedEvents() async throws {
        let upstream = try FixtureProcess.upstream(name: "prod")
        defer { upstream.stop() }
        try await LiveServer.with(files: [
            "config/hosts.json": hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])
        ]) { server in
            let result = try Self.python("proxied-events", port: server.port, "/events?ms=300&count=3")
            let raw = try #require(result["raw"] as? String)
            #expect(raw.contains("data: tick 0\n\n"))
            #expect(raw.contains("data: tick 2\n\n"))
            let arrivals = try #require(result["arrivals"] as? [Double])
            #expect(arrivals.count == 3)
            // Three events 300 ms apart: the first must not wait for the last.
            if arrivals.count == 3 { #expect(arrivals[2] - arrivals[0] >= 450) }
        }
    }

    @Test(
        "Python's websockets client over wss:// on the TLS port: the script plays as on ws://, the close included",
        .enabled(if: hasWebsockets))
    func overTLS() async throws {
        let script = """
            import asyncio, json, socket, ssl, sys
            import websockets

            async def main():
                context = ssl.create_default_context(cafile=sys.argv[2])
                sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
                async with websockets.connect(
                        "wss://api.example.test/chat", sock=sock, ssl=context, server_hostname="api.example.test",
                        proxy=None, open_timeout=5) as ws:
                    seen = [await asyncio.wait_for(ws.recv(), 5)]
                    await ws.send("hello there")
                    seen.append(await asyncio.wait_for(ws.recv(), 5))
                    seen.append(await asyncio.wait_for(ws.recv(), 5))
                    await ws.send("bye")
                    seen.append(await asyncio.wait_for(ws.recv(), 5))
                    try:
                        await asyncio.wait_for(ws.recv(), 5)
                        code = None
                    except websockets.ConnectionClosed as closed:
                        code = closed.rcvd.code
                print(json.dumps({"seen": seen, "closeCode": code}))

            asyncio.run(main())
            """
        try await HTTPSLiveTests.with(files: ["stubs/chat.yaml": Self.chat]) { server, ca in
            let port = try #require(server.daemon.tlsPort)
            let output = try ClientProcess.run("python3", ["-c", script, String(port), ca], timeout: 30)
            let result = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
            #expect(result["seen"] as? [String] == ["welcome", "you said hello there", "later", "see you"])
            #expect(result["closeCode"] as? Int == 4000)
            // The TLS port still answers HTTP once the socket is closed.
            let health = try Curl.run(["-s", "--cacert", ca, "https://127.0.0.1:\(port)/__admin/health"])
            #expect(health.contains("\"ok\""))
        }
    }

    @Test(
        "Python's websockets client inside an intercepted CONNECT: the stub answers over the tunnel's TLS, journaled",
        .enabled(if: hasWebsockets))
    func insideInterceptedConnect() async throws {
        let script = """
            import asyncio, json, socket, ssl, sys
            import websockets

            async def main():
                context = ssl.create_default_context(cafile=sys.argv[2])
                sock = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
                sock.sendall(b"CONNECT api.example.test:443 HTTP/1.1\\r\\nHost: api.example.test:443\\r\\n\\r\\n")
                head = b""
                while b"\\r\\n\\r\\n" not in head:
                    chunk = sock.recv(1)
                    if not chunk:
                        break
                    head += chunk
                status = int(head.split(b" ")[1])
                async with websockets.connect(
                        "wss://api.example.test/chat", sock=sock, ssl=context, server_hostname="api.example.test",
                        proxy=None, open_timeout=5) as ws:
                    seen = [await asyncio.wait_for(ws.recv(), 5)]
                    await ws.send(json.dumps({"type": "ping"}))
                    seen.append(await asyncio.wait_for(ws.recv(), 5))
                    await ws.send("bye")
                    seen.append(await asyncio.wait_for(ws.recv(), 5))
                    try:
                        await asyncio.wait_for(ws.recv(), 5)
                        code = None
                    except websockets.ConnectionClosed as closed:
                        code = closed.rcvd.code
                print(json.dumps({"connect": status, "seen": seen, "closeCode": code}))

            asyncio.run(main())
            """
        let intercepting: (inout DaemonConfiguration, URL) -> Void = { configuration, _ in
            configuration.interceptsEveryConnect = true
        }
        try await HTTPSLiveTests.with(files: ["stubs/chat.yaml": Self.chat], configure: intercepting) { server, ca in
            let output = try ClientProcess.run("python3", ["-c", script, String(server.port), ca], timeout: 30)
            let result = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
            #expect(result["connect"] as? Int == 200)
            #expect(result["seen"] as? [String] == ["welcome", #"{"type":"pong"}"#, "see you"])
            #expect(result["closeCode"] as? Int == 4000)
            // Journaled as an intercepted request is: its URL absolute, the 101 and the messages.
            let journal = try await Self.journal(server)
            let entry = try #require(journal.first { "\($0)".contains("/chat") }, "\(journal)")
            #expect("\(entry)".contains("https://api.example.test/chat"), "\(entry)")
            #expect((entry["response"] as? [String: Any])?["status"] as? Int == 101)
            let messages = try #require(entry["messages"] as? [[String: Any]])
            #expect(messages.contains { $0["text"] as? String == "bye" && $0["direction"] as? String == "client" })
        }
    }

    @Test(
        "A recorded event stream replays offline as an events stub, its events as far apart as they came",
        .enabled(if: ClientProcess.isInstalled("python3")))
    func recordedEvents() async throws {
        let recordings = try RecordingLiveTests.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        let upstream = try FixtureProcess.upstream(name: "prod")
        let map = hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])
        try await LiveServer.with(files: ["config/hosts.json": map]) {
            $0.recording = RecordingSettings(folder: recordings.path)
        } _: { server in
            _ = try Self.python("proxied-events", port: server.port, "/events?ms=300&count=3")
            _ = try await server.request("POST", "/__admin/recordings/stop")
        }
        upstream.stop()
        let file = recordings.appendingPathComponent("api.example.com/events.GET.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("events:"))
        #expect(!text.contains("body:"))
        // No upstream now, and the daemon offline: the recording answers, with the upstream's pauses.
        try await LiveServer.with(files: [:]) {
            $0.isOffline = true
            $0.recording = RecordingSettings(folder: recordings.path, mode: .none)
        } _: { server in
            let result = try Self.python("proxied-events", port: server.port, "/events?ms=300&count=3")
            let raw = try #require(result["raw"] as? String)
            #expect(raw.contains("id: 0\ndata: tick 0\n\n"))
            #expect(raw.contains("id: 2\ndata: tick 2\n\n"))
            let arrivals = try #require(result["arrivals"] as? [Double])
            #expect(arrivals.count == 3)
            // Recorded about 300 ms apart: replayed, the first and the last are at least that far apart.
            if arrivals.count == 3 { #expect(arrivals[2] - arrivals[0] >= 450) }
        }
    }

    @Test(
        "1,000 WebSockets open at once each get their own answers, and the daemon goes on serving",
        .enabled(if: hasWebsockets))
    func thousandSockets() async throws {
        try await LiveServer.with(files: ["stubs/chat.yaml": Self.chat]) { server in
            let result = try Self.python("many", port: server.port, "1000")
            #expect(result["opened"] as? Int == 1000)
            #expect(result["answered"] as? Int == 1000)
            #expect(try await server.request("/scores").status == 200)
        }
    }
}
