import Foundation
import Glibc
import OrreryServer
import Testing

/// Templates, pages, delays, throttling and faults, carried out by the daemon over real sockets.
@Suite("Dynamic responses over HTTP")
struct DynamicResponseLiveTests {
    static let files = [
        "stubs/dynamic.yaml": """
            - request: { method: GET, path: "/users/{id}" }
              response:
                template: true
                headers: { X-User: "{{params.id}}" }
                json: { id: "{{params.id}}", agent: "{{request.headers.user-agent}}", q: "{{request.query.q}}", missing: "{{request.json.nothing}}" }
            - request: { method: GET, path: /repos }
              response:
                paginate:
                  items: [{ name: alpha }, { name: beta }, { name: gamma }, { name: delta }, { name: epsilon }]
                  collectionKeyPath: items
                  perPage: 2
            - request: { method: GET, path: /empty }
              response:
                paginate: { items: [], perPage: 2 }
            - request: { method: GET, path: /reset }
              response: { fault: connectionReset }
            - request: { method: GET, path: /empty-response }
              response: { fault: emptyResponse }
            - request: { method: GET, path: /malformed }
              response: { fault: malformedResponse }
            - request: { method: GET, path: /truncated }
              response: { fault: truncatedBody, body: "0123456789abcdefghij" }
            - request: { method: GET, path: /silent }
              response: { fault: noResponse }
            - request: { method: GET, path: /slow }
              response: { delay: { uniform: [1000, 1200] }, body: slow }
            - request: { method: GET, path: /throttled }
              response: { throttle: { bytesPerSecond: 2048 }, body: "\(String(repeating: "t", count: 1024))" }
            - request: { method: GET, path: /ok }
              response: { body: ok }
            """
    ]

