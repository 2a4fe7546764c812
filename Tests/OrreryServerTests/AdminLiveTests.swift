import Foundation
import OrreryCore
import OrreryServer
import Testing

@Suite("Admin API")
struct AdminLiveTests {
    static let stub = #"{"name": "hello", "request": {"path": "/hello"}, "response": {"body": "from file"}}"#

    @Test("health reports version and counts")
    func health() async throws {
        try await LiveServer.with(files: ["stubs/hello.json": Self.stub]) { (server: LiveServer) async throws in
            let json = try await server.request("/__admin/health").json()
            #expect(json["status"] as? String == "ok")
            #expect(json["version"] as? String == OrreryVersion.current)
            #expect(json["stubs"] as? Int == 1)
        }
    }

    @Test("stubs: add, read, replace, list, delete")
    func crud() async throws {
        try await LiveServer.with(files: ["stubs/hello.json": Self.stub]) { (server: LiveServer) async throws in
            let added = try await server.request(
                "POST", "/__admin/stubs",
                body: Data(#"{"request": {"method": "POST", "path": "/orders"}, "response": {"status": "created", "json": {"id": 1}}}"#.utf8))
            #expect(added.status == 201)
            let id = try #require(try added.json()["id"] as? String)

            let order = try await server.request("POST", "/orders", body: Data("{}".utf8))
            #expect(order.status == 201)
            #expect(order.text == #"{"id":1}"#)

            let one = try await server.request("/__admin/stubs/\(id)").json()
            #expect(one["source"] as? String == "admin API")

            let replaced = try await server.request(
                "PUT", "/__admin/stubs/\(id)",
                body: Data(#"{"request": {"method": "POST", "path": "/orders"}, "response": {"status": 409}}"#.utf8))
            #expect(replaced.status == 200)
            #expect(try await server.request("POST", "/orders", body: Data("{}".utf8)).status == 409)

            let list = try await server.request("/__admin/stubs").json()
            #expect(list["count"] as? Int == 2)

            #expect(try await server.request("DELETE", "/__admin/stubs/\(id)").status == 200)
            #expect(try await server.request("POST", "/orders", body: Data("{}".utf8)).status == 404)
            #expect(try await server.request("DELETE", "/__admin/stubs/\(id)").status == 404)
        }
    }

    @Test("an invalid stub is refused with the line of the problem")
    func invalidStub() async throws {
        try await LiveServer.with(files: ["stubs/hello.json": Self.stub]) { (server: LiveServer) async throws in
            let body = "{\n  \"request\": {\"path\": \"/x\", \"heders\": {}},\n  \"response\": {}\n}"
            let result = try await server.request("POST", "/__admin/stubs", body: Data(body.utf8))
            #expect(result.status == 422)
            #expect(result.text.contains("request body:2: unknown key 'heders'"))
            #expect(result.text.contains("did you mean 'headers'?"))
            let json = try result.json()
            #expect(json["failureReason"] is String)
            #expect(json["recoverySuggestion"] is String)
        }
    }

    @Test("a reload picks up changes; a failed reload keeps the running set and says why")
    func reload() async throws {
        try await LiveServer.with(files: ["stubs/hello.json": Self.stub]) { (server: LiveServer) async throws in
            let file = server.stubsFolder.appendingPathComponent("hello.json")
            try TemporaryFolder.write(#"{"request": {"path": "/hello"}, "response": {"body": "changed"}}"#, to: file)
            #expect(try await server.request("POST", "/__admin/stubs/reload").status == 200)
            #expect(try await server.request("/hello").text == "changed")

            try TemporaryFolder.write("{\n  \"request\": {\"path\": \"/hello\"},\n  \"response\": {\"status\": \"nope\"}\n}", to: file)
            let failed = try await server.request("POST", "/__admin/stubs/reload")
            #expect(failed.status == 422)
            #expect(failed.text.contains("hello.json:3: unknown status 'nope'"))
            #expect(try await server.request("/hello").text == "changed")
        }
    }

    @Test("unknown admin paths and methods are JSON errors")
    func unknownPaths() async throws {
        try await LiveServer.with(files: ["stubs/hello.json": Self.stub]) { (server: LiveServer) async throws in
            let missing = try await server.request("/__admin/nothing")
            #expect(missing.status == 404)
            #expect(try missing.json()["recoverySuggestion"] is String)
            #expect(try await server.request("DELETE", "/__admin/health").status == 405)
        }
    }
}
