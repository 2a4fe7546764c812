import Foundation
import OrreryCore
import OrreryServer
import Testing

/// A recording folder belongs to one daemon at a time, and a route that changes its answer on every request is
/// recorded by appending.
@Suite("Recording: the folder lock and appends")
struct RecordingFolderLiveTests {
    @Test("a second daemon asking for a folder being recorded into is refused, naming the holder; freed on stop")
    func lock() async throws {
        let upstream = try FixtureProcess.upstream(name: "api")
        defer { upstream.stop() }
        let map = ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])]
        let recordings = try RecordingLiveTests.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        let start = Data(#"{"folder": "\#(recordings.path)"}"#.utf8)
        try await LiveServer.with(files: map) {
            $0.recording = RecordingSettings(folder: recordings.path)
        } _: { (first: LiveServer) async throws in
            let holder = "pid \(getpid()), port \(first.port)"
            #expect(throws: (any Error).self) {
                let second = try LiveServer(files: map, threads: 1) { $0.recording = RecordingSettings(folder: recordings.path) }
                second.stop()
            }
            do {
                _ = try LiveServer(files: map, threads: 1) { $0.recording = RecordingSettings(folder: recordings.path) }
            } catch {
                #expect("\(error)".contains(holder), "\(error)")
            }
            try await LiveServer.with(files: map, threads: 1) { (second: LiveServer) async throws in
                let refused = try await second.request("POST", "/__admin/recordings/start", body: start)
                #expect(refused.status == 409)
                #expect(refused.text.contains(holder), "\(refused.text)")
                _ = try await first.request("POST", "/__admin/recordings/stop")
                let started = try await second.request("POST", "/__admin/recordings/start", body: start)
                #expect(started.status == 200, "\(started.text)")
                _ = try await second.request("POST", "/__admin/recordings/stop")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: recordings.appendingPathComponent(".orrery.lock").path))
    }

    @Test("a route whose answer changes every time: each answer appended, all of them replay in order")
    func appends() async throws {
        let upstream = try FixtureProcess.upstream(name: "api")
        defer { upstream.stop() }
        let map = ["config/hosts.json": hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")])]
        let recordings = try RecordingLiveTests.recordingFolder()
        defer { try? FileManager.default.removeItem(at: recordings) }
        var counts: [String] = []
        try await LiveServer.with(files: map) {
            $0.recording = RecordingSettings(folder: recordings.path)
        } _: { (server: LiveServer) async throws in
            counts = try PythonClient.send(port: server.port, Array(repeating: .init("GET", "/rec/counter"), count: 300)).map(\.text)
            let stopped = try await server.request("POST", "/__admin/recordings/stop").json()
            #expect(stopped["exchangesRecorded"] as? Int == 300)
        }
        try await LiveServer.with(files: [:]) {
            $0.isOffline = true
            $0.recording = RecordingSettings(folder: recordings.path, mode: .none)
        } _: { (server: LiveServer) async throws in
            let replayed = try PythonClient.send(port: server.port, Array(repeating: .init("GET", "/rec/counter"), count: 300))
            #expect(replayed.map(\.text) == counts)
        }
    }
}
