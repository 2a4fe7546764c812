import OrreryCore
import Testing

@Suite("Host patterns")
struct HostPatternTests {
    @Test("a name matches itself whatever its case; an address however it is written")
    func exact() throws {
        let name = try HostPattern("api.example.com")
        #expect(name.matches("api.example.com"))
        #expect(name.matches("API.example.com."))
        #expect(!name.matches("www.api.example.com"))
        #expect(!name.matches("example.com"))
        let address = try HostPattern("[::1]")
        #expect(address.matches("::1"))
        #expect(address.matches("0:0::1"))
        #expect(!address.matches("127.0.0.1"))
        #expect(try HostPattern("127.0.0.1").matches("127.0.0.1"))
    }

    @Test("*.example.com matches names below it at any depth, not the domain itself or look-alikes")
    func wildcard() throws {
        let pattern = try HostPattern("*.example.com")
        #expect(pattern.matches("api.example.com"))
        #expect(pattern.matches("a.b.example.com"))
        #expect(pattern.matches("API.EXAMPLE.COM"))
        #expect(!pattern.matches("example.com"))
        #expect(!pattern.matches("badexample.com"))
        #expect(!pattern.matches("example.com.evil.test"))
        #expect(!pattern.matches("evil.test,DNS:a.example.com"))
        #expect(try HostPattern("*.test").matches("shop.test"))
        #expect(pattern.description == "*.example.com")
    }

    @Test("* matches every host")
    func everything() throws {
        #expect(try HostPattern("*").matches("anything.test"))
        #expect(try HostPattern("*").matches("10.1.2.3"))
    }

    @Test("patterns that cannot be meant are refused with the reason", arguments: [
        ("a*.example.com", "'*' may only be"), ("*.", "after '*.'"), ("*.*.example.com", "after '*.'"),
        ("*.127.0.0.1", "after '*.'"), ("exa mple.com", "not a host name"), ("", "not a host name"),
        ("api.example.com:443", "not a host name"),
    ])
    func refused(pattern: String, reason: String) {
        #expect(throws: HostPatternError.self) { try HostPattern(pattern) }
        do {
            _ = try HostPattern(pattern)
        } catch {
            #expect(error.description.contains(reason))
            #expect(error.description.contains("'\(pattern)'"))
        }
    }
}
