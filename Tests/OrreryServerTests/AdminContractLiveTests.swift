import Foundation
import OrreryServer
import Testing

/// The admin API's contract against a real daemon: routes, reset, ids, who may call it, and what it may write.
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

    /// One raw HTTP/1.1 request with exactly the headers given (URLSession sets `Host` itself).
    static func raw(_ server: LiveServer, _ method: String, _ path: String, headers: [String], body: String = "") throws
        -> (status: Int, head: String, json: [String: Any])
    {
        var lines = ["\(method) \(path) HTTP/1.1"] + headers + ["Connection: close"]
        if !body.isEmpty { lines.append("Content-Length: \(body.utf8.count)") }
        let response = try RawSocket.exchange(port: server.port, lines.joined(separator: "\r\n") + "\r\n\r\n" + body)
        let parts = response.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        let object = try? JSONSerialization.jsonObject(with: Data(parts.dropFirst().joined(separator: "\r\n\r\n").utf8))
        return (status, head, object as? [String: Any] ?? [:])
    }

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
                ("DELETE", "/__admin/health", "GET"), ("PATCH", "/__admin/stubs", "GET, POST, DELETE"),
                ("PATCH", "/__admin/stubs/hello", "GET, PUT, DELETE"), ("GET", "/__admin/stubs/reload", "POST"),
                ("GET", "/__admin/stubs/rewind", "POST"), ("GET", "/__admin/requests/count", "POST"),
                ("PUT", "/__admin/reset", "POST"), ("DELETE", "/__admin/environments/x", "PUT"),
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
            #expect((json["endpoints"] as? [String])?.contains("POST /__admin/reset: API stubs gone, stub files read again, journal cleared, sequences rewound") == true)
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

    // MARK: - Reset

    @Test("DELETE /__admin/stubs removes the API's stubs and keeps the files'")
    func deleteAPIStubs() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            for path in ["/a", "/b"] {
                let stub = #"{"request": {"path": "\#(path)"}, "response": {"body": "api"}}"#
                #expect(try await server.request("POST", "/__admin/stubs", body: Self.json(stub)).status == 201)
            }
            let deleted = try await server.request("DELETE", "/__admin/stubs")
            #expect(deleted.status == 200)
            let json = try deleted.json()
            #expect(json["apiStubsRemoved"] as? Int == 2)
            #expect(json["stubs"] as? Int == 2)
            #expect(try await server.request("/a").status == 404)
            #expect(try await server.request("/hello").text == "from file")
            #expect(try await server.request("DELETE", "/__admin/stubs").json()["apiStubsRemoved"] as? Int == 0)
        }
    }

    @Test("POST /__admin/reset: API stubs gone, files as on disk, journal empty, sequences at their start")
    func reset() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let added = #"{"request": {"path": "/added"}, "response": {"body": "api"}}"#
            #expect(try await server.request("POST", "/__admin/stubs", body: Self.json(added)).status == 201)
            let replaced = #"{"request": {"path": "/hello"}, "response": {"body": "replaced"}}"#
            #expect(try await server.request("PUT", "/__admin/stubs/hello", body: Self.json(replaced)).status == 200)
            #expect(try await server.request("/job").text == "running")
            #expect(try await server.request("/hello").text == "replaced")
            try TemporaryFolder.write(
                #"{"id": "bye", "request": {"path": "/bye"}, "response": {"body": "new file"}}"#,
                to: server.stubsFolder.appendingPathComponent("bye.json"))

            let reset = try await server.request("POST", "/__admin/reset")
            #expect(reset.status == 200)
            let json = try reset.json()
            #expect(json["reset"] as? Bool == true)
            #expect(json["apiStubsRemoved"] as? Int == 1)
            #expect(json["requestsCleared"] as? Int == 2)
            #expect(json["stubs"] as? Int == 3)
            #expect(json["stubFiles"] as? Int == 3)

            #expect(try await server.request("/__admin/requests").json()["total"] as? Int == 0)
            #expect(try await server.request("/added").status == 404)
            #expect(try await server.request("/hello").text == "from file")
            #expect(try await server.request("/bye").text == "new file")
            #expect(try await server.request("/job").text == "running")
        }
    }

    @Test("a reset whose files do not load keeps the file stubs, resets the rest and says why")
    func resetWithBrokenFiles() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let added = #"{"request": {"path": "/added"}, "response": {"body": "api"}}"#
            #expect(try await server.request("POST", "/__admin/stubs", body: Self.json(added)).status == 201)
            #expect(try await server.request("/job").text == "running")
            try TemporaryFolder.write(
                "{\n  \"request\": {\"path\": \"/hello\"},\n  \"response\": {\"status\": \"nope\"}\n}",
                to: server.stubsFolder.appendingPathComponent("hello.json"))

            let reset = try await server.request("POST", "/__admin/reset")
            #expect(reset.status == 422)
            #expect(reset.text.contains("hello.json:3: unknown status 'nope'"))
            let json = try reset.json()
            #expect(json["recoverySuggestion"] is String)
            #expect(json["apiStubsRemoved"] as? Int == 1)
            #expect(json["stubs"] as? Int == 2)
            #expect(try await server.request("/hello").text == "from file")
            #expect(try await server.request("/added").status == 404)
            #expect(try await server.request("/job").text == "running")
        }
    }

    // MARK: - Who may call

    @Test("a foreign Origin or Host is 403; the daemon's own, and none, pass")
    func originAndHost() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let port = server.port
            let own = "Host: 127.0.0.1:\(port)"
            let stub = #"{"request": {"path": "/planted"}, "response": {"body": "planted"}}"#
            // A page on another site posting text/plain: a "simple" request a browser sends without asking.
            let crossSite = try Self.raw(
                server, "POST", "/__admin/stubs",
                headers: [own, "Origin: http://evil.example", "Content-Type: text/plain"], body: stub)
            #expect(crossSite.status == 403)
            #expect(crossSite.json["failureReason"] is String)
            #expect(crossSite.json["recoverySuggestion"] is String)
            #expect(try await server.request("/planted").status == 404)

            let rebound = try Self.raw(server, "POST", "/__admin/stubs", headers: ["Host: evil.example:\(port)"], body: stub)
            #expect(rebound.status == 403)
            #expect((rebound.json["message"] as? String)?.contains("DNS rebinding") == true)
            #expect(try await server.request("/planted").status == 404)

            for headers in [
                [own], [own, "Origin: http://127.0.0.1:\(port)"], ["Host: localhost:\(port)", "Origin: http://localhost:\(port)"],
                ["Host: 127.0.0.1"], ["Host: localhost"], ["Host: [::1]:\(port)", "Origin: http://[::1]:\(port)"],
            ] {
                #expect(try Self.raw(server, "GET", "/__admin/stubs", headers: headers).status == 200, "\(headers)")
            }
            #expect(
                try Self.raw(server, "GET", "/__admin/stubs", headers: [own, "Origin: http://localhost:1"]).status
                    == 403)
            // Health alone answers whatever the Host and Origin: probes come by the pod's address.
            #expect(
                try Self.raw(server, "GET", "/__admin/health", headers: [own, "Origin: http://localhost:1"]).status
                    == 200)
            #expect(try await server.request("/__admin/health").status == 200)
        }
    }

    @Test("with --admin-token, the token lets a request with a foreign Origin or Host through")
    func token() async throws {
        try await LiveServer.with(files: Self.files, configure: { $0.adminToken = "s3cret" }) { (server: LiveServer) async throws in
            let foreign = ["Host: evil.example", "Origin: http://evil.example"]
            #expect(try Self.raw(server, "GET", "/__admin/stubs", headers: foreign).status == 403)
            #expect(
                try Self.raw(server, "GET", "/__admin/stubs", headers: foreign + ["X-Orrery-Admin-Token: s3cret"])
                    .status == 200)
            #expect(
                try Self.raw(server, "GET", "/__admin/stubs", headers: foreign + ["Authorization: Bearer s3cret"])
                    .status == 200)
            #expect(
                try Self.raw(server, "GET", "/__admin/stubs", headers: foreign + ["Authorization: Bearer nope"]).status
                    == 401)
            #expect(
                try Self.raw(server, "GET", "/__admin/health", headers: foreign).status == 200, "health needs no token")
        }
    }

    // MARK: - What it may write

    @Test("logging/start refuses a FIFO, /proc/self/mem, /dev/null and a folder with 400")
    func loggingFileRule() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let fifo = server.folder.appendingPathComponent("traffic.fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let cases: [(String, String)] = [
                (fifo, "is a FIFO"), ("/proc/self/mem", "is under /proc"), ("/dev/null", "is a character device"),
                ("/dev/full", "is a character device"), (server.stubsFolder.path, "is a folder"),
            ]
            // A daemon that opened the FIFO would wait for a reader and never answer: the request would time out.
            for (path, reason) in cases {
                let result = try await server.request("POST", "/__admin/logging/start", body: Self.json(#"{"file": "\#(path)"}"#))
                #expect(result.status == 400, "\(path)")
                let json = try result.json()
                #expect((json["message"] as? String)?.contains(reason) == true, "\(path): \(result.text)")
                #expect(json["failureReason"] is String)
                #expect(json["recoverySuggestion"] is String)
            }
            #expect(try await server.request("/__admin/logging").json()["logging"] as? Bool == false)
            let good = server.folder.appendingPathComponent("traffic.jsonl").path
            #expect(try await server.request("POST", "/__admin/logging/start", body: Self.json(#"{"file": "\#(good)"}"#)).status == 200)
            #expect(try await server.request("/hello").text == "from file")
            _ = try await server.request("POST", "/__admin/logging/stop")
        }
    }

    @Test("recordings/start refuses a folder that is a file, a FIFO or under /proc with 400")
    func recordingFolderRule() async throws {
        try await LiveServer.with(files: Self.files) { (server: LiveServer) async throws in
            let fifo = server.folder.appendingPathComponent("recordings.fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let file = server.stubsFolder.appendingPathComponent("hello.json").path
            for (folder, reason) in [(fifo, "is a FIFO"), (file, "is a regular file"), ("/proc/self", "is under /proc"), ("/dev/null", "character device")] {
                let result = try await server.request(
                    "POST", "/__admin/recordings/start", body: Self.json(#"{"folder": "\#(folder)", "mode": "none"}"#))
                #expect(result.status == 400, "\(folder)")
                #expect((try result.json()["message"] as? String)?.contains(reason) == true, "\(folder): \(result.text)")
            }
            #expect(try await server.request("/__admin/recordings").json()["recording"] as? Bool == false)
        }
    }
}
