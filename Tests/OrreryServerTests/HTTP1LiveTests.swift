import Foundation
import OrreryEvent
import OrreryServer
import Testing

/// The HTTP/1.1 engine over real sockets: refusals, bodiless answers, Expect, pipelining, half-closes, and real
/// clients (Node, Python, curl) using Orrery as their proxy on one kept-alive connection.
@Suite("HTTP/1.1 on the wire")
struct HTTP1LiveTests {
    /// Stubs for any host, for the raw-socket tests.
    static let plainStubs = """
        stubs:
          - request: { method: GET, path: /ok }
            response: { json: { ok: true } }
          - request: { method: GET, path: /users }
            response:
              headers: { X-Kind: users }
              json: { users: [ { id: 1, name: ada }, { id: 2, name: grace } ] }
          - request: { method: GET, path: /empty }
            response: { status: 204, headers: { X-Empty: "yes" }, body: "never sent" }
          - request: { method: GET, path: /cached }
            response: { status: 304, headers: { ETag: '"v1"' }, body: "never sent" }
          - request: { method: POST, path: /upload }
            response: { status: 201, json: { stored: true } }
          - request: { method: GET, path: /slow }
            response: { delay: 300, body: slow }
        """ + (1...16).map { "\n  - request: { method: GET, path: /p/\($0) }\n    response: { body: p\($0) }" }.joined() + "\n"

    /// Stubs that match only requests for their host: what a client using Orrery as its proxy asks for.
    static let hostStubs = """
        base: { host: api.example.com }
        stubs:
        """ + (0..<5).map { "\n  - request: { method: GET, path: /v1/users/\($0) }\n    response: { json: { id: \($0), host: api } }" }.joined()
        + """

          - request: { method: GET, path: /v1/empty }
            response: { status: 204 }
          - request: { method: GET, path: /v1/cached }
            response: { status: 304, headers: { ETag: '"v1"' } }
          - request: { method: POST, path: /v1/items }
            response: { status: 201, json: { created: true } }

        """

    static let otherHostStubs = """
        base: { host: other.example.com }
        stubs:
          - request: { method: GET, path: /v1/users/1 }
            response: { json: { id: 1, host: other } }
        """

    static let files = [
        "stubs/plain.yaml": plainStubs, "stubs/api.yaml": hostStubs, "stubs/other.yaml": otherHostStubs,
    ]

    /// Starts a daemon that never forwards: every request here is answered by a stub or refused.
    private func withServer<Result>(
        maxBodyBytes: Int = 1 << 20, _ body: (LiveServer) async throws -> Result
    ) async throws -> Result {
        try await LiveServer.with(files: Self.files, configure: {
            $0.isOffline = true
            $0.http.maxBodyBytes = maxBodyBytes
        }, body)
    }

    // MARK: - Refusals

    /// DESIGN's list of requests answered 400 and closed, never forwarded.
    static let malformed: [String] = [
        "POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
        "POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 6\r\n\r\nhello!",
        "POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nhello",
        "POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n",
        "POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n",
        "POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n",
        "POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n",
        "POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n",
        "POST /ok HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\nhello\r\n0\r\n\r\n",
        "GET /ok HTTP/1.1\r\nHost : x\r\n\r\n",
        "GET /ok HTTP/1.1\r\nHost: x\r\nX A: 1\r\n\r\n",
        "GET /ok HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n",
        "GET /ok HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n",
        "GET /ok HTTP/1.1\u{0}\r\nHost: x\r\n\r\n",
        "GET /ok HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n",
        "GET /ok\r HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /ok HTTP/1.1\r\nHost: x\r\nX-A: a\u{1B}b\r\n\r\n",
        "GET /o k HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /o\u{1}k HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /ok HTTP/1.1\r\nAccept: */*\r\n\r\n",
        "GET /ok HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
        "GET /ok HTTP/3.0\r\nHost: x\r\n\r\n",
        "GET /ok HTTP/1.1x\r\nHost: x\r\n\r\n",
    ]

