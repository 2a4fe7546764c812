import Foundation
import Testing

/// A helper server from Tests/Fixtures (a real upstream, a DNS server), run as a child process on loopback.
final class FixtureProcess {
    let process = Process()
    let port: Int
    private let outputURL: URL

    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// Starts `python3 Tests/Fixtures/<script> <arguments>` and waits for its "PORT n" line.
    init(_ script: String, _ arguments: [String] = []) throws {
        outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-fixture-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.fixtures.appendingPathComponent(script).path] + arguments
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        try process.run()
        var found: Int?
        let deadline = Date().addingTimeInterval(15)
        while found == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("PORT ") }) {
                found = Int(line.dropFirst(5))
            } else {
                usleep(20_000)
            }
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw FixtureError("\(script) did not start")
        }
        port = found
    }

    static func upstream(name: String, tls: TestCertificates? = nil, port: Int? = nil) throws -> FixtureProcess {
        var arguments = ["--name", name]
        if let port { arguments += ["--port", String(port)] }
        if let tls { arguments += ["--tls", tls.serverCertificate, tls.serverKey] }
        return try FixtureProcess("upstream.py", arguments)
    }

    func stop() {
        if process.isRunning {
            // SIGKILL, not SIGTERM: the test runner starts children with SIGTERM blocked, and they would not stop.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: outputURL)
    }

    deinit {
        stop()
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A throwaway CA and a server certificate it signed for 127.0.0.1 and localhost, made with the openssl tool.
final class TestCertificates {
    let folder: URL
    var caCertificate: String { folder.appendingPathComponent("ca.pem").path }
    var serverCertificate: String { folder.appendingPathComponent("server.pem").path }
    var serverKey: String { folder.appendingPathComponent("server.key").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("subjectAltName=DNS:localhost,IP:127.0.0.1\n".utf8).write(to: folder.appendingPathComponent("san.ext"))
        try run(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Orrery Test CA"])
        try run(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"])
        try run([
            "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
            "-days", "2", "-extfile", "san.ext",
        ])
    }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError("openssl \(arguments.first ?? "") failed") }
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// A hosts.json with one configuration for `api.example.com`, its environments on loopback.
func hostMap(_ hosts: [(key: String, host: String?, scheme: String)], release: String = "PROD", extra: String = "") -> String {
    let entries = hosts.map { host in
        var fields = [#""key": "\#(host.key)""#, #""protocol": "\#(host.scheme)""#]
        if let name = host.host { fields.append(#""host": "\#(name)""#) }
        return "{" + fields.joined(separator: ", ") + "}"
    }
    return """
        { "configurations": [ {
            "canonical_host": "api.example.com", "canonical_protocol": "http",
            "release_key": "\(release)", \(extra)
            "hosts": [ \(entries.joined(separator: ", ")) ] } ] }
        """
}
