import Foundation
import OrreryCore
import Testing

@testable import OrreryEvent

/// A folder for one test's CA and certificates, removed with its owner.
final class CertificateScratch {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The CA folder inside, not made yet (a nested one, to see parents made too).
    var caFolder: String { folder.appendingPathComponent("data/orrery/ca").path }

    /// Writes `bytes` to a file in the scratch folder and returns its path.
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}

/// An external program's outcome.
struct ToolResult {
    var status: Int32
    var output: String
    var error: String
}

/// Runs openssl, curl and python3 as the tests' independent judges.
enum TLSTool {
    static func run(_ arguments: [String]) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        // Standard error goes to a file: reading two pipes one after the other could block on the second.
        let errorURL = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-tool-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorURL) }
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolResult(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            error: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "")
    }

    /// `openssl verify -x509_strict -purpose sslserver` of `leaf` for `host` (a name or an address) under `ca`.
    static func verify(leaf: String, ca: String, host: String) throws -> ToolResult {
        let check = CertificateName(host)?.isAddress == true ? "-verify_ip" : "-verify_hostname"
        return try run(["openssl", "verify", "-x509_strict", "-purpose", "sslserver", check, host, "-CAfile", ca, leaf])
    }

    /// curl against 127.0.0.1:`port`, with `ca` as the only trusted root and no proxy.
    static func curl(_ url: String, ca: String, resolve: String? = nil) throws -> ToolResult {
        var arguments = ["curl", "-sS", "--max-time", "20", "--noproxy", "*", "--cacert", ca, "-w", "\\nhttp=%{http_version}"]
        if let resolve { arguments += ["--resolve", resolve] }
        return try run(arguments + [url])
    }
}