    @Test("a template echoes the path parameter, a header and the query; a missing field is empty")
    func template() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let answer = try await server.request("/users/42?q=a%22b", headers: ["User-Agent": "tester/1.0"])
            #expect(answer.status == 200)
            #expect(answer.header("X-User") == "42")
            let json = try answer.json()
            #expect(json["id"] as? String == "42")
            #expect(json["agent"] as? String == "tester/1.0")
            // The query's quote is escaped in the JSON, not HTML-escaped.
            #expect(json["q"] as? String == "a\"b")
            #expect(json["missing"] as? String == "")
            // The journal keeps the body as it went out.
            let journal = try await server.request("/__admin/requests").json()
            let entry = try #require((journal["requests"] as? [[String: Any]])?.first)
            let body = try #require((entry["response"] as? [String: Any])?["body"] as? String)
            #expect(body.contains("\"42\""))
        }
    }

    @Test("pages of a collection with Link and X-Total-Count; the last page, past the end, an empty one, a bad page")
    func pagination() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let second = try await server.request("/repos?page=2")
            #expect(second.status == 200)
            #expect(second.header("X-Total-Count") == "5")
            let items = try #require(try second.json()["items"] as? [[String: Any]])
            #expect(items.map { $0["name"] as? String } == ["gamma", "delta"])
            let link = try #require(second.header("Link"))
            #expect(link.contains("page=1>; rel=\"prev\""))
            #expect(link.contains("page=3>; rel=\"next\""))
            let last = try await server.request("/repos?page=3")
            #expect(try #require(try last.json()["items"] as? [[String: Any]]).count == 1)
            #expect(try #require(last.header("Link")).contains("rel=\"next\"") == false)
            let past = try await server.request("/repos?page=9")
            #expect(try #require(try past.json()["items"] as? [Any]).isEmpty)
            let filtered = try await server.request("/repos?q=ALP")
            #expect(try #require(try filtered.json()["items"] as? [[String: Any]]).count == 1)
            #expect(try await server.request("/empty").text == "[]")
            let bad = try await server.request("/repos?page=abc")
            #expect(bad.status == 400)
            #expect(bad.text.contains("page"))
        }
    }

    @Test("faults happen at the socket: a reset, a close, bytes that are not HTTP, a cut body, silence")
    func faults() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let get = { (path: String) in "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n" }

            let reset = try RawConnection(port: server.port)
            reset.send(get("/reset"))
            let (resetBytes, _) = reset.readToEnd()
            #expect(resetBytes.isEmpty)
            #expect(reset.lastError == ECONNRESET)

            let empty = try RawSocket.exchangeExpectingClose(port: server.port, get("/empty-response"))
            #expect(empty.isEmpty)

            let malformed = try RawSocket.exchangeExpectingClose(port: server.port, get("/malformed"))
            #expect(!malformed.hasPrefix("HTTP/"))
            #expect(malformed.contains("not an HTTP response"))

            let truncated = try RawSocket.exchangeExpectingClose(port: server.port, get("/truncated"))
            #expect(truncated.hasPrefix("HTTP/1.1 200 OK"))
            #expect(truncated.contains("Content-Length: 20\r\n"))
            #expect(truncated.hasSuffix("\r\n\r\n0123456789"))

            let silent = try RawConnection(port: server.port, timeout: 1)
            silent.send(get("/silent"))
            let (nothing, closedByServer) = silent.readToEnd()
            #expect(nothing.isEmpty && !closedByServer)
            // Journaled once the connection ends.
            let before = try await server.request("/__admin/requests").json()["total"] as? Int
            silent.close()
            let logged = await SessionLiveTests.eventually {
                ((try? JSONSerialization.jsonObject(with: Data(RawSocket.get(port: server.port, "/__admin/requests").utf8)))
                    as? [String: Any])?["total"] as? Int == (before ?? 0) + 1
            }
            #expect(logged)
            let journal = try await server.request("/__admin/requests").json()
            let faults = (journal["requests"] as? [[String: Any]] ?? []).compactMap { $0["fault"] as? String }
            #expect(Set(faults) == ["connectionReset", "emptyResponse", "malformedResponse", "truncatedBody", "noResponse"])
        }
    }

    @Test("a fault over a kept-alive connection: the earlier answer arrives whole, then the connection ends")
    func faultAfterKeepAlive() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let connection = try RawConnection(port: server.port)
            connection.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try #require(connection.read(through: "\r\n\r\n"))
            #expect(head.hasPrefix("HTTP/1.1 200 OK"))
            #expect(connection.read(count: 2) == "ok")
            connection.send("GET /empty-response HTTP/1.1\r\nHost: x\r\n\r\n")
            let (rest, closed) = connection.readToEnd()
            #expect(rest.isEmpty && closed)
        }
    }

    @Test("a delay drawn per request holds up no other request; throttling paces the answer")
    func delayAndThrottle() async throws {
        try await LiveServer.with(files: Self.files, threads: 1) { (server: LiveServer) async throws in
            // The delayed answer is still due when a later request on another connection has its answer.
            let started = ContinuousClock.now
            let slow = try RawConnection(port: server.port)
            slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
            let quick = try RawSocket.exchange(port: server.port, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(quick.hasSuffix("\r\n\r\nok"))
            #expect(!slow.hasInput(), "the delayed answer came before the quick one")
            let slowHead = try #require(slow.read(through: "\r\n\r\n"))
            #expect(slowHead.hasPrefix("HTTP/1.1 200 OK"))
            #expect(slow.read(count: 4) == "slow")
            #expect(ContinuousClock.now - started >= .milliseconds(1000))

            let throttleStart = ContinuousClock.now
            // Without compression: the 1 KB of t would gzip to a few bytes.
            let throttled = try await server.request("/throttled", headers: ["Accept-Encoding": "identity"])
            #expect(throttled.body.count == 1024)
            // 1 KB of body plus the head at 2 KB/s: about half a second, in slices every 100 ms.
            #expect(ContinuousClock.now - throttleStart >= .milliseconds(400))
        }
    }
}
