import Foundation
import Testing

/// The real `orrery` binary, run as a child process with its output captured in files.
final class OrreryProcess {
    let process = Process()
    let folder: URL
    private let stdoutURL: URL
    private let stderrURL: URL

    /// The repository root, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$ORRERY_BINARY`, or the debug build in `.build`.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["ORRERY_BINARY"] { return URL(fileURLWithPath: path) }
        return packageRoot.appendingPathComponent(".build/debug/orrery")
    }

    /// - Parameter shell: shell commands run first in the child's shell, such as `ulimit -f 64;`, before it
    ///   becomes the daemon (`exec`), so that they apply to the daemon alone.
    /// - Parameter executable: another program to run with `arguments` (one that starts orrery itself).
    init(_ arguments: [String], workingDirectory: URL? = nil, shell: String? = nil, executable: String? = nil) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        stdoutURL = folder.appendingPathComponent("stdout.log")
        stderrURL = folder.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        if let executable {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else if let shell {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shell + #" exec "$0" "$@""#, Self.binary.path] + arguments
        } else {
            process.executableURL = Self.binary
            process.arguments = arguments
        }
        process.currentDirectoryURL = workingDirectory ?? Self.packageRoot
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
    }

    deinit {
        if process.isRunning {
            process.interrupt()
            kill(process.processIdentifier, SIGKILL)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    var standardOutput: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var standardError: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// Waits (at most `seconds`) until `condition` holds, checking every 20 ms.
    static func waitFor(seconds: Double = 15, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    /// Waits for the start-up line and returns the base URL it names.
    func waitUntilListening() throws -> String {
        var url: String?
        _ = Self.waitFor {
            if let range = standardOutput.range(of: #"listening on (http://[^ ]+)"#, options: .regularExpression) {
                url = String(standardOutput[range].dropFirst("listening on ".count))
                return true
            }
            return !process.isRunning
        }
        return try #require(url, "no start-up line; stderr: \(standardError)")
    }

    /// Sends a signal and waits for the exit status.
    func stop(_ signal: Int32 = SIGTERM) -> Int32? {
        kill(process.processIdentifier, signal)
        return waitForExit()
    }

    func waitForExit(seconds: Double = 15) -> Int32? {
        guard Self.waitFor(seconds: seconds, { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    /// Runs the binary to completion (for `validate` and `--help`).
    static func run(_ arguments: [String], workingDirectory: URL? = nil) throws -> (status: Int32?, output: String, errors: String) {
        let child = try OrreryProcess(arguments, workingDirectory: workingDirectory)
        let status = child.waitForExit()
        return (status, child.standardOutput, child.standardError)
    }
}

/// curl against loopback, proxies off.
enum Curl {
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "--noproxy", "*", "--max-time", "20", "-s"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}

/// A temporary folder of files, removed when dropped.
final class Scratch {
    let url: URL

    init(_ files: [String: String]) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-e2e-files-\(UUID().uuidString)")
        for (path, contents) in files { try write(path, contents) }
        try FileManager.default.createDirectory(at: url.appendingPathComponent("stubs"), withIntermediateDirectories: true)
    }

    func write(_ path: String, _ contents: String) throws {
        let file = url.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: file)
    }

    func path(_ relative: String) -> String { url.appendingPathComponent(relative).path }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A loopback port held bound but not listening: connecting to it is refused for as long as this lives.
final class ClosedPort {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
