import Foundation
import Testing

/// `orrery ca install` with stand-ins for xcrun, security and update-ca-certificates first on PATH (they record what
/// they were asked; the machine's own trust store is never touched), and `orrery doctor` on broken setups.
@Suite("orrery ca install and orrery doctor")
struct DoctorCommandTests {
    /// A folder of stand-in tools that append their name and arguments to `calls.log`, first on PATH.
    final class StandIns {
        let scratch: Scratch
        var log: String { (try? String(contentsOfFile: scratch.path("calls.log"), encoding: .utf8)) ?? "" }

        init(exitStatus: Int = 0) throws {
            scratch = try Scratch([:])
            for tool in ["xcrun", "security", "update-ca-certificates"] {
                let path = scratch.path("bin/\(tool)")
                try scratch.write(
                    "bin/\(tool)",
                    "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> \"\(scratch.path("calls.log"))\"\nexit \(exitStatus)\n"
                )
                chmod(path, 0o755)
            }
        }

        /// Runs orrery with the stand-ins first on PATH and the system folder moved into the scratch folder.
        func run(_ arguments: [String], environment: [String] = []) throws -> (
            status: Int32?, output: String, errors: String
        ) {
            let path = scratch.path("bin") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            let child = try OrreryProcess(
                ["PATH=\(path)", "ORRERY_CA_CERTIFICATES_DIR=\(scratch.path("ca-certificates"))"] + environment
                    + [OrreryProcess.binary.path] + arguments,
                executable: "/usr/bin/env")
            let status = child.waitForExit()
            return (status, child.standardOutput, child.standardError)
        }
    }

