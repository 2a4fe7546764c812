import Foundation
import OrreryCore
import Testing

@testable import OrreryEvent

/// Server certificates signed by the local CA, judged by `openssl verify -x509_strict -purpose sslserver`.
@Suite("Leaf certificates")
struct LeafCertificateTests {
    @Test("a leaf verifies strictly for its name: host names, a wildcard, IPv4 and IPv6", arguments: [
        ("api.example.test", "api.example.test"), ("localhost", "localhost"), ("*.example.test", "shop.example.test"),
        ("127.0.0.1", "127.0.0.1"), ("10.1.2.3", "10.1.2.3"), ("::1", "::1"), ("[2001:db8::7]", "2001:db8::7"),
    ])
    func verifies(name: String, host: String) throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder))
        let leaf = try context.certificate(for: #require(CertificateName(name)))
        let path = try scratch.write(leaf.certificate.pem(), to: "leaf.pem")
        let verified = try TLSTool.verify(leaf: path, ca: context.authority.certificatePath, host: host)
        #expect(verified.status == 0, "\(verified.output)\(verified.error)")
        #expect(verified.output.contains("leaf.pem: OK"))
    }

    @Test("a leaf does not verify for another name, and a wildcard covers one label only")
    func wrongNames() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder))
        let ca = context.authority.certificatePath
        let exact = try scratch.write(context.certificate(for: #require(CertificateName("api.example.test"))).certificate.pem(), to: "a.pem")
        let wildcard = try scratch.write(context.certificate(for: #require(CertificateName("*.example.test"))).certificate.pem(), to: "w.pem")
        for (leaf, host) in [(exact, "bank.test"), (exact, "example.test"), (wildcard, "a.b.example.test"), (wildcard, "example.test")] {
            let verified = try TLSTool.verify(leaf: leaf, ca: ca, host: host)
            #expect(verified.status != 0, "\(leaf) for \(host)")
            #expect(verified.output.contains("hostname mismatch") || verified.error.contains("hostname mismatch"))
        }
    }

    @Test("a leaf: empty subject, critical SAN, serverAuth, CA:FALSE, EC P-256, a year at most (Apple allows 825 days)")
    func leafFields() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder))
        let leaf = try context.certificate(for: #require(CertificateName("api.example.test")))
        let path = try scratch.write(leaf.certificate.pem(), to: "leaf.pem")
        let text = try TLSTool.run(["openssl", "x509", "-in", path, "-noout", "-text"]).output
        #expect(text.contains("Subject: \n") || text.contains("Subject:\n"))
        #expect(text.contains("X509v3 Subject Alternative Name: critical\n                DNS:api.example.test\n"))
        #expect(text.contains("X509v3 Extended Key Usage: \n                TLS Web Server Authentication")
            || text.contains("X509v3 Extended Key Usage:\n                TLS Web Server Authentication"))
        #expect(text.contains("CA:FALSE"))
        #expect(text.contains("NIST CURVE: P-256"))
        #expect(text.contains("Authority Key Identifier"))
        #expect(leaf.certificate.subject.isEmpty)
        let days = try CertificateAuthorityTests.validityDays(path)
        #expect(days <= 366 && days >= 364)
    }

    @Test("names that could smuggle a second SAN entry are refused before OpenSSL sees them")
    func injectionRefused() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder))
        for host in ["evil.test,DNS:bank.test", "evil.test, IP:10.0.0.1", "DNS:bank.test", "evil.test\nDNS:bank.test"] {
            #expect(CertificateName(host) == nil)
            #expect(throws: EventError.self) { try context.makeServerSession(defaultName: host) }
            #expect(throws: EventError.self) { try context.makePortCertificate(extraHosts: [host]) }
        }
        #expect(context.leaves.count == 0)
    }

    @Test("the TLS port's certificate covers localhost, both loopback addresses and the extra hosts")
    func portCertificate() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder))
        let leaf = try context.makePortCertificate(extraHosts: ["api.example.test", "*.shop.test", "localhost", "10.0.0.7"])
        #expect(leaf.names.map(\.text) == ["localhost", "127.0.0.1", "::1", "api.example.test", "*.shop.test", "10.0.0.7"])
        let path = try scratch.write(leaf.certificate.pem(), to: "port.pem")
        for host in ["localhost", "127.0.0.1", "::1", "api.example.test", "eu.shop.test", "10.0.0.7"] {
            let verified = try TLSTool.verify(leaf: path, ca: context.authority.certificatePath, host: host)
            #expect(verified.status == 0, "\(host): \(verified.output)\(verified.error)")
        }
    }

    @Test("the cache gives one certificate per name and, past its bound, drops the least recently used")
    func cache() throws {
        let scratch = try CertificateScratch()
        let authority = try CertificateAuthority.loadOrCreate(in: scratch.caFolder)
        let context = try TLSServerContext(authority: authority, maximumCachedNames: 3)
        func leaf(_ host: String) throws -> LeafCertificate { try context.certificate(for: #require(CertificateName(host))) }
        let a = try leaf("a.test")
        let b = try leaf("b.test")
        _ = try leaf("c.test")
        #expect(try leaf("a.test") === a)  // a is now the most recent; b the least
        #expect(try leaf("A.TEST.") === a)
        #expect(context.leaves.count == 3)
        _ = try leaf("d.test")
        #expect(context.leaves.count == 3)
        #expect(try leaf("a.test") === a)
        let newB = try leaf("b.test")
        #expect(newB !== b)
        #expect(try newB.certificate.der() != b.certificate.der())
        #expect(context.leaves.count == 3)
    }

    @Test("many threads asking for the same names get one certificate each")
    func concurrentCache() async throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder))
        let names = (0..<20).map { "host\($0).test" }
        let fingerprints = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try names.map { try context.certificate(for: #require(CertificateName($0))).certificate.sha256Fingerprint }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(fingerprints).count == 1)
        #expect(context.leaves.count == 20)
    }

    @Test("a new name costs well under the loop's budget (one shared key: a signature each)")
    func mintingTime() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder))
        _ = try context.certificate(for: #require(CertificateName("warm-up.test")))
        var durations: [Double] = []
        for index in 0..<100 {
            let name = try #require(CertificateName("n\(index).timing.test"))
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try context.certificate(for: name)
            durations.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000)
        }
        durations.sort()
        let median = durations[durations.count / 2]
        // Typically under a millisecond; the bound leaves room for a debug build on a busy machine.
        #expect(median < 20, "median \(median) ms")
        print("leaf certificate: median \(median) ms, p90 \(durations[89]) ms, max \(durations[99]) ms")
    }
}
