import OrreryCore
import Testing

@Suite("Certificate names")
struct CertificateNameTests {
    @Test("host names are lowercased and lose a trailing dot", arguments: [
        ("api.example.com", "api.example.com"), ("API.Example.COM.", "api.example.com"), ("localhost", "localhost"),
        ("a-b.c0.test", "a-b.c0.test"), ("xn--bcher-kva.example", "xn--bcher-kva.example"),
        ("*.example.com", "*.example.com"), ("1.2.3.example", "1.2.3.example"),
        ("my_service.internal", "my_service.internal"), ("_dmarc.Example.com", "_dmarc.example.com"),
    ])
    func hostNames(input: String, text: String) throws {
        let name = try #require(CertificateName(input))
        #expect(name.text == text)
        #expect(name.kind == .dns)
        #expect(name.subjectAltNameEntry == "DNS:" + text)
    }

    @Test("addresses keep their canonical text and become IP entries", arguments: [
        ("127.0.0.1", "127.0.0.1", CertificateName.Kind.ipv4), ("0.0.0.0", "0.0.0.0", .ipv4),
        ("255.255.255.255", "255.255.255.255", .ipv4), ("::1", "::1", .ipv6), ("[::1]", "::1", .ipv6),
        ("0:0:0:0:0:0:0:1", "::1", .ipv6), ("2001:DB8::0:1", "2001:db8::1", .ipv6), ("::", "::", .ipv6),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1", .ipv6), ("1:0:0:2:0:0:0:3", "1:0:0:2::3", .ipv6),
        ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1", .ipv6), ("::ffff:192.0.2.1", "::ffff:c000:201", .ipv6),
        ("fe80::", "fe80::", .ipv6),
    ])
    func addresses(input: String, text: String, kind: CertificateName.Kind) throws {
        let name = try #require(CertificateName(input))
        #expect(name.text == text)
        #expect(name.kind == kind)
        #expect(name.isAddress)
        #expect(name.subjectAltNameEntry == "IP:" + text)
    }

    @Test("one address written two ways is one name")
    func equalAddresses() {
        #expect(CertificateName("[0::1]") == CertificateName("::1"))
        #expect(CertificateName("Example.com.") == CertificateName("example.com"))
    }

    @Test("anything that could smuggle a second entry, or is no name, is refused", arguments: [
        "evil.test,DNS:bank.test", "evil.test, DNS:bank.test", "DNS:bank.test", "IP:1.2.3.4", "a b.test", "a\nb",
        "evil.test\0.bank.test", "", ".", "..", "a..b", ".a", "-a.test", "a-.test", "é.test",
        "*", "*.com", "a.*.example.com", "*a.example.com", "**.example.com", "*.*.example.com",
        String(repeating: "a", count: 64) + ".test", String(repeating: "a.", count: 127) + "test",
        "1.2.3", "256.1.1.1", "1.2.3.4.5", "01.2.3.4", "1.2.3.04", "123", "1.2.3.4.",
        "::1%eth0", "fe80::1%25eth0", ":::", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::", "g::1",
        "[::1", "::1]", "[127.0.0.1]", "1.2.3.4::", "::1.2.3", "1:2:3:4:5:6:7::8", "@example.test", "host:443",
    ])
    func refuses(input: String) {
        #expect(CertificateName(input) == nil)
    }

    @Test("a name of 253 characters passes, one of 254 does not")
    func lengthLimit() {
        let label = String(repeating: "a", count: 61)
        let longest = [label, label, label, label + "a"].joined(separator: ".") + ".test"  // 61 × 3 + 62 + 3 + 5
        #expect(longest.count == 253)
        #expect(CertificateName(longest) != nil)
        #expect(CertificateName("a" + longest) == nil)
    }
}
