import Foundation
import OrreryServer
import Testing

/// The admin API's contract against a real daemon: routes and ids.
@Suite("Admin API contract")
struct AdminContractLiveTests {
    static let files = [
        "stubs/hello.json": #"{"id": "hello", "request": {"path": "/hello"}, "response": {"body": "from file"}}"#,
        "stubs/jobs.yaml": """
        - id: job
          request: { path: /job }
          responses:
            - { body: running }
            - { body: done }
        """,
    ]

    static func json(_ text: String) -> Data { Data(text.utf8) }

    // MARK: - Routes

    @Test("POST /__admin/stubs/rewind is reached and starts sequences over")
    func rewind() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            #expect(try await server.request("/job").text == "running")
            #expect(try await server.request("/job").text == "done")
            let rewound = try await server.request("POST", "/__admin/stubs/rewind")
            #expect(rewound.status == 200)
            #expect(try rewound.json()["rewound"] as? Bool == true)
            #expect(try await server.request("/job").text == "running")
        }
    }

    @Test("405 carries Allow from the table; 404 is JSON that lists the endpoints")
    func methodNotAllowed() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let cases: [(String, String, String)] = [
                ("DELETE", "/__admin/health", "GET"), ("PATCH", "/__admin/stubs", "GET, POST"),
                ("PATCH", "/__admin/stubs/hello", "GET, PUT, DELETE"), ("GET", "/__admin/stubs/reload", "POST"),
                ("GET", "/__admin/stubs/rewind", "POST"), ("GET", "/__admin/requests/count", "POST"),
                ("DELETE", "/__admin/environments/x", "PUT"),
                ("POST", "/__admin/logging", "GET"), ("GET", "/__admin/recordings/stop", "POST"),
            ]
            for (method, path, allowed) in cases {
                let result = try await server.request(method, path)
                #expect(result.status == 405, "\(method) \(path)")
                #expect(result.header("Allow") == allowed, "\(method) \(path)")
                #expect(try result.json()["failureReason"] is String)
            }
            let missing = try await server.request("/__admin/stubs/hello/more")
            #expect(missing.status == 404)
            let json = try missing.json()
            #expect(json["recoverySuggestion"] is String)
            #expect((json["endpoints"] as? [String])?.contains("POST /__admin/stubs/rewind: start every response sequence over") == true)
            #expect(try await server.request("/__admin/health/").status == 200)
        }
    }

    // MARK: - Ids

    @Test("adding a stub with an id in use is 409; PUT replaces; an id that names an endpoint is refused")
    func duplicateIDs() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let stub = #"{"id": "flags", "request": {"path": "/flags"}, "response": {"body": "one"}}"#
            #expect(try await server.request("POST", "/__admin/stubs", body: Self.json(stub)).status == 201)
            let again = try await server.request("POST", "/__admin/stubs", body: Self.json(stub))
            #expect(again.status == 409)
            #expect(try again.json()["recoverySuggestion"] is String)
            #expect(again.text.contains("PUT /__admin/stubs/flags"))
            let fileID = #"{"id": "hello", "request": {"path": "/other"}, "response": {"body": "x"}}"#
            #expect(try await server.request("POST", "/__admin/stubs", body: Self.json(fileID)).status == 409)
            #expect(try await server.request("/hello").text == "from file")

            let replaced = #"{"request": {"path": "/flags"}, "response": {"body": "two"}}"#
            #expect(try await server.request("PUT", "/__admin/stubs/flags", body: Self.json(replaced)).status == 200)
            #expect(try await server.request("PUT", "/__admin/stubs/flags", body: Self.json(replaced)).status == 200)
            #expect(try await server.request("/flags").text == "two")
            #expect(try await server.request("/__admin/stubs").json()["count"] as? Int == 3)
            #expect(try await server.request("DELETE", "/__admin/stubs/flags").status == 200)
            #expect(try await server.request("/flags").status == 404)

            let reserved = try await server.request(
                "POST", "/__admin/stubs", body: Self.json(#"{"id": "reload", "request": {"path": "/r"}, "response": {}}"#))
            #expect(reserved.status == 422)
            #expect(try reserved.json()["failureReason"] is String)
        }
    }
}
