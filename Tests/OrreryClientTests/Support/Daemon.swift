import Foundation
import OrreryClient
import Testing

/// The real `orrery` binary on a free port, serving a temporary stubs folder; `stop()` ends it.
///
/// Its standard output goes to a file, where the start-up line
/// `Orrery <version> listening on http://127.0.0.1:PORT (...)` names the port; a file never fills up the way an
/// unread pipe does, so the daemon can log on without blocking.
final class Daemon: @unchecked Sendable {  // Process is only signalled and polled, never changed after start.
    let process: Process
    /// The temporary folder: `stubs/`, `config/`, the output files, and whatever a test writes there.
    let folder: URL
    let baseURL: URL
    let port: Int

    /// The repository root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$ORRERY_BINARY` (scripts/test.sh sets it), or the debug build in `.build`.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["ORRERY_BINARY"] { return URL(fileURLWithPath: path) }
        return packageRoot.appendingPathComponent(".build/debug/orrery")
    }

    /// An environment map with one configuration, `api.example.com`: PROD, QA and USER.
    static let hostMap = """
        {"configurations": [{
            "canonical_host": "api.example.com", "canonical_protocol": "https",
            "prerelease_key": "QA", "release_key": "PROD",
            "hosts": [{"key": "PROD", "host": "api.example.com"},
                      {"key": "QA", "host": "qa.api.example.com"},
                      {"key": "USER"}]}]}
        """

    /// A client for this daemon.
    var client: OrreryClient { OrreryClient(baseURL: baseURL) }

    /// Starts the daemon and waits for its start-up line.
    /// - Parameters:
    ///   - stubs: files to write under `stubs/`, by relative path.
    ///   - isProxying: forward misses (to the host map's environments); off means `--no-proxy`.
    ///   - arguments: more options for `orrery serve`.
    static func start(stubs: [String: String] = [:], isProxying: Bool = false, arguments: [String] = []) async throws
        -> Daemon
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-client-\(UUID().uuidString)")
        let stubsFolder = folder.appendingPathComponent("stubs")
        let configFolder = folder.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: stubsFolder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: configFolder, withIntermediateDirectories: true)
        for (path, contents) in stubs {
            let file = stubsFolder.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: file)
        }
        try Data(hostMap.utf8).write(to: configFolder.appendingPathComponent("hosts.json"))

        let stdoutURL = folder.appendingPathComponent("stdout.log")
        let stderrURL = folder.appendingPathComponent("stderr.log")
        try Data().write(to: stdoutURL)
        try Data().write(to: stderrURL)
        let process = Process()
        process.executableURL = binary
        process.arguments =
            [
                "serve", "--host", "127.0.0.1", "--port", "0", "--stubs", stubsFolder.path, "--config",
                configFolder.path,
                "--threads", "1", "--watch-interval", "0", "--log-level", "warning",
            ] + (isProxying ? [] : ["--no-proxy"]) + arguments
        process.currentDirectoryURL = folder
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()

        // The output is read once more after the deadline: a test run that keeps the cooperative threads busy can
        // wake this task late, after the line has long been there.
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let output = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
            if let port = Self.port(inStartupLine: output), let url = URL(string: "http://127.0.0.1:\(port)") {
                return Daemon(process: process, folder: folder, baseURL: url, port: port)
            }
            guard process.isRunning, ContinuousClock.now < deadline else { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let isRunning = process.isRunning
        let output = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
        if isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
        let what = isRunning ? "printed no start-up line in 30 seconds" : "exited"
        throw DaemonError(
            message: "orrery (\(binary.path)) \(what); standard output:\n\(output.suffix(1000))\nstandard error:\n"
                + "\(errors.suffix(2000))")
    }

    private init(process: Process, folder: URL, baseURL: URL, port: Int) {
        self.process = process
        self.folder = folder
        self.baseURL = baseURL
        self.port = port
    }

    /// The port in `Orrery 0.1.0 listening on http://127.0.0.1:PORT (...)`, once the line is complete.
    static func port(inStartupLine output: String) -> Int? {
        guard
            let line = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().first(where: {
                $0.contains(" listening on http://")
            })
        else { return nil }
        guard let range = line.range(of: #"listening on http://[^ :]+:([0-9]+)"#, options: .regularExpression) else {
            return nil
        }
        return line[range].split(separator: ":").last.flatMap { Int($0) }
    }

    /// Stops the daemon with SIGTERM (SIGKILL after 5 seconds) and removes its folder.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(5)
            while process.isRunning, Date() < deadline { usleep(2_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    deinit {
        stop()
    }

    var standardError: String {
        (try? String(contentsOf: folder.appendingPathComponent("stderr.log"), encoding: .utf8)) ?? ""
    }

    /// A path inside the daemon's folder.
    func path(_ relative: String) -> String { folder.appendingPathComponent(relative).path }
}

struct DaemonError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
