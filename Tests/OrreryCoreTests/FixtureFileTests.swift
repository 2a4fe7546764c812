import Foundation
import Testing
@testable import OrreryCore

/// Fixtures written by `FixtureFile` and read back by the stub loader answer every recorded request with the
/// recorded status, headers and body bytes.
@Suite("Fixture files")
struct FixtureFileTests {
    /// A recorded exchange with defaults; `target` may carry a query.
    static func exchange(
        _ method: String = "GET", _ target: String = "/", host: String? = nil, requestBody: [UInt8] = [],
        requestHeaders: HTTPHeaders = HTTPHeaders(), matchHeaders: [String] = [], status: Int = 200,
        headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], encoding: ContentCoding? = nil
    ) -> RecordedExchange {
        RecordedExchange(
            request: HTTPRequest(method: method, target: target, headers: requestHeaders, body: requestBody), host: host,
            folder: "api.example.com", matchHeaders: matchHeaders, status: status, responseHeaders: headers,
            decodedBody: body, encoding: encoding)
    }

    /// Writes the files under a new folder and loads every stub from it.
    static func load(_ files: [FixtureFile]) throws -> (folder: URL, index: StubIndex) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-fixtures-\(UUID().uuidString)")
        for var file in files {
            let (text, bodies) = file.render()
            for body in bodies { try write(Data(body.bytes), to: folder.appendingPathComponent(body.path)) }
            try write(Data(text.utf8), to: folder.appendingPathComponent(file.relativePath))
        }
        let stubs = try StubLoader(root: folder.path).load()
        return (folder, StubIndex(stubs))
    }

    static func write(_ data: Data, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    static let awkwardTexts: [String] = [
        #"{"id":1,"name":"Ada"}"#,
        "line one\nline two\n",
        "trailing space \nand a tab\there",
        "  leading spaces",
        "\nleading newline",
        "two final newlines\n\n",
        "yes",
        "123",
        "- looks like a list",
        "key: value # not a comment",
        "\"quoted\" and 'single' and \\ backslash",
        "unicode: héllo, 日本語, emoji 🪐, nbsp\u{A0}here",
        "controls: \u{1}\u{7F}\u{85}\u{2028}\u{FEFF}",
        "carriage\r\nreturns\r\n",
        "%YAML 1.1",
        "---\n...\n",
        "@ & * ! | > ' \" % ` # { } [ ] ,",
    ]

    @Test("Text bodies of every awkward kind come back byte for byte", arguments: awkwardTexts)
    func awkwardBodies(text: String) throws {
        var file = FixtureFile(relativePath: "api.example.com/t.GET.yaml", comment: "test")
        file.add(Self.exchange("GET", "/t", headers: ["Content-Type": "text/plain"], body: Array(text.utf8)))
        let (folder, index) = try Self.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        let entry = try #require(index.lookup(.make(target: "/t")))
        #expect(entry.response.body.bytes == Array(text.utf8))
        #expect(entry.response.headers.lines == ["Content-Type: text/plain"])
    }

    @Test("Binary and large bodies go to body files named by content; small text stays inline")
    func bodyFiles() throws {
        let image: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + (0..<200).map { UInt8($0) }
        let large = Array(String(repeating: "0123456789abcdef", count: 2048).utf8)
        var file = FixtureFile(relativePath: "api.example.com/media.GET.yaml", comment: "test")
        file.add(Self.exchange("GET", "/media?kind=png", headers: ["Content-Type": "image/png"], body: image))
        file.add(Self.exchange("GET", "/media?kind=large", body: large))
        file.add(Self.exchange("GET", "/media?kind=small", headers: ["Content-Type": "application/json"], body: Array("{}".utf8)))
        let (text, bodies) = file.render()
        #expect(bodies.map(\.path).allSatisfy { $0.hasPrefix("api.example.com/bodies/media.GET.") })
        #expect(bodies.map { $0.path.split(separator: ".").last ?? "" } == ["png", "bin"])
        #expect(text.contains("json: {}"))
        let (folder, index) = try Self.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try #require(index.lookup(.make(target: "/media?kind=png"))).response.body.bytes == image)
        let largeEntry = try #require(index.lookup(.make(target: "/media?kind=large")))
        #expect(largeEntry.response.body.bytes == large)
        // No content type was recorded, so none is guessed from the body file's name.
        #expect(largeEntry.response.headers.lines.isEmpty)
    }

    @Test("Repeats with new answers become a sequence; the same answer again adds nothing")
    func sequences() throws {
        var file = FixtureFile(relativePath: "api.example.com/counter.GET.yaml", comment: "test")
        let added = [
            file.add(Self.exchange("GET", "/counter", body: Array("1".utf8))),
            file.add(Self.exchange("GET", "/counter", body: Array("2".utf8))),
            file.add(Self.exchange("GET", "/counter", body: Array("2".utf8))),
            file.add(Self.exchange("GET", "/counter", status: 503, body: Array("2".utf8))),
        ]
        #expect(added == [true, true, false, true])
        let (folder, index) = try Self.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(index.count == 1)
        let entry = try #require(index.lookup(.make(target: "/counter")))
        let answers = (0..<4).map { _ in entry.nextResponse() }.map { "\($0.status) \($0.body.text)" }
        #expect(answers == ["200 1", "200 2", "503 2", "503 2"])
    }

    @Test("Query order does not matter, on recording or on replay")
    func queryOrder() throws {
        var file = FixtureFile(relativePath: "api.example.com/search.GET.yaml", comment: "test")
        file.add(Self.exchange("GET", "/search?b=2&a=1", body: Array("first".utf8)))
        file.add(Self.exchange("GET", "/search?a=1&b=2", body: Array("second".utf8)))
        let (folder, index) = try Self.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(index.count == 1)
        let entry = try #require(index.lookup(.make(target: "/search?a=1&b=2")))
        #expect(entry.nextResponse().body.text == "first")
        #expect(index.lookup(.make(target: "/search?a=1")) == nil)
        #expect(index.lookup(.make(target: "/search?a=1&b=2&c=3")) == nil)
    }

    @Test("Requests match on method, host, url and body: JSON by value, text exactly, bytes exactly")
    func requestConditions() throws {
        let binary: [UInt8] = [0, 255, 1, 254]
        var file = FixtureFile(relativePath: "api.example.com/orders.POST.yaml", comment: "test")
        file.add(Self.exchange("POST", "/orders", host: "api.example.com", requestBody: Array(#"{"sku":"A","n":1}"#.utf8), status: 201))
        file.add(Self.exchange("POST", "/orders", host: "api.example.com", requestBody: Array("sku=B".utf8), status: 202))
        file.add(Self.exchange("POST", "/orders", host: "api.example.com", requestBody: binary, status: 203))
        let (folder, index) = try Self.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        func status(_ body: [UInt8], host: String = "api.example.com", method: String = "POST") -> Int? {
            index.lookup(HTTPRequest(method: method, target: "/orders", headers: ["Host": host], body: body))?.response.status
        }
        #expect(status(Array(#"{ "n": 1.0, "sku": "A" }"#.utf8)) == 201)
        #expect(status(Array("sku=B".utf8)) == 202)
        #expect(status(binary) == 203)
        #expect(status(Array("sku=C".utf8)) == nil)
        #expect(status(Array("sku=B".utf8), host: "other.example.com") == nil)
        #expect(status(Array("sku=B".utf8), method: "PUT") == nil)
    }

    @Test("Headers are matched only when asked; redacted values match any value")
    func matchedHeaders() throws {
        var file = FixtureFile(relativePath: "api.example.com/me.GET.yaml", comment: "test")
        file.add(
            Self.exchange(
                "GET", "/me?token=[REDACTED]", requestHeaders: ["Authorization": "[REDACTED]", "X-Tenant": "blue"],
                matchHeaders: ["authorization", "X-Tenant"], body: Array("me".utf8)))
        let (folder, index) = try Self.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(index.lookup(.make(target: "/me?token=abc", headers: ["Authorization": "Bearer other", "X-Tenant": "blue"])) != nil)
        #expect(index.lookup(.make(target: "/me?token=abc", headers: ["Authorization": "Bearer other", "X-Tenant": "red"])) == nil)
        #expect(index.lookup(.make(target: "/me?token=abc", headers: ["X-Tenant": "blue"])) == nil)
    }

    @Test("Recorded headers keep their order and repeats; the date, framing and coding are left to the replay")
    func headers() throws {
        let headers: HTTPHeaders = [
            "Content-Type": "application/json", "Date": "Sun, 22 Nov 2026 10:00:00 GMT", "Set-Cookie": "[REDACTED]",
            "Content-Length": "2", "X-Empty": "", "Content-Encoding": "gzip", "Transfer-Encoding": "chunked",
        ]
        var withRepeat = headers
        withRepeat.add("set-cookie", "b=2")
        var file = FixtureFile(relativePath: "api.example.com/h.GET.yaml", comment: "test")
        file.add(Self.exchange("GET", "/h", headers: withRepeat, body: Array("{}".utf8), encoding: .gzip))
        let (folder, index) = try Self.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        let entry = try #require(index.lookup(.make(target: "/h")))
        #expect(entry.stub.response.encoding == .gzip)
        #expect(entry.stub.response.headers.lines == ["Content-Type: application/json", "Set-Cookie: [REDACTED]", "Set-Cookie: b=2", "X-Empty: "])
    }

    @Test("A body that could not be decoded keeps its Content-Encoding and goes out as it came")
    func undecodedBody() throws {
        var file = FixtureFile(relativePath: "api.example.com/br.GET.yaml", comment: "test")
        file.add(Self.exchange("GET", "/br", headers: ["Content-Encoding": "br"], body: [1, 2, 3, 250], encoding: nil))
        let (folder, index) = try Self.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        let entry = try #require(index.lookup(.make(target: "/br")))
        #expect(entry.response.headers.lines == ["Content-Encoding: br"])
        #expect(entry.response.body.bytes == [1, 2, 3, 250])
        #expect(entry.response.encodedBody == nil)
    }

    @Test("Route files are named after the route, safely", arguments: [
        ("GET", "/api/v1/users", "api.example.com/api/v1/users.GET.yaml"),
        ("POST", "/", "api.example.com/index.POST.yaml"),
        ("GET", "/users/", "api.example.com/users/index.GET.yaml"),
        ("GET", "/a b/../.hidden/bodies/x.tmp", "api.example.com/a_b/_./_hidden/bodies_/x.tmp_.GET.yaml"),
        ("DELETE", "/a//b", "api.example.com/a/_/b.DELETE.yaml"),
    ])
    func routeFiles(method: String, path: String, expected: String) {
        #expect(FixtureLayout.routeFile(folder: "api.example.com", method: method, path: path) == expected)
    }

    @Test("Appending to a file that already holds fixtures keeps them")
    func appending() throws {
        var first = FixtureFile(relativePath: "api.example.com/a.GET.yaml", comment: "first session")
        first.add(Self.exchange("GET", "/a?n=1", body: Array("one".utf8)))
        let existing = first.render().text
        #expect(FixtureFile.isBareList(existing))
        #expect(!FixtureFile.isBareList("# comment\nbase: { path: /a }\nstubs: []\n"))
        var second = FixtureFile(relativePath: "api.example.com/a.GET.yaml", appendingTo: existing)
        second.add(Self.exchange("GET", "/a?n=2", body: Array("two".utf8)))
        let (folder, index) = try Self.load([second])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(index.lookup(.make(target: "/a?n=1"))?.response.body.text == "one")
        #expect(index.lookup(.make(target: "/a?n=2"))?.response.body.text == "two")
    }
}
