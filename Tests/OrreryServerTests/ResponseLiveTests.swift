import Foundation
import OrreryEvent
import Testing

@Suite("Responses over HTTP")
struct ResponseLiveTests {
    @Test("status by number, by Astro name and by lower-camel name", arguments: [
        ("201", 201), ("Code401Unauthorized", 401), ("unauthorized", 401), ("notFound", 404), ("Code418ImATeapot", 418),
    ])
    func statusNames(_ written: String, _ expected: Int) async throws {
        let stub = #"{"request": {"path": "/s"}, "response": {"status": "\#(written)", "body": "x"}}"#
        try await LiveServer.with(files: ["stubs/status.json": stub]) { (server: LiveServer) async throws in
            let result = try await server.request("/s")
            #expect(result.status == expected)
        }
    }

    @Test("headers, JSON bodies and body files come back as written")
    func headersAndBodies() async throws {
        let stubs = """
            - request: { path: /json }
              response:
                headers: { X-Request-Id: abc, Set-Cookie: [a=1, b=2] }
                json: { token: "[TOKEN]", n: 1.50 }
            - request: { path: /file }
              response: { bodyFile: bodies/user.json }
            """
        try await LiveServer.with(files: [
            "stubs/api.yaml": stubs, "stubs/bodies/user.json": #"{"id": 7}"#,
        ]) { (server: LiveServer) async throws in
            let json = try await server.request("/json")
            #expect(json.status == 200)
            #expect(json.header("X-Request-Id") == "abc")
            #expect(json.header("Content-Type") == "application/json")
            #expect(json.text == #"{"token":"[TOKEN]","n":1.50}"#)
            let file = try await server.request("/file")
            #expect(file.text == #"{"id": 7}"#)
            #expect(file.header("Content-Type") == "application/json")
            #expect(file.header("Content-Length") == "9")
        }
    }

    @Test("every answer carries one Date, the current second's; a stub's own Date is kept instead")
    func dateHeader() async throws {
        let stubs = """
            - request: { path: /plain }
              response: { body: x }
            - request: { path: /dated }
              response: { headers: { Date: "Sun, 06 Nov 1994 08:49:37 GMT" }, body: x }
            """
        try await LiveServer.with(files: ["stubs/dates.yaml": stubs]) { (server: LiveServer) async throws in
            let before = Date()
            let answers = try PythonClient.send(port: server.port, [.init("GET", "/plain"), .init("GET", "/dated"), .init("GET", "/missing")])
            let format = DateFormatter()
            format.locale = Locale(identifier: "en_US_POSIX")
            format.timeZone = TimeZone(identifier: "GMT")
            format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            for answer in [answers[0], answers[2]] {
                #expect(answer.values("Date").count == 1)
                let date = try #require(answer.values("Date").first.flatMap(format.date(from:)))
                #expect(abs(date.timeIntervalSince(before)) < 5)
            }
            #expect(answers[1].values("Date") == ["Sun, 06 Nov 1994 08:49:37 GMT"])
        }
    }

    static let largeBody = String(repeating: "{\"item\": \"orrery\"},", count: 400)

