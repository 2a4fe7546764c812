import Foundation
import Testing
@testable import OrreryCore

/// What loading a host map file gave: the map, or the errors with the file name left out (`3: message`).
struct LoadedHostMap {
    var map: HostMap?
    var errors: [String]
}

/// Decodes `text` as the bytes of `config/hosts.json` with `HostMapDecoder`.
func loadHostMap(_ text: String) throws -> LoadedHostMap {
    let path = "config/hosts.json"
    do throws(SourceErrors) {
        return LoadedHostMap(map: try HostMapDecoder.decode(Array(text.utf8), file: path), errors: [])
    } catch {
        #expect(error.errors.allSatisfy { $0.file == path })
        return LoadedHostMap(map: nil, errors: error.errors.map { "\($0.line): \($0.message)" })
    }
}

@Suite("HostMapDecoder")
struct HostMapDecoderTests {
    static let designExample = """
        { "configurations": [ {
            "canonical_host": "api.example.com", "canonical_protocol": "https",
            "prerelease_key": "DEV", "release_key": "PROD",
            "hosts": [ { "key": "PROD", "host": "api.example.com" },
                       { "key": "QA", "host": "qa.api.example.com", "protocol": "https" },
                       { "key": "USER" } ] } ] }
        """

    @Test(
        "The DESIGN.md example loads as written")
    func designExampleVerbatim() throws {
        let loaded = try loadHostMap(Self.designExample)
        #expect(loaded.errors == [])
        #expect(loaded.map?.configurations.first?.hosts.map(\.key) == ["PROD", "QA", "USER"])
    }

    @Test("The DESIGN.md example loads once it lists the DEV host its prerelease_key names")
    func designExample() throws {
        let text = Self.designExample.replacingOccurrences(
            of: #"{ "key": "USER" }"#,
            with: #"{ "key": "DEV", "host": "127.0.0.1:9001", "protocol": "http" }, { "key": "USER" }"#)
        let loaded = try loadHostMap(text)
        #expect(loaded.errors == [])
        let map = try #require(loaded.map)
        try #require(map.configurations.count == 1)
        let configuration = map.configurations[0]
        #expect(configuration.canonicalHost == "api.example.com")
        #expect(configuration.canonicalProtocol == "https")
        #expect(configuration.prereleaseKey == "DEV")
        #expect(configuration.releaseKey == "PROD")
        #expect(!configuration.isDefault)
        #expect(configuration.hosts.map(\.key) == ["PROD", "QA", "DEV", "USER"])
        #expect(configuration.hosts.map(\.host) == ["api.example.com", "qa.api.example.com", "127.0.0.1:9001", nil])
        #expect(configuration.hosts.map(\.protocol) == [nil, "https", "http", nil])
    }

    @Test("The DESIGN.md example loads as written, though its prerelease_key names no host")
    func designExampleLoads() throws {
        let loaded = try loadHostMap(Self.designExample)
        #expect(loaded.errors == [])
    }

    @Test("a release_key naming no host is an error with its line")
    func releaseKeyMustExist() throws {
        let loaded = try loadHostMap("""
            { "configurations": [ {
                "canonical_host": "api.example.com",
                "release_key": "LIVE",
                "hosts": [ { "key": "PROD", "host": "api.example.com" } ] } ] }
            """)
        #expect(loaded.errors == ["3: 'release_key' names 'LIVE', which is not one of the hosts' keys"])
    }

    @Test("USER needs no host")
    func userWithoutHost() throws {
        let loaded = try loadHostMap(
            #"{ "configurations": [ { "canonical_host": "a.com", "hosts": [ { "key": "USER" } ] } ] }"#)
        #expect(loaded.errors == [])
        let host = try #require(loaded.map?.configurations.first?.hosts.first)
        #expect(host.key == "USER")
        #expect(host.host == nil)
        #expect(loaded.map?.configurations.first?.canonicalProtocol == "https")
    }

    @Test("A host other than USER without 'host' is an error on its line")
    func hostRequired() throws {
        let loaded = try loadHostMap(
            """
            {
              "configurations": [
                {
                  "canonical_host": "api.example.com",
                  "hosts": [
                    { "key": "PROD", "host": "api.example.com" },
                    { "key": "QA" }
                  ]
                }
              ]
            }
            """)
        #expect(loaded.errors == ["7: 'host' is required"])
    }

    @Test("\"http2\": true makes a plain host h2c, pooled apart; on an https host ALPN decides; not a bool is an error")
    func http2Flag() throws {
        let loaded = try loadHostMap(
            """
            { "configurations": [
                { "canonical_host": "grpc.internal", "canonical_protocol": "http", "release_key": "DEV",
                  "hosts": [ { "key": "DEV", "host": "127.0.0.1:50051", "http2": true },
                             { "key": "QA", "host": "qa.internal", "protocol": "https", "http2": true } ] },
                { "canonical_host": "api.example.com", "release_key": "PROD",
                  "hosts": [ { "key": "PROD", "host": "127.0.0.1:9000", "protocol": "http" } ] } ] }
            """)
        let map = try #require(loaded.map, "\(loaded.errors)")
        #expect(map.configurations[0].hosts.map(\.speaksHTTP2) == [true, true])
        #expect(map.configurations[1].hosts.map(\.speaksHTTP2) == [false])
        var environments = Environments(map: map)
        let grpc = try #require(
            try environments.upstream(
                for: HTTPRequest(method: "POST", target: "/a.B/C", headers: ["Host": "grpc.internal"], body: []))?.get()
        )
        #expect(grpc.usesHTTP2PriorKnowledge)
        #expect(grpc.poolKey == "h2c+http://127.0.0.1:50051")
        #expect(grpc.origin == "http://127.0.0.1:50051")
        let plain = try #require(
            try environments.upstream(
                for: HTTPRequest(method: "GET", target: "/", headers: ["Host": "api.example.com"], body: []))?.get())
        #expect(!plain.usesHTTP2PriorKnowledge)
        #expect(plain.poolKey == plain.origin)
        try environments.choose(EnvironmentChoice(key: "QA"), forCanonicalHost: "grpc.internal")
        let tls = try #require(
            try environments.upstream(
                for: HTTPRequest(method: "POST", target: "/a.B/C", headers: ["Host": "grpc.internal"], body: []))?.get()
        )
        #expect(tls.scheme == "https" && !tls.usesHTTP2PriorKnowledge)

