import Foundation
import OrreryCore
import OrreryServer
import Testing

/// The request journal through the admin API, with a real daemon and a real upstream.
@Suite("Journal")
struct JournalLiveTests {
    static let stubs = #"""
        [ {"name": "order", "request": {"method": "POST", "path": "/orders"}, "response": {"status": 201, "json": {"ok": true}}},
          {"name": "user", "request": {"path": "/users/1"}, "response": {"body": "ada"}} ]
        """#

    @Test("stubbed, proxied and unmatched exchanges are kept newest first, admin calls are not; paging, by id, clear")
    func journalOrder() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        try await LiveServer.with(files: ["stubs/s.json": Self.stubs]) { (server: LiveServer) async throws in
            _ = try await server.request("/users/1")
            _ = try await server.request("/__admin/health")
            _ = try await server.request("/users/2")
            let list = try await server.request("/__admin/requests").json()
            let requests = try #require(list["requests"] as? [[String: Any]])
            #expect(requests.count == 2)
            #expect(list["total"] as? Int == 2)
            let newest = requests[0]
            #expect((newest["request"] as? [String: Any])?["path"] as? String == "/users/2")
            #expect(newest["matched"] as? Bool == false)
            #expect((newest["response"] as? [String: Any])?["status"] as? Int == 404)
            #expect(((newest["closestStubs"] as? [[String: Any]])?.first?["name"] as? String) == "user")
            let oldest = requests[1]
            #expect((oldest["stub"] as? [String: Any])?["name"] as? String == "user")
            #expect((oldest["response"] as? [String: Any])?["body"] as? String == "ada")
            #expect(oldest["durationMs"] is Double)
            #expect(oldest["time"] as? String != nil)

            let id = try #require(oldest["id"] as? String)
            let one = try await server.request("/__admin/requests/\(id)").json()
            #expect((one["request"] as? [String: Any])?["path"] as? String == "/users/1")
            #expect(try await server.request("/__admin/requests/999999").status == 404)

            let page = try await server.request("/__admin/requests?limit=1&offset=1").json()
            let paged = try #require(page["requests"] as? [[String: Any]])
            #expect(paged.count == 1)
            #expect(paged.first?["id"] as? String == id)
            #expect(try await server.request("/__admin/requests?limit=x").status == 400)

            let unmatched = try await server.request("/__admin/requests/unmatched").json()
            #expect((unmatched["requests"] as? [Any])?.count == 1)

            let cleared = try await server.request("DELETE", "/__admin/requests").json()
            #expect(cleared["cleared"] as? Int == 2)
            #expect(try await server.request("/__admin/requests").json()["total"] as? Int == 0)
        }
        try await LiveServer.with(files: ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(prod.port)", "http")])]) {
            (server: LiveServer) async throws in
            _ = try await server.request("/via/upstream")
            let entry = try #require((try await server.request("/__admin/requests").json()["requests"] as? [[String: Any]])?.first)
            let proxied = try #require(entry["proxied"] as? [String: Any])
            #expect(proxied["environment"] as? String == "PROD")
            #expect(proxied["upstream"] as? String == "http://127.0.0.1:\(prod.port)")
            #expect((entry["response"] as? [String: Any])?["status"] as? Int == 200)
        }
    }

    @Test("count and find take a stub's request pattern: POST /orders with sku A was called 3 times")
    func verification() async throws {
        try await LiveServer.with(files: ["stubs/s.json": Self.stubs]) { (server: LiveServer) async throws in
            for sku in ["A", "B", "A", "A"] {
                let created = try await server.request("POST", "/orders", body: Data(#"{"sku": "\#(sku)", "qty": 1}"#.utf8))
                #expect(created.status == 201)
            }
            _ = try await server.request("/users/1")
            let pattern = #"{"method": "POST", "path": "/orders", "body": {"json": {"qty": 1, "sku": "A"}}}"#
            let count = try await server.request("POST", "/__admin/requests/count", body: Data(pattern.utf8)).json()
            #expect(count["count"] as? Int == 3)
            let wrapped = try await server.request(
                "POST", "/__admin/requests/count", body: Data(#"{"request": {"method": "POST", "path": "/orders"}}"#.utf8)
            ).json()
            #expect(wrapped["count"] as? Int == 4)
            let found = try await server.request(
                "POST", "/__admin/requests/find", body: Data(#"{"urlPattern": "^/users/[0-9]+$"}"#.utf8)
            ).json()
            #expect((found["requests"] as? [[String: Any]])?.count == 1)
            let invalid = try await server.request("POST", "/__admin/requests/count", body: Data(#"{"methd": "GET"}"#.utf8))
            #expect(invalid.status == 422)
            #expect(invalid.text.contains("methd"))
            #expect(try await server.request("GET", "/__admin/requests/count").status == 405)
        }
    }

    @Test("secrets are redacted in every admin answer, echoed copies included")
    func redaction() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        let secret = "tok-9f8e7d6c5b4a"
        try await LiveServer.with(
            files: ["stubs/s.json": Self.stubs, "config/hosts.json": hostMap([("PROD", "127.0.0.1:\(prod.port)", "http")])],
            configure: {
                $0.redactedHeaders = ["X-Api-Key"]
                $0.redactedQueryParameters = ["api_key"]
                $0.redactedJSONFields = ["password"]
            }
        ) { (server: LiveServer) async throws in
            // The upstream echoes every header back in its body: the token must go there too.
            let echoed = try await server.request("/echo?api_key=\(secret)-q", headers: ["Authorization": "Bearer \(secret)"])
            #expect(echoed.text.contains(secret))  // the client itself gets the real answer
            _ = try await server.request("/users/1", headers: ["Cookie": "session=\(secret)-c; theme=dark", "X-Api-Key": "\(secret)-k"])
            _ = try await server.request(
                "POST", "/orders", body: Data(#"{"user": "ada", "password": "\#(secret)-p"}"#.utf8))
            var answers: [String] = []
            let list = try await server.request("/__admin/requests")
            answers.append(list.text)
            for entry in (try list.json()["requests"] as? [[String: Any]]) ?? [] {
                answers.append(try await server.request("/__admin/requests/\(entry["id"] as? String ?? "")").text)
            }
            answers.append(try await server.request("POST", "/__admin/requests/find", body: Data("{}".utf8)).text)
            for answer in answers {
                #expect(!answer.contains(secret))
            }
            #expect(list.text.contains(Redactor.placeholder))
            #expect(list.text.contains("theme=dark") == false)  // the whole Cookie header goes
            // A redacted JSON field keeps the rest of the body as it was.
            let order = try #require(
                (try list.json()["requests"] as? [[String: Any]])?.first { ($0["request"] as? [String: Any])?["path"] as? String == "/orders" })
            #expect((order["request"] as? [String: Any])?["body"] as? String == #"{"user": "ada", "password": "[REDACTED]"}"#)
        }
    }

    @Test("bounded: 10,000 requests leave at most the configured entries and bytes; bodies are capped")
    func bounds() async throws {
        try await LiveServer.with(
            files: ["stubs/s.json": Self.stubs],
            configure: {
                $0.journal.maximumEntries = 500
                $0.journal.maximumBytes = 400_000
                $0.journal.maximumBodyBytes = 1024
            }
        ) { (server: LiveServer) async throws in
            // 10,000 pipelined keep-alive requests on one connection, each with a 2 KB body.
            let body = String(repeating: "x", count: 2048)
            let one = "POST /orders HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            let connection = try RawConnection(port: server.port, timeout: 20)
            for batch in 0..<10 {
                connection.send(String(repeating: one, count: batch == 9 ? 999 : 1000))
                for _ in 0..<(batch == 9 ? 999 : 1000) { _ = try #require(connection.read(through: "{\"ok\":true}")) }
            }
            connection.send("POST /orders HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            _ = connection.readToEnd()

            let list = try await server.request("/__admin/requests?limit=1").json()
            #expect(list["recordedSinceStart"] as? Int == 10_000)
            let total = try #require(list["total"] as? Int)
            #expect(total <= 500)
            #expect(total >= 100)  // bounded by bytes, not emptied
            let journal = try #require(list["journal"] as? [String: Any])
            #expect((journal["bytes"] as? Int ?? .max) <= 400_000)
            let request = try #require((list["requests"] as? [[String: Any]])?.first?["request"] as? [String: Any])
            #expect(request["bodySize"] as? Int == 2048)
            #expect((request["body"] as? String)?.utf8.count == 1024)
            #expect(request["bodyTruncated"] as? Bool == true)
        }
    }
}

/// `--offline`: replay only, with a host map that would otherwise forward.
@Suite("Offline")
struct OfflineLiveTests {
    @Test("no upstream connection is ever opened; a miss is a 404 naming the closest stubs, and is journaled")
    func offline() async throws {
        // A listener that never accepts: any connection attempt would sit in its backlog.
        let socket = try LoopbackSocket()
        let listener = socket.descriptor
        let port = socket.port
        defer { close(listener) }
        #expect(listen(listener, 16) == 0)
        _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)

        try await LiveServer.with(
            files: ["stubs/s.json": JournalLiveTests.stubs, "config/hosts.json": hostMap([("PROD", "127.0.0.1:\(port)", "http")])],
            configure: { $0.isOffline = true }
        ) { (server: LiveServer) async throws in
            #expect(try await server.request("/__admin/health").json()["proxy"] as? Bool == false)
            let miss = try await server.request("/users/2")
            #expect(miss.status == 404)
            let body = try miss.json()
            #expect(body["offline"] as? Bool == true)
            #expect((body["message"] as? String)?.contains("offline") == true)
            #expect(((body["closestStubs"] as? [[String: Any]])?.first?["name"] as? String) == "user")
            let tunnel = try RawSocket.exchange(port: server.port, "CONNECT 127.0.0.1:\(port) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n", timeout: 2)
            #expect(tunnel.hasPrefix("HTTP/1.1 404"))
            #expect(try await server.request("/users/1").status == 200)

            let unmatched = try await server.request("/__admin/requests/unmatched").json()
            #expect(unmatched["total"] as? Int == 1)
            #expect(accept(listener, nil, nil) == -1)  // nothing ever connected to the upstream
        }
    }
}