    @Test("gzip: compressed for clients that accept it, decoded by URLSession, plain for others")
    func gzip() async throws {
        let stub = #"{"request": {"path": "/big"}, "response": {"headers": {"Content-Type": "application/json"}, "body": "\#(Self.largeBody.replacingOccurrences(of: "\"", with: "\\\""))"}}"#
        try await LiveServer.with(files: ["stubs/big.json": stub]) { (server: LiveServer) async throws in
            // URLSession asks for gzip itself and hands back the decoded body.
            let decoded = try await server.request("/big")
            #expect(decoded.text == Self.largeBody)

            let raw = try RawSocket.exchange(
                port: server.port, "GET /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n")
            #expect(raw.contains("Content-Encoding: gzip"))
            #expect(raw.contains("Vary: Accept-Encoding"))

            let plain = try RawSocket.exchange(port: server.port, "GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(!plain.contains("Content-Encoding"))
            #expect(plain.hasSuffix(Self.largeBody))
        }
    }

    @Test("curl --compressed gets the same bytes back")
    func curlDecodesGzip() async throws {
        let stub = #"{"request": {"path": "/big"}, "response": {"headers": {"Content-Type": "text/plain"}, "body": "\#(String(repeating: "abc ", count: 500))"}}"#
        try await LiveServer.with(files: ["stubs/big.json": stub]) { (server: LiveServer) async throws in
            let output = try Curl.run(["--compressed", "-s", "-D", "-", "\(server.baseURL)/big"])
            #expect(output.contains("Content-Encoding: gzip"))
            #expect(output.hasSuffix(String(repeating: "abc ", count: 500)))
        }
    }

    @Test("HEAD is answered by the GET stub, OPTIONS and PATCH reach stubs")
    func methods() async throws {
        let stubs = """
            - { request: { method: GET, path: /r }, response: { body: got } }
            - { request: { method: OPTIONS, path: /r }, response: { status: 204, headers: { Allow: "GET, PATCH" } } }
            - { request: { method: PATCH, path: /r }, response: { body: patched } }
            """
        try await LiveServer.with(files: ["stubs/r.yaml": stubs]) { (server: LiveServer) async throws in
            let head = try await server.request("HEAD", "/r")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            let options = try await server.request("OPTIONS", "/r")
            #expect(options.status == 204)
            #expect(options.header("Allow") == "GET, PATCH")
            let patch = try await server.request("PATCH", "/r", body: Data("x".utf8))
            #expect(patch.text == "patched")
        }
    }

    @Test("a delayed stub answers after its delay without holding up other requests on the same loop")
    func delay() async throws {
        let stubs = """
            - { request: { path: /slow }, response: { delay: 400, body: slow } }
            - { request: { path: /fast }, response: { body: fast } }
            """
        try await LiveServer.with(files: ["stubs/d.yaml": stubs], threads: 1) { (server: LiveServer) async throws in
            let started = Date()
            let slowURL = server.baseURL + "/slow"
            async let slow = HTTPClient.request("GET", slowURL)
            // Gives the slow request a head start, so the fast one arrives while the slow one is held.
            try await Task.sleep(for: .milliseconds(50))
            let fast = try await server.request("/fast")
            let fastElapsed = Date().timeIntervalSince(started)
            #expect(fast.text == "fast")
            #expect(try await slow.text == "slow")
            let slowElapsed = Date().timeIntervalSince(started)
            #expect(slowElapsed >= 0.4)
            #expect(fastElapsed < slowElapsed)
        }
    }

    @Test("priority overrides specificity; otherwise the most specific stub wins")
    func priorityAndSpecificity() async throws {
        let stubs = """
            - { name: generic, request: { path: /p }, response: { body: generic } }
            - { name: specific, request: { method: GET, path: /p, headers: { X-A: "1" } }, response: { body: specific } }
            - { name: forced, priority: 1, request: { urlPattern: "^/forced" }, response: { body: forced } }
            - { name: exact, request: { method: GET, path: /forced }, response: { body: exact } }
            """
        try await LiveServer.with(files: ["stubs/p.yaml": stubs]) { (server: LiveServer) async throws in
            #expect(try await server.request("/p", headers: ["X-A": "1"]).text == "specific")
            #expect(try await server.request("/p").text == "generic")
            #expect(try await server.request("/forced").text == "forced")
        }
    }
}

/// Runs curl against loopback, with proxies disabled.
enum Curl {
    /// Runs curl and returns its output. Without `proxy` it ignores any proxy the environment names; with one it sends
    /// everything through it, loopback included (an empty `--noproxy` overrides `NO_PROXY`).
    static func run(_ arguments: [String], proxy: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let routing = proxy.map { ["--noproxy", "", "--proxy", $0] } ?? ["--noproxy", "*"]
        process.arguments = ["curl", "--max-time", "20"] + routing + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
    }
}
