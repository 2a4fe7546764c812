import Foundation
import OrreryCore
import Testing

@testable import OrreryEvent

/// Real handshakes against `TLSServerContext` on a libevent loop (`TLSTestServer`), with curl and Python's ssl
/// as clients that trust only the local CA.
@Suite("TLS handshakes")
struct TLSHandshakeLiveTests {
    struct PythonAnswer: Decodable {
        var alpn: String?
        var san: [[String]]
        var version: String
        var body: String
    }

    static func python(port: Int, ca: String, sni: String?, alpn: [String] = []) throws -> PythonAnswer {
        let script = FixtureProcess.fixtures.appendingPathComponent("tls_client.py").path
        var arguments = ["python3", script, String(port), ca, sni ?? "-"]
        if !alpn.isEmpty { arguments.append(alpn.joined(separator: ",")) }
        let result = try TLSTool.run(arguments)
        guard result.status == 0 else { throw FixtureError("tls_client.py: \(result.error)") }
        return try JSONDecoder().decode(PythonAnswer.self, from: Data(result.output.utf8))
    }

    @Test("curl with SNI gets a certificate for the name it asked for, and HTTP/1.1 by ALPN from a context without h2")
    func curlWithSNI() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(
            authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder), offersHTTP2: false)
        let server = try TLSTestServer(context: context, fallback: .name("fallback.test"))
        defer { server.stop() }
        let ca = context.authority.certificatePath
        for host in ["api.example.test", "other.example.test"] {
            let result = try TLSTool.curl(
                "https://\(host):\(server.port)/", ca: ca, resolve: "\(host):\(server.port):127.0.0.1")
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output == "sni=\(host)\nalpn=http/1.1\n\nhttp=1.1")
        }
    }

    @Test("curl to an IP URL sends no SNI and gets the fallback's certificate, which names the address")
    func curlWithoutSNI() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(
            authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder), offersHTTP2: false)
        let server = try TLSTestServer(context: context, fallback: .name("127.0.0.1"))
        defer { server.stop() }
        let result = try TLSTool.curl("https://127.0.0.1:\(server.port)/", ca: context.authority.certificatePath)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("sni=-\n"))
    }

    @Test(
        "Python's ssl: SNI picks the certificate; without SNI the fallback name's; TLS 1.3; ALPN h2, http/1.1 or none")
    func python() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(
            authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder), offersHTTP2: false)
        let server = try TLSTestServer(context: context, fallback: .name("fallback.test"))
        defer { server.stop() }
        let ca = context.authority.certificatePath

        let named = try Self.python(port: server.port, ca: ca, sni: "api.example.test", alpn: ["h2", "http/1.1"])
        #expect(named.san == [["DNS", "api.example.test"]])
        #expect(named.body == "sni=api.example.test\nalpn=http/1.1\n")
        #expect(named.alpn == "http/1.1")
        #expect(named.version == "TLSv1.3")

        let unnamed = try Self.python(port: server.port, ca: ca, sni: nil)
        #expect(unnamed.san == [["DNS", "fallback.test"]])
        #expect(unnamed.body == "sni=-\nalpn=-\n")

        let h2Only = try Self.python(port: server.port, ca: ca, sni: "api.example.test", alpn: ["h2"])
        #expect(h2Only.alpn == nil)
        #expect(h2Only.body == "sni=api.example.test\nalpn=-\n")
        // The daemon's context chooses h2 when the client offers it.
        let daemonContext = try TLSServerContext(authority: context.authority)
        let daemonServer = try TLSTestServer(context: daemonContext, fallback: .name("fallback.test"))
        defer { daemonServer.stop() }
        let h2 = try Self.python(port: daemonServer.port, ca: ca, sni: "api.example.test", alpn: ["h2", "http/1.1"])
        #expect(h2.alpn == "h2")
        let http11 = try Self.python(port: daemonServer.port, ca: ca, sni: "api.example.test", alpn: ["http/1.1"])
        #expect(http11.alpn == "http/1.1")
    }

    @Test("an SNI name with '_' gets its own certificate; an SNI with '*' fails the handshake, no wildcard leaf made")
    func sniUnderscoreAndWildcard() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(
            authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder), offersHTTP2: false)
        let server = try TLSTestServer(context: context, fallback: .name("fallback.test"))
        defer { server.stop() }
        let ca = context.authority.certificatePath
        let underscore = try Self.python(port: server.port, ca: ca, sni: "my_service.example.test")
        #expect(underscore.san == [["DNS", "my_service.example.test"]])
        #expect(underscore.body == "sni=my_service.example.test\nalpn=-\n")
        #expect(throws: (any Error).self) { try Self.python(port: server.port, ca: ca, sni: "*.example.test") }
        // The server carries on.
        #expect(try Self.python(port: server.port, ca: ca, sni: "api.example.test").san == [["DNS", "api.example.test"]])
    }

    @Test("the TLS port: without SNI the port's certificate (every loopback name), with SNI one for that name")
    func portCertificateFallback() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(
            authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder), offersHTTP2: false)
        let portCertificate = try context.makePortCertificate(extraHosts: ["api.example.test"])
        let server = try TLSTestServer(context: context, fallback: .certificate(portCertificate))
        defer { server.stop() }
        let ca = context.authority.certificatePath

        let unnamed = try Self.python(port: server.port, ca: ca, sni: nil)
        #expect(unnamed.san.map { $0[1] }.prefix(2) == ["localhost", "127.0.0.1"])
        #expect(unnamed.san.count == 4)
        let byAddress = try TLSTool.curl("https://127.0.0.1:\(server.port)/", ca: ca)
        #expect(byAddress.status == 0, "\(byAddress.error)")
        let byName = try TLSTool.curl(
            "https://localhost:\(server.port)/", ca: ca, resolve: "localhost:\(server.port):127.0.0.1")
        #expect(byName.status == 0, "\(byName.error)")
        #expect(byName.output.hasPrefix("sni=localhost\n"))
    }

    @Test("a client that does not trust the CA fails the handshake; the server carries on")
    func untrustedClient() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(
            authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder), offersHTTP2: false)
        let server = try TLSTestServer(context: context, fallback: .name("127.0.0.1"))
        defer { server.stop() }
        let other = try CertificateScratch()
        let stranger = try CertificateAuthority.loadOrCreate(in: other.caFolder)
        let refused = try TLSTool.curl("https://127.0.0.1:\(server.port)/", ca: stranger.certificatePath)
        #expect(refused.status == 60, "\(refused.error)")  // curl: peer certificate cannot be authenticated
        let fine = try TLSTool.curl("https://127.0.0.1:\(server.port)/", ca: context.authority.certificatePath)
        #expect(fine.status == 0, "\(fine.error)")
    }

    @Test("TLS 1.1 is refused")
    func oldProtocolRefused() throws {
        let scratch = try CertificateScratch()
        let context = try TLSServerContext(
            authority: CertificateAuthority.loadOrCreate(in: scratch.caFolder), offersHTTP2: false)
        let server = try TLSTestServer(context: context, fallback: .name("127.0.0.1"))
        defer { server.stop() }
        // Security level 0 lets this client offer TLS 1.1 at all; the server must still say no.
        let result = try TLSTool.run([
            "openssl", "s_client", "-connect", "127.0.0.1:\(server.port)", "-tls1_1", "-cipher", "DEFAULT:@SECLEVEL=0",
            "-CAfile", context.authority.certificatePath,
        ])
        #expect(result.status != 0)
        #expect(result.error.contains("alert protocol version"), "\(result.error)")
    }
}
