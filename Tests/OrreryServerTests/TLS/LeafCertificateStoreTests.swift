import Foundation
import OrreryCore
import Synchronization
import Testing

@testable import OrreryEvent

/// Server certificates kept beside the CA (`leaves/`): the same one after a restart, and a stored file that cannot
/// be used replaced with a warning.
@Suite("Leaf certificate store")
struct LeafCertificateStoreTests {
    /// The warnings a context gave.
    final class Warnings: Sendable {
        private let list = Mutex<[String]>([])
        func add(_ warning: String) { list.withLock { $0.append(warning) } }
        var all: [String] { list.withLock { $0 } }
    }

    /// A context over the CA in `folder` that keeps its certificates there, as the daemon's does: a new one is
    /// what a restart makes.
    static func context(_ folder: String, _ warnings: Warnings) throws -> TLSServerContext {
        try TLSServerContext(
            authority: CertificateAuthority.loadOrCreate(in: folder), keepsCertificates: true,
            warn: { warnings.add($0) })
    }

    static func fingerprint(_ context: TLSServerContext, _ name: String) throws -> String {
        try context.certificate(for: #require(CertificateName(name))).certificate.sha256Fingerprint
    }

    @Test("a leaf is stored beside the CA and presented again after a restart: same certificate, no warning")
    func survivesRestart() throws {
        let scratch = try CertificateScratch()
        let warnings = Warnings()
        let first = try Self.fingerprint(Self.context(scratch.caFolder, warnings), "api.example.test")
        let address = try Self.fingerprint(Self.context(scratch.caFolder, warnings), "10.1.2.3")
        let leaves = scratch.caFolder + "/leaves"
        #expect(FileManager.default.fileExists(atPath: leaves + "/api.example.test.pem"))
        #expect(FileManager.default.fileExists(atPath: leaves + "/10.1.2.3.pem"))
        let keyMode = try FileManager.default.attributesOfItem(atPath: leaves + "/key.pem")[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        let restarted = try Self.context(scratch.caFolder, warnings)
        #expect(try Self.fingerprint(restarted, "api.example.test") == first)
        #expect(try Self.fingerprint(restarted, "10.1.2.3") == address)
        #expect(warnings.all.isEmpty, "\(warnings.all)")
        // A context that does not keep certificates (a test server's) makes its own.
        let unkept = try TLSServerContext(authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder))
        #expect(try Self.fingerprint(unkept, "api.example.test") != first)
    }

    @Test("a corrupt, foreign, misnamed or expiring stored leaf is replaced, with a warning naming the file and why")
    func replacesUnusable() throws {
        let scratch = try CertificateScratch()
        let other = try CertificateScratch()
        let warnings = Warnings()
        let context = try Self.context(scratch.caFolder, warnings)
        let leaves = scratch.caFolder + "/leaves"
        _ = try Self.fingerprint(context, "a.test")
        let foreign = try TLSServerContext(authority: CertificateAuthority.loadOrCreate(in: other.caFolder))
        let foreignPEM = try foreign.certificate(for: #require(CertificateName("b.test"))).certificate.pem()
        let authority = context.authority
        let expiring = try authority.issueServerCertificate(
            for: [#require(CertificateName("d.test"))], key: context.leaves.key, lifetimeSeconds: 86_400)
        try Data("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n".utf8).write(
            to: URL(fileURLWithPath: leaves + "/e.test.pem"))
        try Data(foreignPEM).write(to: URL(fileURLWithPath: leaves + "/b.test.pem"))
        try FileManager.default.copyItem(atPath: leaves + "/a.test.pem", toPath: leaves + "/c.test.pem")
        try Data(expiring.pem()).write(to: URL(fileURLWithPath: leaves + "/d.test.pem"))

        let restarted = try Self.context(scratch.caFolder, warnings)
        var replaced: [String: String] = [:]
        for name in ["b.test", "c.test", "d.test", "e.test"] { replaced[name] = try Self.fingerprint(restarted, name) }
        let expected = [
            "b.test": "not signed by the CA", "c.test": "not a certificate for c.test",
            "d.test": "expiring within a week", "e.test": "not a PEM certificate",
        ]
        for (name, reason) in expected {
            let named = warnings.all.contains { $0.contains(leaves + "/\(name).pem") && $0.contains(reason) }
            #expect(named, "\(name): \(warnings.all)")
        }
        #expect(warnings.all.count == 4)
        // The new ones were written over the bad files: the next start uses them, silently.
        let again = try Self.context(scratch.caFolder, warnings)
        for name in expected.keys { #expect(try Self.fingerprint(again, name) == replaced[name]) }
        #expect(warnings.all.count == 4)
    }

    @Test("an unusable stored key is replaced with a warning, and the leaves made for the old one are remade")
    func replacesKey() throws {
        let scratch = try CertificateScratch()
        let warnings = Warnings()
        let first = try Self.fingerprint(Self.context(scratch.caFolder, warnings), "a.test")
        let keyPath = scratch.caFolder + "/leaves/key.pem"
        try FileManager.default.removeItem(atPath: keyPath)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: keyPath))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyPath)
        let restarted = try Self.context(scratch.caFolder, warnings)
        #expect(try Self.fingerprint(restarted, "a.test") != first)
        #expect(warnings.all.count == 2, "\(warnings.all)")
        #expect(warnings.all.first?.contains(keyPath) == true)
        #expect(warnings.all.last?.contains("not made for the key") == true)
    }
}