        let bad = try loadHostMap(
            """
            { "configurations": [ { "canonical_host": "a.example", "release_key": "P",
                "hosts": [ { "key": "P", "host": "a.example",
                             "http2": "yes" } ] } ] }
            """)
        #expect(bad.errors == ["3: 'http2' must be true or false"])
    }

    @Test("A bad protocol is an error on its line")
    func badProtocol() throws {
        let loaded = try loadHostMap(
            """
            {
              "configurations": [
                {
                  "canonical_host": "api.example.com",
                  "canonical_protocol": "ftp",
                  "hosts": [
                    { "key": "PROD", "host": "api.example.com",
                      "protocol": "HTTPS" }
                  ]
                }
              ]
            }
            """)
        #expect(
            loaded.errors == [
                #"5: 'canonical_protocol' must be "http" or "https", not "ftp""#,
                #"8: 'protocol' must be "http" or "https", not "HTTPS""#,
            ])
    }

    @Test("release_key and prerelease_key must name a host's key")
    func missingReleaseKey() throws {
        let loaded = try loadHostMap(
            """
            {
              "configurations": [
                {
                  "canonical_host": "api.example.com",
                  "release_key": "PRODUCTION",
                  "prerelease_key": "QA",
                  "hosts": [ { "key": "PROD", "host": "api.example.com" }, { "key": "QA", "host": "qa" } ]
                }
              ]
            }
            """)
        #expect(loaded.errors == ["5: 'release_key' names 'PRODUCTION', which is not one of the hosts' keys"])
    }

    @Test("An unknown key gets a suggestion", arguments: [
        (#""canonical_hots": "x","#, "unknown key 'canonical_hots' in a configuration; did you mean 'canonical_host'?"),
        (#""relase_key": "PROD","#, "unknown key 'relase_key' in a configuration; did you mean 'release_key'?"),
    ])
    func unknownKey(line: String, message: String) throws {
        let loaded = try loadHostMap(
            """
            {
              "configurations": [
                {
                  "canonical_host": "api.example.com",
                  \(line)
                  "hosts": [ { "key": "PROD", "host": "api.example.com" } ]
                }
              ]
            }
            """)
        #expect(loaded.errors == ["5: \(message)"])
    }

    @Test("An unknown key in a host entry gets a suggestion too")
    func unknownHostKey() throws {
        let loaded = try loadHostMap(
            """
            { "configurations": [ { "canonical_host": "a.com",
              "hosts": [
                { "key": "PROD", "hosts": "a.com" }
              ] } ] }
            """)
        #expect(loaded.errors == ["3: unknown key 'hosts' in a host entry; did you mean 'host'?", "3: 'host' is required"])
    }

    @Test("Other mistakes, each with its line", arguments: [
        (#"{ "configurations": {} }"#, "1: 'configurations' must be a list"),
        ("[]", "1: the host map must be a mapping with a 'configurations' list"),
        (#"{ "configurations": [ { "canonical_host": "a.com" } ] }"#, "1: 'hosts' must be a list of { key, host }"),
        (#"{ "configurations": [ { "hosts": [] } ] }"#, "1: 'canonical_host' is required"),
        (
            "{ \"configurations\": [ { \"canonical_host\": \"a.com\", \"hosts\": [\n { \"key\": \"P\", \"host\": \"http://a.com\" } ] } ] }",
            "2: 'host' must be a host name with an optional port, not 'http://a.com'"
        ),
        (
            "{ \"configurations\": [ { \"canonical_host\": \"a.com\", \"hosts\": [\n { \"key\": \"P\", \"host\": \"a\" },\n { \"key\": \"P\", \"host\": \"b\" } ] } ] }",
            "3: key 'P' appears twice"
        ),
        (
            "{ \"configurations\": [\n { \"canonical_host\": \"a.com\", \"hosts\": [] },\n { \"canonical_host\": \"A.com\", \"hosts\": [] } ] }",
            "3: canonical host 'A.com' appears twice"
        ),
        (
            "{ \"configurations\": [ { \"canonical_host\": \"a.com\", \"hosts\": [],\n \"default\": \"yes\" } ] }",
            "2: 'default' must be true or false"
        ),
        ("{\n  \"configurations\": [\n    {\n  ]\n}", "4: expected a quoted key"),
    ])
    func otherMistakes(text: String, error: String) throws {
        let loaded = try loadHostMap(text)
        #expect(loaded.map == nil)
        #expect(loaded.errors == [error])
    }

    @Test("Only one configuration may be the default")
    func twoDefaults() throws {
        let loaded = try loadHostMap(
            """
            { "configurations": [
              { "canonical_host": "a.com", "default": true, "hosts": [] },
              { "canonical_host": "b.com", "default": true, "hosts": [] }
            ] }
            """)
        #expect(loaded.errors == [#"1: only one configuration may be marked "default": true"#])
    }

    @Test("A default configuration is marked")
    func oneDefault() throws {
        let loaded = try loadHostMap(
            #"{ "configurations": [ { "canonical_host": "a.com", "hosts": [] }, { "canonical_host": "b.com", "default": true, "hosts": [] } ] }"#)
        #expect(loaded.map?.configurations.map(\.isDefault) == [false, true])
    }

    @Test("A request's host finds its configuration by any of its names, in any ASCII case; the first one named wins")
    func hostLookup() throws {
        let loaded = try loadHostMap(
            """
            { "configurations": [
                { "canonical_host": "api.example.com", "release_key": "PROD",
                  "hosts": [ { "key": "PROD", "host": "127.0.0.1:9001", "protocol": "http" },
                             { "key": "QA", "host": "qa.example.com", "protocol": "http" } ] },
                { "canonical_host": "qa.example.com", "release_key": "PROD",
                  "hosts": [ { "key": "PROD", "host": "127.0.0.1:9002", "protocol": "http" } ] },
                { "canonical_host": "fallback.example.com", "default": true, "release_key": "PROD",
                  "hosts": [ { "key": "PROD", "host": "127.0.0.1:9003", "protocol": "http" } ] } ] }
            """)
        let environments = Environments(map: try #require(loaded.map, "\(loaded.errors)"))
        func origin(_ host: String) throws -> String? {
            let request = HTTPRequest(method: "GET", target: "/", headers: ["Host": host], body: [])
            return try environments.upstream(for: request)?.get().origin
        }
        #expect(try origin("api.example.com") == "http://127.0.0.1:9001")
        #expect(try origin("API.Example.COM") == "http://127.0.0.1:9001")
        #expect(try origin("127.0.0.1:9001") == "http://127.0.0.1:9001")
        // Named by the first configuration's QA host and by the second's canonical host: the first wins.
        #expect(try origin("QA.example.com") == "http://127.0.0.1:9001")
        // Same length as a name, one byte off; longer; shorter; a letter's case folded only for ASCII letters.
        #expect(try origin("api.example.con") == "http://127.0.0.1:9003")
        #expect(try origin("api.example.com.") == "http://127.0.0.1:9003")
        #expect(try origin("pi.example.com") == "http://127.0.0.1:9003")
        #expect(try origin("127.0.0.1;9001") == "http://127.0.0.1:9003")
        #expect(
            environments.recordedHost(
                for: HTTPRequest(method: "GET", target: "/", headers: ["Host": "Qa.Example.com"], body: []))
                == "Qa.Example.com")
        #expect(
            environments.recordedHost(
                for: HTTPRequest(method: "GET", target: "/", headers: ["Host": "other.com"], body: [])) == nil)
    }

    @Test("Every problem is reported at once")
    func severalErrors() throws {
        let loaded = try loadHostMap(
            """
            { "configurations": [
              { "canonical_host": "a.com", "canonical_protocol": "gopher",
                "hosts": [ { "key": "PROD" } ] }
            ] }
            """)
        #expect(loaded.errors.count == 2)
    }
}
