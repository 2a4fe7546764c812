import Foundation
import Testing

@Suite("orrery ca export")
struct CACommandTests {
    @Test("PEM on standard output: the CA is made on first use, then the same one is exported, never the key")
    func pemToStandardOutput() throws {
        let scratch = try Scratch([:])
        let folder = scratch.path("ca")
        let first = try OrreryProcess.run(["ca", "export", "--ca-dir", folder])
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        #expect(first.output.hasSuffix("-----END CERTIFICATE-----\n"))
        #expect(!first.output.contains("PRIVATE KEY"))
        #expect(first.errors.contains("made a new local CA in \(folder)"))

        let second = try OrreryProcess.run(["ca", "export", "--ca-dir", folder, "--format", "pem"])
        #expect(second.status == 0)
        #expect(second.output == first.output)
        #expect(!second.errors.contains("made a new"))
        #expect(try String(contentsOfFile: folder + "/ca.pem", encoding: .utf8) == first.output)

        let pemFile = scratch.path("exported.pem")
        try Data(first.output.utf8).write(to: URL(fileURLWithPath: pemFile))
        let subject = try Self.openssl(["x509", "-in", pemFile, "-noout", "-subject"])
        #expect(subject.contains("CN = \"Orrery local CA ("), "\(subject)")
    }

    @Test("DER to a file: openssl reads it with -inform der, and it is the PEM's certificate")
    func derToFile() throws {
        let scratch = try Scratch([:])
        let folder = scratch.path("ca")
        let out = scratch.path("ca.der")
        let result = try OrreryProcess.run(["ca", "export", "--ca-dir", folder, "--format", "der", "--out", out])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.isEmpty)
        let der = try Data(contentsOf: URL(fileURLWithPath: out))
        #expect(der.first == 0x30)  // an ASN.1 SEQUENCE, not text
        let fromDER = try Self.openssl(["x509", "-inform", "der", "-in", out, "-noout", "-fingerprint", "-sha256"])
        let fromPEM = try Self.openssl(["x509", "-in", folder + "/ca.pem", "-noout", "-fingerprint", "-sha256"])
        #expect(fromDER.hasPrefix("sha256 Fingerprint=") || fromDER.hasPrefix("SHA256 Fingerprint="), "\(fromDER)")
        #expect(fromDER == fromPEM)
        let fingerprint = try #require(fromDER.split(separator: "=").last).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(result.errors.contains("wrote \(out) (SHA-256 fingerprint \(fingerprint))"))
    }

    @Test("without --ca-dir the CA lives in $XDG_DATA_HOME/orrery/ca")
    func defaultFolder() throws {
        let scratch = try Scratch([:])
        let child = try OrreryProcess(
            ["XDG_DATA_HOME=\(scratch.path("data"))", OrreryProcess.binary.path, "ca", "export"],
            executable: "/usr/bin/env")
        #expect(child.waitForExit() == 0, "\(child.standardError)")
        #expect(FileManager.default.fileExists(atPath: scratch.path("data/orrery/ca/ca.pem")))
        #expect(FileManager.default.fileExists(atPath: scratch.path("data/orrery/ca/ca-key.pem")))
    }

    @Test("four orrery processes started at once on a new folder export one and the same CA")
    func concurrentProcesses() throws {
        let scratch = try Scratch([:])
        let folder = scratch.path("ca")
        let children = try (0..<4).map { _ in try OrreryProcess(["ca", "export", "--ca-dir", folder]) }
        for child in children { #expect(child.waitForExit() == 0, "\(child.standardError)") }
        #expect(Set(children.map(\.standardOutput)).count == 1)
        #expect(children.filter { $0.standardError.contains("made a new local CA") }.count == 1)
    }

    @Test("a corrupt key is an error naming the file; nothing is written")
    func corruptKey() throws {
        let scratch = try Scratch([:])
        let folder = scratch.path("ca")
        #expect(try OrreryProcess.run(["ca", "export", "--ca-dir", folder]).status == 0)
        try Data("garbage\n".utf8).write(to: URL(fileURLWithPath: folder + "/ca-key.pem"))
        let out = scratch.path("ca.pem")
        let result = try OrreryProcess.run(["ca", "export", "--ca-dir", folder, "--out", out])
        #expect(result.status == 1)
        #expect(result.errors.contains("\(folder)/ca-key.pem"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("--help says how to trust the certificate on each platform")
    func help() throws {
        let result = try OrreryProcess.run(["ca", "export", "--help"])
        #expect(result.status == 0)
        for line in [
            "xcrun simctl keychain booted add-root-cert", "security add-trusted-cert", "--cacert", "REQUESTS_CA_BUNDLE",
            "NODE_EXTRA_CA_CERTS", "/usr/local/share/ca-certificates", "update-ca-certificates", "--ca-dir", "--format",
            "--out",
        ] {
            #expect(result.output.contains(line), "missing \(line)")
        }
        #expect(try OrreryProcess.run(["--help"]).output.contains("ca"))
    }

    static func openssl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