    @Test("--simulator runs xcrun simctl keychain DEVICE add-root-cert with the CA's certificate, and says so")
    func simulator() throws {
        let tools = try StandIns()
        let folder = tools.scratch.path("ca")
        for device in ["booted", "0D4F5A3C-9D2B-4C6E-8F1A-2B3C4D5E6F70"] {
            let result = try tools.run(["ca", "install", "--simulator", device, "--ca-dir", folder])
            #expect(result.status == 0, "\(result.errors)")
            #expect(result.output.contains("running: xcrun simctl keychain \(device) add-root-cert \(folder)/ca.pem"))
        }
        #expect(
            tools.log
                == "xcrun simctl keychain booted add-root-cert \(folder)/ca.pem\n"
                + "xcrun simctl keychain 0D4F5A3C-9D2B-4C6E-8F1A-2B3C4D5E6F70 add-root-cert \(folder)/ca.pem\n")
    }

    @Test("--system on Debian copies the certificate into the store's folder and runs update-ca-certificates")
    func systemDebian() throws {
        let tools = try StandIns()
        let folder = tools.scratch.path("ca")
        let result = try tools.run(["ca", "install", "--system", "--system-kind", "debian", "--ca-dir", folder])
        #expect(result.status == 0, "\(result.errors)")
        #expect(tools.log == "update-ca-certificates \n")
        let copied = tools.scratch.path("ca-certificates/orrery-local-ca.crt")
        #expect(
            try String(contentsOfFile: copied, encoding: .utf8)
                == String(contentsOfFile: folder + "/ca.pem", encoding: .utf8))
        #expect(result.output.contains("copied \(folder)/ca.pem to \(copied)"))
        #expect(result.output.contains("running: update-ca-certificates"))

        // doctor then finds it where it was put.
        let doctor = try tools.run([
            "doctor", "--port", "0", "--ca-dir", folder, "--stubs", tools.scratch.path("stubs"),
        ])
        #expect(doctor.output.contains("ok: the CA is trusted by \(copied)"), "\(doctor.output)")
    }

    @Test("--system on macOS runs security add-trusted-cert into the System keychain; a failing tool exits 1 naming it")
    func systemMacOS() throws {
        let tools = try StandIns()
        let folder = tools.scratch.path("ca")
        let result = try tools.run(["ca", "install", "--system", "--system-kind", "macos", "--ca-dir", folder])
        #expect(result.status == 0, "\(result.errors)")
        #expect(
            tools.log
                == "security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain \(folder)/ca.pem\n")

        let failing = try StandIns(exitStatus: 3)
        let failed = try failing.run(["ca", "install", "--simulator", "booted", "--ca-dir", folder])
        #expect(failed.status == 1)
        #expect(failed.errors.contains("xcrun exited with status 3"), "\(failed.errors)")
        let neither = try failing.run(["ca", "install", "--ca-dir", folder])
        #expect(neither.status != 0)
        #expect(neither.errors.contains("--simulator booted|UDID, or --system"))
    }

    @Test("doctor on a sound setup: every line ok or note, exit 0")
    func soundSetup() throws {
        let scratch = try Scratch(["stubs/a.yaml": "- request: {path: /a}\n  response: {body: a}\n"])
        let upstream = try Listener()
        try scratch.write(
            "config/hosts.json",
            #"{"configurations": [{"canonical_host": "api.example.com", "canonical_protocol": "http", "hosts": [{"key": "PROD", "host": "127.0.0.1:\#(upstream.port)"}, {"key": "USER"}]}]}"#
        )
        let result = try StandIns().run(
            [
                "doctor", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config"),
                "--ca-dir", scratch.path("ca"),
            ],
            environment: ["http_proxy=http://proxy.example:3128", "no_proxy=localhost,127.0.0.1"])
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        #expect(
            result.output.contains(
                "ok: PROD of api.example.com (http://127.0.0.1:\(upstream.port)) resolves and accepts connections"))
        #expect(result.output.contains("ok: 1 stub(s) in 1 file(s)"))
        #expect(result.output.contains("no problems found."))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("ca")), "doctor makes no CA")
    }

    @Test("doctor on a broken setup: a problem line with its fix for each, exit 1")
    func brokenSetup() throws {
        let scratch = try Scratch(["stubs/broken.yaml": "- request: {path: /a}\n  response: {statsu: 200}\n"])
        let taken = try Listener()
        let closed = try ClosedPort()
        try scratch.write(
            "config/hosts.json",
            #"{"configurations": [{"canonical_host": "api.example.com", "canonical_protocol": "http", "hosts": [{"key": "PROD", "host": "127.0.0.1:\#(closed.port)"}]}]}"#
        )
        try scratch.write("ca/ca.pem", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
        let result = try StandIns().run(
            [
                "doctor", "--port", "\(taken.port)", "--stubs", scratch.path("stubs"), "--config",
                scratch.path("config"),
                "--ca-dir", scratch.path("ca"),
            ],
            environment: ["HTTPS_PROXY=http://proxy.example:3128", "no_proxy=", "NO_PROXY="])
        #expect(result.status == 1, "\(result.output)")
        let output = result.output
        #expect(output.contains("problem: 127.0.0.1:\(taken.port) is in use"), "\(output)")
        #expect(output.contains("problem: the CA in \(scratch.path("ca")) is half there (ca-key.pem is missing)"))
        #expect(
            output.contains(
                "problem: HTTPS_PROXY is set (http://proxy.example:3128) and no_proxy does not cover 127.0.0.1"))
        #expect(
            output.contains(
                "problem: PROD of api.example.com (http://127.0.0.1:\(closed.port)) resolves to 127.0.0.1:\(closed.port) but a connection fails"
            ))
        #expect(output.contains("problem: \(scratch.path("stubs/broken.yaml")):2:"), "\(output)")
        #expect(output.contains("5 problem(s) found."))
        let problems = output.split(separator: "\n").filter { $0.hasPrefix("problem: ") }.count
        let fixes = output.split(separator: "\n").filter { $0.hasPrefix("  fix: ") }.count
        #expect(problems == 5 && fixes == 5)
    }
}

/// A loopback port that accepts connections (and never reads them) for as long as this lives.
final class Listener {
    let port: Int
    private let descriptor: Int32

    init() throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = self.descriptor
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
