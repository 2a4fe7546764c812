import Foundation
import Testing

/// `GET /__admin/requests.har`: the journal as HAR 1.2, read back as a HAR reader would.
@Suite("HAR export")
struct HARLiveTests {
    @Test("the journal as HAR 1.2: absolute URLs, query, post data, text and base64 content, oldest first")
    func export() async throws {
        let prod = try FixtureProcess.upstream(name: "prod")
        let stubs = #"[{"name": "user", "request": {"path": "/users/1"}, "response": {"json": {"name": "ada"}}}]"#
        try await LiveServer.with(
            files: ["stubs/s.json": stubs, "config/hosts.json": hostMap([("PROD", "127.0.0.1:\(prod.port)", "http")])]
        ) { (server: LiveServer) async throws in
            _ = try await server.request("/users/1?full=yes", headers: ["Authorization": "Bearer har-secret-value"])
            _ = try await server.request("POST", "/upload", headers: ["Content-Type": "text/plain"], body: Data("hello".utf8))
            // A gzip body is not UTF-8: it goes out as base64.
            _ = try RawSocket.exchange(port: server.port, "GET /gzip HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n")

            let result = try await server.request("/__admin/requests.har")
            #expect(result.status == 200)
            #expect(!result.text.contains("har-secret-value"))
            let log = try #require(try result.json()["log"] as? [String: Any])
            #expect(log["version"] as? String == "1.2")
            #expect((log["creator"] as? [String: Any])?["name"] as? String == "Orrery")
            let entries = try #require(log["entries"] as? [[String: Any]])
            #expect(entries.count == 3)

            let first = entries[0]
            #expect(first["startedDateTime"] is String)
            #expect(first["time"] is Double)
            let request = try #require(first["request"] as? [String: Any])
            #expect(request["url"] as? String == "http://127.0.0.1:\(server.port)/users/1?full=yes")
            #expect((request["queryString"] as? [[String: Any]])?.first?["value"] as? String == "yes")
            let response = try #require(first["response"] as? [String: Any])
            #expect(response["status"] as? Int == 200)
            #expect(response["statusText"] as? String == "OK")
            #expect((response["content"] as? [String: Any])?["text"] as? String == #"{"name":"ada"}"#)
            #expect(((first["_orrery"] as? [String: Any])?["stub"] as? [String: Any])?["name"] as? String == "user")

            let post = try #require(entries[1]["request"] as? [String: Any])
            #expect((post["postData"] as? [String: Any])?["text"] as? String == "hello")
            #expect((post["postData"] as? [String: Any])?["mimeType"] as? String == "text/plain")

            let gzip = try #require((entries[2]["response"] as? [String: Any])?["content"] as? [String: Any])
            #expect(gzip["encoding"] as? String == "base64")
            let bytes = try #require(Data(base64Encoded: gzip["text"] as? String ?? ""))
            #expect(bytes.prefix(2) == Data([0x1f, 0x8b]))
        }
    }
}
