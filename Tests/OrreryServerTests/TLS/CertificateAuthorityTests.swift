import Foundation
import OrreryCore
import Testing

@testable import OrreryEvent

/// The local CA on disk: made once, private, reused, and never silently replaced.
@Suite("Certificate authority")
struct CertificateAuthorityTests {
    @Test("made once in a new folder (0700) with a private key (0600), then loaded as it is")
    func createdOnceAndReused() throws {
        let scratch = try CertificateScratch()
        let made = try CertificateAuthority.loadOrCreate(in: scratch.caFolder)
        #expect(made.wasCreated)
        #expect(try Self.mode(scratch.caFolder) == 0o700)
        #expect(try Self.mode(made.keyPath) == 0o600)
        #expect(try Self.mode(made.certificatePath) == 0o644)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.caFolder).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)

        let loaded = try CertificateAuthority.loadOrCreate(in: scratch.caFolder)
        #expect(!loaded.wasCreated)
        #expect(try loaded.certificate.der() == made.certificate.der())
        #expect(try loaded.key.pem() == made.key.pem())
    }

    @Test("the CA certificate: self-signed, CA:TRUE with pathlen 0, keyCertSign, EC P-256, ten years, short CN")
    func caCertificate() throws {
        let scratch = try CertificateScratch()
        let authority = try CertificateAuthority.loadOrCreate(in: scratch.caFolder)
        let text = try TLSTool.run(["openssl", "x509", "-in", authority.certificatePath, "-noout", "-text"])
        #expect(text.status == 0)
        #expect(text.output.contains("Basic Constraints: critical\n                CA:TRUE, pathlen:0"))
        #expect(text.output.contains("Key Usage: critical\n                Certificate Sign, CRL Sign"))
        #expect(text.output.contains("NIST CURVE: P-256"))
        #expect(text.output.contains("ecdsa-with-SHA256"))
        #expect(text.output.contains("Subject Key Identifier"))
        #expect(!text.output.contains("DA:39:A3:EE:5E:6B:4B:0D"))  // the SHA-1 of nothing: SKI added too early
        #expect(authority.certificate.subject.contains("/CN=Orrery local CA ("))
        // Self-signed and valid as a root under strict checks.
        let verified = try TLSTool.run([
            "openssl", "verify", "-x509_strict", "-CAfile", authority.certificatePath, authority.certificatePath,
        ])
        #expect(verified.status == 0, "\(verified.output)\(verified.error)")
        let years = try Self.validityDays(authority.certificatePath) / 365
        #expect(years >= 9.9 && years <= 10.1)
    }

    @Test("the common name stays within X.509's 64 characters whatever the host name")
    func commonNameLength() {
        let long = CertificateAuthority.commonName(host: String(repeating: "h", count: 200), date: "2026-01-27")
        #expect(long.count == 64)
        #expect(long.hasPrefix("Orrery local CA (hhh"))
        #expect(long.hasSuffix(", 2026-01-27)"))
        #expect(CertificateAuthority.commonName(host: "ci-7", date: "2026-01-27") == "Orrery local CA (ci-7, 2026-01-27)")
        #expect(CertificateAuthority.commonName(host: "", date: "2026-01-27") == "Orrery local CA (2026-01-27)")
        #expect(CertificateAuthority.commonName(host: "a,b/c=d", date: "2026-01-27") == "Orrery local CA (abcd, 2026-01-27)")
    }

    @Test("eight threads asking at once for a CA in a new folder all get the same one, made once")
    func concurrentCreation() async throws {
        let scratch = try CertificateScratch()
        let folder = scratch.caFolder
        let results = try await withThrowingTaskGroup(of: (der: [UInt8], wasCreated: Bool).self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let authority = try CertificateAuthority.loadOrCreate(in: folder)
                    return (try authority.certificate.der(), authority.wasCreated)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 8)
        #expect(Set(results.map(\.der)).count == 1)
        #expect(results.filter(\.wasCreated).count == 1)
    }

    @Test("a corrupt key is an error naming the file, and the file is left as it was")
    func corruptKey() throws {
        let scratch = try CertificateScratch()
        let authority = try CertificateAuthority.loadOrCreate(in: scratch.caFolder)
        let garbage = Data("-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n".utf8)
        try garbage.write(to: URL(fileURLWithPath: authority.keyPath))
        chmod(authority.keyPath, 0o600)
        let error = try #require(throws: EventError.self) { try CertificateAuthority.loadOrCreate(in: scratch.caFolder) }
        #expect(error.description.contains(authority.keyPath))
        #expect(error.description.contains("cannot be used"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: authority.keyPath)) == garbage)
    }

