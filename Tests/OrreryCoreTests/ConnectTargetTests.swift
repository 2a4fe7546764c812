import OrreryCore
import Testing

@Suite("CONNECT targets")
struct ConnectTargetTests {
    @Test("host and port, names and addresses, IPv6 in brackets", arguments: [
        ("api.example.com:443", "api.example.com", 443),
        ("127.0.0.1:8080", "127.0.0.1", 8080),
        ("[::1]:8443", "::1", 8443),
        ("localhost:1", "localhost", 1),
        ("x:65535", "x", 65_535),
    ])
    func parses(authority: String, host: String, port: Int) throws {
        let target = try #require(ConnectTarget(authority: authority))
        #expect(target.host == host)
        #expect(target.port == port)
        #expect(target.description == authority)
    }

    @Test("anything else is refused", arguments: [
        "api.example.com", "api.example.com:", ":443", "api.example.com:0", "api.example.com:65536", "a:b:443",
        "::1:443", "[::1]", "[::1]443", "[::1:443", "api.example.com:+443", "api.example.com:4 3", "user@host:443",
        "host/path:443", "http://host:443", "",
    ])
    func refuses(authority: String) {
        #expect(ConnectTarget(authority: authority) == nil)
    }
}
