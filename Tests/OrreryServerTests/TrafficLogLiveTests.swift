import Foundation
import OrreryServer
import Testing

/// The traffic log: JSON Lines on disk, switched by flag and admin API, rotated by size.
@Suite("Traffic log")
struct TrafficLogLiveTests {
    static let stubs = #"[{"name": "user", "request": {"path": "/users/1"}, "response": {"json": {"name": "ada"}}}]"#

    static func lines(_ path: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    @Test("--log-traffic writes one redacted JSON line per exchange, with the journal's ids, as it goes")
    func flagStartsTheLog() async throws {
        let folder = try TemporaryFolder.make(files: [:])
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("traffic.jsonl").path
        try await LiveServer.with(files: ["stubs/s.json": Self.stubs], configure: { $0.trafficLog = TrafficLogSettings(path: path) }) {
            (server: LiveServer) async throws in
            _ = try await server.request("/users/1", headers: ["Authorization": "Bearer very-secret-token"])
            _ = try await server.request("/missing")
            _ = try await server.request("/__admin/health")
            // Written as it goes: the lines are there while the daemon runs (the status call waits for the queue).
            #expect(try await server.request("/__admin/logging").json()["exchangesWritten"] as? Int == 2)
            let lines = try Self.lines(path)
            #expect(lines.count == 2)
            #expect((lines[0]["request"] as? [String: Any])?["path"] as? String == "/users/1")
            #expect((lines[0]["response"] as? [String: Any])?["body"] as? String == #"{"name":"ada"}"#)
            #expect((lines[1]["response"] as? [String: Any])?["status"] as? Int == 404)
            let journal = try await server.request("/__admin/requests").json()["requests"] as? [[String: Any]]
            #expect(journal?.last?["id"] as? String == lines[0]["id"] as? String)
            #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains("very-secret-token"))
        }
    }

    @Test("start and stop through the admin API, without headers or bodies when asked; rotated by size")
    func adminAndRotation() async throws {
        let folder = try TemporaryFolder.make(files: [:])
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("t.jsonl").path
        try await LiveServer.with(files: ["stubs/s.json": Self.stubs]) { (server: LiveServer) async throws in
            #expect(try await server.request("POST", "/__admin/logging/start").status == 422)  // no file known yet
            let started = try await server.request(
                "POST", "/__admin/logging/start", body: Data(#"{"file": "\#(path)", "includeHeaders": false, "includeBody": false}"#.utf8))
            #expect(started.status == 200)
            _ = try await server.request("/users/1")
            let stopped = try await server.request("POST", "/__admin/logging/stop").json()
            #expect(stopped["exchangesWritten"] as? Int == 1)
            _ = try await server.request("/users/1")  // not logged: the log is off
            let lines = try Self.lines(path)
            #expect(lines.count == 1)
            let request = try #require(lines[0]["request"] as? [String: Any])
            #expect(request["headers"] == nil)
            #expect(request["body"] == nil)
            #expect(request["bodySize"] as? Int == 0)

            // Rotation: a small size bound, many exchanges; every file holds whole lines only.
            let rotated = try await server.request(
                "POST", "/__admin/logging/start", body: Data(#"{"file": "\#(path)", "includeBody": true, "maxBytes": 2048}"#.utf8))
            #expect(rotated.status == 200)
            for _ in 0..<40 { _ = try await server.request("/users/1") }
            _ = try await server.request("POST", "/__admin/logging/stop")
            var total = 0
            for name in ["t.jsonl", "t.jsonl.1", "t.jsonl.2", "t.jsonl.3"] {
                let file = folder.appendingPathComponent(name).path
                #expect(FileManager.default.fileExists(atPath: file), "\(name) missing")
                let size = (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? .max
                #expect(size <= 2048)
                total += try Self.lines(file).count
            }
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("t.jsonl.4").path))
            #expect(total > 5 && total < 41)  // older rotations were dropped
        }
    }

    @Test("a full disk stops the log with a clear error; serving goes on")
    func fullDisk() async throws {
        // Through the flag: the admin API only writes regular files, and /dev/full is a device.
        try await LiveServer.with(files: ["stubs/s.json": Self.stubs], configure: { $0.trafficLog = TrafficLogSettings(path: "/dev/full") }) {
            (server: LiveServer) async throws in
            #expect(try await server.request("/users/1").status == 200)
            let status = try await server.request("/__admin/logging").json()
            #expect(status["logging"] as? Bool == false)
            #expect((status["error"] as? String)?.contains("No space left on device") == true)
            #expect(try await server.request("/users/1").status == 200)
        }
    }
}