    @Test("a corrupt certificate, a key of another CA, or a missing half is an error naming the files")
    func otherBrokenStates() throws {
        let scratch = try CertificateScratch()
        let authority = try CertificateAuthority.loadOrCreate(in: scratch.caFolder)
        let certificate = try Data(contentsOf: URL(fileURLWithPath: authority.certificatePath))

        try Data("junk".utf8).write(to: URL(fileURLWithPath: authority.certificatePath))
        var error = try #require(throws: EventError.self) { try CertificateAuthority.loadOrCreate(in: scratch.caFolder) }
        #expect(error.description.contains(authority.certificatePath))

        let other = try CertificateScratch()
        let stranger = try CertificateAuthority.loadOrCreate(in: other.caFolder)
        try Data(contentsOf: URL(fileURLWithPath: stranger.certificatePath)).write(to: URL(fileURLWithPath: authority.certificatePath))
        error = try #require(throws: EventError.self) { try CertificateAuthority.loadOrCreate(in: scratch.caFolder) }
        #expect(error.description.contains("is not the key of the certificate \(authority.certificatePath)"))

        try FileManager.default.removeItem(atPath: authority.certificatePath)
        error = try #require(throws: EventError.self) { try CertificateAuthority.loadOrCreate(in: scratch.caFolder) }
        #expect(error.description.contains("\(authority.certificatePath) is missing"))
        #expect(FileManager.default.fileExists(atPath: authority.keyPath))

        try certificate.write(to: URL(fileURLWithPath: authority.certificatePath))
        try FileManager.default.removeItem(atPath: authority.keyPath)
        error = try #require(throws: EventError.self) { try CertificateAuthority.loadOrCreate(in: scratch.caFolder) }
        #expect(error.description.contains("\(authority.keyPath) is missing"))
    }

    @Test("a key others can read is refused with the chmod that fixes it")
    func keyReadableByOthers() throws {
        let scratch = try CertificateScratch()
        let authority = try CertificateAuthority.loadOrCreate(in: scratch.caFolder)
        chmod(authority.keyPath, 0o644)
        let error = try #require(throws: EventError.self) { try CertificateAuthority.loadOrCreate(in: scratch.caFolder) }
        #expect(error.description.contains("chmod 600 \(authority.keyPath)"))
        chmod(authority.keyPath, 0o600)
        #expect(try !CertificateAuthority.loadOrCreate(in: scratch.caFolder).wasCreated)
    }

    @Test("default folder: an absolute XDG_DATA_HOME, else ~/.local/share")
    func defaultFolder() {
        #expect(CertificateAuthority.defaultFolder(dataHome: "/x/data", home: "/home/u") == "/x/data/orrery/ca")
        #expect(CertificateAuthority.defaultFolder(dataHome: nil, home: "/home/u") == "/home/u/.local/share/orrery/ca")
        #expect(CertificateAuthority.defaultFolder(dataHome: "", home: "/home/u") == "/home/u/.local/share/orrery/ca")
        #expect(CertificateAuthority.defaultFolder(dataHome: "relative", home: "/home/u") == "/home/u/.local/share/orrery/ca")
        #expect(CertificateAuthority.defaultFolder(dataHome: nil, home: "/") == "/.local/share/orrery/ca")
        #expect(CertificateAuthority.defaultFolder(dataHome: nil, home: nil) == nil)
    }

    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    /// Days between a certificate's notBefore and notAfter, as openssl reads them.
    static func validityDays(_ path: String) throws -> Double {
        let dates = try TLSTool.run(["openssl", "x509", "-in", path, "-noout", "-startdate", "-enddate"])
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "MMM d HH:mm:ss yyyy zzz"
        var found: [String: Date] = [:]
        for line in dates.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let text = parts[1].split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            found[String(parts[0])] = formatter.date(from: text)
        }
        let start = try #require(found["notBefore"])
        let end = try #require(found["notAfter"])
        return end.timeIntervalSince(start) / 86_400
    }
}
