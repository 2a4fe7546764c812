import Foundation
import OrreryClient
import Testing

@testable import OrreryTesting

/// The daemon never outlives the process that started it: a probe process starts one through the kit and is killed
/// with SIGKILL, which runs no code of the probe's at all; the daemon must go within a few seconds.
@Suite struct LifelineTests {
    @Test(arguments: ["blocking", "async"])
    func theDaemonStopsWhenItsTestProcessIsKilled(mode: String) async throws {
        let probe = Process()
        probe.executableURL = try Support.probe()
        probe.arguments = [mode]
        var environment = ProcessInfo.processInfo.environment
        environment["ORRERY_BINARY"] = try BinaryLocator.forThisProcess(explicitPath: nil).locate().path
        probe.environment = environment
        let output = Pipe()
        probe.standardOutput = output
        try probe.run()
        defer { if probe.isRunning { kill(probe.processIdentifier, SIGKILL) } }

        // `PID URL` once the probe's daemon is ready.
        let line = try await Task.detached { () throws -> String in
            var bytes = Data()
            while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
                bytes.append(byte)
            }
            return String(decoding: bytes, as: UTF8.self)
        }.value
        let parts = line.split(separator: " ")
        let pid = try #require(parts.first.flatMap { Int32($0) }, "the probe said: \(line)")
        let url = try #require(parts.last.flatMap { URL(string: String($0)) })
        #expect(try await OrreryClient(baseURL: url).health().status == "ok")

        kill(probe.processIdentifier, SIGKILL)
        let gone = await Support.waitUntilGone(pid, within: .seconds(5))
        #expect(gone != nil, "orrery (pid \(pid)) still runs 5 seconds after its test process was killed")
        if let gone { print("orrery exited \(gone) after its test process was killed (\(mode))") }
        // A killed process cleans nothing up: its daemon's temporary folder, found by the pid in its ready file, stays.
        let leftover = try #require(Self.folder(ofDaemon: pid), "the daemon's folder, with its ready file, is still there")
        try FileManager.default.removeItem(at: leftover)
    }

    /// The kit's temporary folder whose ready file names `pid`.
    static func folder(ofDaemon pid: Int32) -> URL? {
        let temporary = FileManager.default.temporaryDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        return names.filter { $0.hasPrefix("orrery-test-") }.map { temporary.appendingPathComponent($0) }.first {
            ReadyFile.read(at: $0.appendingPathComponent("ready.json").path)?.pid == pid
        }
    }
}
