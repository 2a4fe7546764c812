import Foundation
import Testing

/// `POST /__admin/stubs` takes what a stub file holds, and its errors say what they are about.
@Suite("Admin API: stubs in the stub-file format")
struct AdminStubFormatLiveTests {
    static let stub = #"{"request": {"path": "/hello"}, "response": {"body": "hi"}}"#

    @Test("one stub, a list and {base, stubs}, as YAML or JSON")
    func formats() async throws {
        try await LiveServer.with(files: ["stubs/hello.json": Self.stub]) { (server: LiveServer) async throws in
            let one = try await server.request(
                "POST", "/__admin/stubs", headers: ["Content-Type": "application/yaml"],
                body: Data("request: { path: /yaml-one }\nresponse: { body: one }\n".utf8))
            #expect(one.status == 201, "\(one.text)")
            #expect(try await server.request("/yaml-one").text == "one")

            let list = try await server.request(
                "POST", "/__admin/stubs",
                body: Data("- request: { path: /list-a }\n  response: { body: a }\n- request: { path: /list-b }\n  response: { body: b }\n".utf8))
            #expect(list.status == 201, "\(list.text)")
            #expect((try list.json()["stubs"] as? [Any])?.count == 2)
            #expect(try await server.request("/list-b").text == "b")

            let based = try await server.request(
                "POST", "/__admin/stubs",
                body: Data(#"{"base": {"path": "/api/v2"}, "stubs": [{"request": {"path": "/x"}, "response": {"body": "based"}}]}"#.utf8))
            #expect(based.status == 201, "\(based.text)")
            #expect(try await server.request("/api/v2/x").text == "based")

            // One bad stub in a list: none is added.
            let bad = try await server.request(
                "POST", "/__admin/stubs",
                body: Data("- request: { path: /fine }\n  response: { body: fine }\n- request: { path: /bad }\n  response: { staus: 200 }\n".utf8))
            #expect(bad.status == 422)
            #expect(bad.text.contains("request body:4"), "\(bad.text)")
            #expect(try await server.request("/fine").status == 404)
        }
    }

    @Test("invalid JSON is a 422 that says it did not parse, and where; a failed reload's advice is about the files")
    func errors() async throws {
        try await LiveServer.with(files: ["stubs/hello.json": Self.stub]) { (server: LiveServer) async throws in
            let broken = try await server.request("POST", "/__admin/stubs", body: Data("{\n  \"request\": {\"path\": \"/x\"},\n  oops\n}".utf8))
            #expect(broken.status == 422)
            let json = try broken.json()
            let reason = try #require(json["failureReason"] as? String)
            #expect(!reason.contains("well formed"), "\(reason)")
            #expect(reason.contains("could not be parsed"))
            #expect(((json["errors"] as? [[String: Any]])?.first?["line"] as? Int) == 3)

            try TemporaryFolder.write(#"{"request": {"path": "/hello"}, "response": {"status": "nope"}}"#, to: server.stubsFolder.appendingPathComponent("hello.json"))
            let reload = try await server.request("POST", "/__admin/stubs/reload")
            #expect(reload.status == 422)
            let suggestion = try #require(try reload.json()["recoverySuggestion"] as? String)
            #expect(!suggestion.contains("request body"), "\(suggestion)")
            #expect(suggestion.contains("files listed in errors"))
        }
    }
}