    @Test("Each malformed request gets a JSON 400 and a closed connection, and the daemon answers the next client")
    func malformedRequests() async throws {
        try await withServer { server in
            for text in Self.malformed {
                let answer = try RawSocket.exchangeExpectingClose(port: server.port, text)
                #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(text.debugDescription): \(answer.prefix(120))")
                let parts = answer.components(separatedBy: "\r\n\r\n")
                #expect(parts.first?.contains("\r\nConnection: close") == true)
                #expect(parts.first?.contains("\r\nContent-Type: application/json") == true)
                let body = try JSONSerialization.jsonObject(with: Data(parts.dropFirst().joined(separator: "\r\n\r\n").utf8))
                let object = try #require(body as? [String: Any])
                #expect(object["status"] as? Int == 400)
                #expect((object["failureReason"] as? String)?.isEmpty == false)
                #expect((object["recoverySuggestion"] as? String)?.isEmpty == false)
                #expect((object["message"] as? String)?.isEmpty == false)
            }
            // Nothing was dispatched: the journal holds none of them.
            let journal = try await server.request("/__admin/requests").json()
            #expect(try #require(journal["requests"] as? [Any]).isEmpty)
            let good = try RawSocket.exchange(port: server.port, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(good.hasPrefix("HTTP/1.1 200 OK") && good.hasSuffix(#"{"ok":true}"#))
        }
    }

    @Test("A transfer coding before chunked is 501, and an unknown expectation 417, both closing")
    func otherRefusals() async throws {
        try await withServer { server in
            let coding = try RawSocket.exchangeExpectingClose(
                port: server.port, "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n")
            #expect(coding.hasPrefix("HTTP/1.1 501 ") && coding.contains("\"recoverySuggestion\""))
            let expectation = try RawSocket.exchangeExpectingClose(
                port: server.port, "POST /upload HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\nab")
            #expect(expectation.hasPrefix("HTTP/1.1 417 ") && expectation.contains("\"failureReason\""))
        }
    }

    // MARK: - Bodiless answers

    @Test("HEAD, 204, 304 and 1xx answers put no body bytes on the wire, and the connection carries on")
    func bodilessAnswers() async throws {
        try await withServer { server in
            let connection = try RawConnection(port: server.port)
            connection.send("GET /users HTTP/1.1\r\nHost: x\r\n\r\n")
            let get = try #require(connection.readResponse())
            let length = try #require(get.header("Content-Length"))
            #expect(get.status == 200 && get.body.utf8.count == Int(length))

            connection.send("HEAD /users HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try #require(connection.readResponse(isHead: true))
            #expect(head.status == 200 && head.header("Content-Length") == length && head.header("X-Kind") == "users")

            // The pipeline reads methods without regard to case, and so does the framing.
            connection.send("head /users HTTP/1.1\r\nHost: x\r\n\r\n")
            let lowerCase = try #require(connection.readResponse(isHead: true))
            #expect(lowerCase.status == 200 && lowerCase.header("Content-Length") == length)

            connection.send("GET /empty HTTP/1.1\r\nHost: x\r\n\r\n")
            let empty = try #require(connection.readResponse())
            #expect(empty.status == 204 && empty.header("Content-Length") == nil && empty.header("X-Empty") == "yes")

            connection.send("GET /cached HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"v1\"\r\n\r\n")
            let cached = try #require(connection.readResponse())
            #expect(cached.status == 304 && cached.header("ETag") == "\"v1\"")

            connection.send("HEAD /empty HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(connection.readResponse(isHead: true)?.status == 204)

            // Had any answer above carried a byte of body, this one would not start where it should.
            connection.send("GET /users HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let last = try #require(connection.readResponse())
            #expect(last.status == 200 && last.body == get.body && last.header("Connection") == "close")
            let rest = connection.readToEnd()
            #expect(rest.closed && rest.bytes.isEmpty)
        }
    }

    // MARK: - Expect

    @Test("Expect: 100-continue gets 100 Continue, then the answer once the body is sent")
    func expectContinue() async throws {
        try await withServer { server in
            let connection = try RawConnection(port: server.port)
            connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
            #expect(connection.read(through: "\r\n\r\n") == "HTTP/1.1 100 Continue\r\n\r\n")
            connection.send("hello")
            let answer = try #require(connection.readResponse())
            #expect(answer.status == 201 && answer.body == #"{"stored":true}"#)
            // The connection carries on, and a body sent without waiting for the 100 is read as well.
            connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc")
            #expect(connection.read(through: "\r\n\r\n") == "HTTP/1.1 100 Continue\r\n\r\n")
            #expect(connection.readResponse()?.status == 201)
            let entries = try await server.request("/__admin/requests").json()["requests"] as? [[String: Any]]
            #expect(entries?.count == 2)
        }
    }

    @Test("Expect: 100-continue with a declared body over the limit gets 413 at once, and the connection closes")
    func expectTooLarge() async throws {
        try await withServer(maxBodyBytes: 1024) { server in
            let connection = try RawConnection(port: server.port)
            connection.send("POST /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n")
            let answer = try #require(connection.readResponse())
            #expect(answer.status == 413 && answer.header("Connection") == "close")
            #expect(try answer.json()["recoverySuggestion"] is String)
            #expect(connection.readToEnd().closed)
        }
    }

    // MARK: - Pipelining

    @Test("Sixteen pipelined requests on one connection are answered in order")
    func pipelining() async throws {
        try await withServer { server in
            let connection = try RawConnection(port: server.port)
            var text = ""
            for number in 1...16 {
                switch number {
                case 5: text += "HEAD /p/5 HTTP/1.1\r\nHost: x\r\n\r\n"
                case 9: text += "GET /empty HTTP/1.1\r\nHost: x\r\n\r\n"
                case 12: text += "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\n\r\n"
                default: text += "GET /p/\(number) HTTP/1.1\r\nHost: x\r\n\r\n"
                }
            }
            // One write: every request is in the server's buffer before the first is answered.
            connection.send(text)
            for number in 1...16 {
                let answer = try #require(connection.readResponse(isHead: number == 5), "answer \(number)")
                switch number {
                case 5: #expect(answer.status == 200 && answer.header("Content-Length") == "2" && answer.body.isEmpty)
                case 9: #expect(answer.status == 204)
                case 12: #expect(answer.status == 201)
                default: #expect(answer.status == 200 && answer.body == "p\(number)", "answer \(number)")
                }
            }
            connection.send("GET /p/16 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(connection.readResponse()?.body == "p16")
            #expect(connection.readToEnd().closed)
        }
    }

    // MARK: - Half-closes

    @Test("A client that half-closes after its request gets the answer, then the connection closes")
    func halfCloseAfterRequest() async throws {
        try await withServer { server in
            // Answered before the end of input is seen: the answer goes as usual, then the connection closes.
            let (answer, closed, _) = try HalfClosingClient.exchange(port: server.port, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.hasSuffix(#"{"ok":true}"#))
            #expect(closed)
            // Answered after: the answer says it closes the connection.
            let (slow, slowClosed, _) = try HalfClosingClient.exchange(port: server.port, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(slow.hasPrefix("HTTP/1.1 200 OK\r\n") && slow.hasSuffix("\r\n\r\nslow"))
            #expect(slow.contains("\r\nConnection: close\r\n"))
            #expect(slowClosed)
        }
    }

    @Test("An answer slower than the idle timeout keeps its connection; the idle timeout counts from the last answer")
    func idleTimeoutAroundDelayedAnswers() async throws {
        let stubs = """
            stubs:
              - request: { method: GET, path: /long }
                response: { delay: 300, body: long }
              - request: { method: GET, path: /short }
                response: { delay: 50, body: short }
            """
        try await LiveServer.with(
            files: ["stubs/delays.yaml": stubs],
            configure: {
                $0.isOffline = true
                $0.http.idleTimeoutMilliseconds = 200
            }
        ) { server in
            let connection = try RawConnection(port: server.port, timeout: 5)
            // Nothing is timed while an answer is made: the idle timer set as the connection came runs out during
            // the 300 ms, and must not close it.
            connection.send("GET /long HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(connection.read(through: "\r\n\r\nlong")?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
            // A short wait, answered while the idle timer set by the last answer is still pending: the timer is
            // left to fire, finds the deadline moved, and waits for the rest.
            connection.send("GET /short HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(connection.read(through: "\r\n\r\nshort")?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
            let answered = ContinuousClock.now
            let (rest, closed) = connection.readToEnd()
            let idle = ContinuousClock.now - answered
            #expect(closed && rest.isEmpty, "the idle connection was not closed")
            #expect(idle >= .milliseconds(150) && idle < .milliseconds(2_000), "closed \(idle) after the last answer")
        }
    }

    @Test("A client that half-closes in the middle of a request is closed at once, without waiting for a timeout")
    func halfCloseInRequest() async throws {
        try await withServer { server in
            for text in [
                "GET /ok HTTP/1.1\r\nHost: x\r\n",
                "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
                "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
                "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5",
                "POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nX-Trailer",
            ] {
                let (answer, closed, seconds) = try HalfClosingClient.exchange(port: server.port, text, timeout: 5)
                #expect(closed && answer.isEmpty && seconds < 4, "\(text.debugDescription): \(answer.prefix(80)) after \(seconds) s")
            }
        }
    }

    // MARK: - Real clients through the proxy

    /// What each client asks for, in absolute form through the proxy: the same connection carries requests for
    /// two hosts, and answers with and without bodies.
    static func proxyRequests(count: Int) -> [[String: Any]] {
        (0..<count).map { index -> [String: Any] in
            switch index % 10 {
            case 3: ["method": "HEAD", "url": "http://api.example.com/v1/users/\(index % 5)"]
            case 5: ["method": "GET", "url": "http://api.example.com/v1/empty"]
            case 6: ["method": "GET", "url": "http://api.example.com/v1/cached", "headers": ["If-None-Match": "\"v1\""]]
            case 7: ["method": "POST", "url": "http://api.example.com/v1/items", "body": #"{"name":"n\#(index)"}"#,
                     "headers": ["Content-Type": "application/json"]]
            case 8: ["method": "GET", "url": "http://other.example.com/v1/users/1"]
            default: ["method": "GET", "url": "http://api.example.com/v1/users/\(index % 5)"]
            }
        }
    }

    /// Checks each answer against what its request asked for.
    private func checkAnswers(_ answers: [Any], count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(answers.count == count, sourceLocation: sourceLocation)
        for (index, answer) in answers.enumerated() {
            guard let answer = answer as? [String: Any], let status = answer["status"] as? Int else {
                Issue.record("no answer \(index)", sourceLocation: sourceLocation)
                continue
            }
            let body = answer["body"] as? String ?? ""
            switch index % 10 {
            case 3: #expect(status == 200 && body.isEmpty, "HEAD \(index)", sourceLocation: sourceLocation)
            case 5: #expect(status == 204 && body.isEmpty, "204 \(index)", sourceLocation: sourceLocation)
            case 6: #expect(status == 304 && body.isEmpty, "304 \(index)", sourceLocation: sourceLocation)
            case 7: #expect(status == 201 && body == #"{"created":true}"#, "POST \(index)", sourceLocation: sourceLocation)
            case 8: #expect(status == 200 && body == #"{"id":1,"host":"other"}"#, "other \(index)", sourceLocation: sourceLocation)
            default:
                #expect(status == 200 && body == #"{"id":\#(index % 5),"host":"api"}"#, "GET \(index): \(body)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(
        "Node's http.Agent (keepAlive, maxSockets 1) sends 50 requests through the proxy on one socket",
        .enabled(if: ClientProcess.isInstalled("node"), "node is not installed"), .timeLimit(.minutes(1)))
    func nodeThroughProxy() async throws {
        try await withServer { server in
            let requests = Self.proxyRequests(count: 50)
            let output = try ClientProcess.run(
                "node", [FixtureProcess.fixtures.appendingPathComponent("proxy-client.js").path, String(server.port)],
                input: try JSONSerialization.data(withJSONObject: requests), timeout: 45)
            let result = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
            #expect(result["errors"] as? [String] == [])
            #expect(result["sockets"] as? Int == 1)
            checkAnswers(try #require(result["answers"] as? [Any]), count: 50)
            // Every request reached the pipeline as a proxy request for its host.
            let journal = try await server.request("/__admin/requests?limit=100").json()
            #expect((journal["requests"] as? [Any])?.count == 50)
        }
    }

    @Test(
        "Python's requests Session with the proxy reuses one connection",
        .enabled(if: ClientProcess.hasPythonRequests, "python3 has no requests package"), .timeLimit(.minutes(1)))
    func pythonRequestsThroughProxy() async throws {
        try await withServer { server in
            let output = try ClientProcess.run(
                "python3", [FixtureProcess.fixtures.appendingPathComponent("proxy_client.py").path, String(server.port), "requests"],
                input: try JSONSerialization.data(withJSONObject: Self.proxyRequests(count: 30)), timeout: 45)
            let result = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
            #expect(result["errors"] as? [String] == [])
            #expect(result["connections"] as? Int == 1)
            checkAnswers(try #require(result["answers"] as? [Any]), count: 30)
        }
    }

    @Test("Python's http.client sends absolute-form requests on one connection", .timeLimit(.minutes(1)))
    func pythonHTTPClientThroughProxy() async throws {
        try await withServer { server in
            let output = try ClientProcess.run(
                "python3", [FixtureProcess.fixtures.appendingPathComponent("proxy_client.py").path, String(server.port), "http.client"],
                input: try JSONSerialization.data(withJSONObject: Self.proxyRequests(count: 30)), timeout: 45)
            let result = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
            #expect(result["errors"] as? [String] == [])
            #expect(result["connections"] as? Int == 1)
            checkAnswers(try #require(result["answers"] as? [Any]), count: 30)
        }
    }

    @Test("curl -x with several URLs in one command connects once", .timeLimit(.minutes(1)))
    func curlThroughProxy() async throws {
        try await withServer { server in
            let urls = (0..<5).map { "http://api.example.com/v1/users/\($0)" } + ["http://other.example.com/v1/users/1"]
                + ["http://api.example.com/v1/empty", "http://api.example.com/v1/users/2"]
            var arguments = ["--silent", "--show-error", "--max-time", "20", "--proxy", "http://127.0.0.1:\(server.port)"]
            arguments += ["--write-out", #"%{http_code} %{num_connects} %{size_download}\n"#]
            for url in urls { arguments += [url, "--output", "/dev/null"] }
            let output = String(decoding: try ClientProcess.run("curl", arguments, timeout: 30), as: UTF8.self)
            let lines = output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            #expect(lines.count == urls.count, "\(output)")
            #expect(lines.map { $0.first ?? "" } == ["200", "200", "200", "200", "200", "200", "204", "200"])
            // num_connects: 1 for the first transfer, 0 for every one that reused its connection.
            #expect(lines.compactMap { Int($0.dropFirst().first ?? "") }.reduce(0, +) == 1, "\(output)")
            #expect(lines[5].last == String(#"{"id":1,"host":"other"}"#.utf8.count))

            // A HEAD through the proxy on the same kept connection as a GET.
            let head = String(
                decoding: try ClientProcess.run(
                    "curl",
                    ["--silent", "--show-error", "--max-time", "20", "--proxy", "http://127.0.0.1:\(server.port)",
                     "--write-out", #"%{http_code} %{num_connects}\n"#, "--head", "http://api.example.com/v1/users/1",
                     "--next", "--silent", "--max-time", "20", "--proxy", "http://127.0.0.1:\(server.port)",
                     "--write-out", #"%{http_code} %{num_connects}\n"#, "http://api.example.com/v1/users/1"],
                    timeout: 30),
                as: UTF8.self)
            #expect(head.contains("Content-Length: \(#"{"id":1,"host":"api"}"#.utf8.count)\r\n"), "\(head)")
            #expect(head.hasSuffix(#"{"id":1,"host":"api"}200 0"# + "\n"), "\(head)")
        }
    }
}
