import Foundation
import Testing
@testable import OrreryCore

/// The parts of the stub format that recordings rely on: sequences, a recorded encoding, binary request bodies and
/// redacted values that stand for any value.
@Suite("Stub format: what recordings need")
struct ReplayFormatTests {
    @Test("'responses' is a sequence: answered in order, the last one repeating")
    func sequence() throws {
        let stub = try StubText.decodeOne(
            """
            request: { method: GET, path: /counter }
            responses:
              - { status: 200, body: one }
              - { status: 200, body: two }
              - { status: 503, body: three }
            """)
        #expect(stub.responses.map { String(decoding: $0.body, as: UTF8.self) } == ["one", "two", "three"])
        let index = StubIndex([stub])
        let entry = try #require(index.lookup(.make(target: "/counter")))
        let answers = (0..<5).map { _ in entry.nextResponse().body.text }
        #expect(answers == ["one", "two", "three", "three", "three"])
        entry.rewind()
        #expect(entry.nextResponse().body.text == "one")
    }

    @Test("A new index carries a sequence on while its stub is unchanged, and starts a changed one over")
    func sequenceAcrossIndexes() throws {
        func stub(_ bodies: [String]) -> Stub {
            var stub = Stub.make(id: "seq", path: "/s", body: bodies[0])
            stub.responses = bodies.map { ResponseDefinition(body: Array($0.utf8)) }
            return stub
        }
        let first = StubIndex([stub(["a", "b", "c"])])
        #expect(try #require(first.lookup(.make(target: "/s"))).nextResponse().body.text == "a")
        // Another stub added: the sequence goes on.
        let second = StubIndex([stub(["a", "b", "c"]), Stub.make(path: "/other")], previous: first)
        #expect(try #require(second.lookup(.make(target: "/s"))).nextResponse().body.text == "b")
        // The stub changed: it starts over.
        let third = StubIndex([stub(["a", "b", "d"])], previous: second)
        #expect(try #require(third.lookup(.make(target: "/s"))).nextResponse().body.text == "a")
    }

    @Test("A stub with one response answers it every time")
    func single() throws {
        let index = StubIndex([Stub.make(path: "/a", body: "same")])
        let entry = try #require(index.lookup(.make(target: "/a")))
        #expect((0..<3).map { _ in entry.nextResponse().body.text } == ["same", "same", "same"])
    }

    @Test("Sequence mistakes are reported with their line", arguments: [
        ("request: { path: /a }\nresponses: []\n", "'responses' must be a list of one or more responses"),
        ("request: { path: /a }\nresponses: { status: 200 }\n", "'responses' must be a list of one or more responses"),
        ("request: { path: /a }\nresponse: { status: 200 }\nresponses:\n  - { status: 200 }\n", "use only one of 'response', 'responses'"),
        ("request: { path: /a }\nresponses:\n  - { status: 2000 }\n", "status"),
    ])
    func sequenceErrors(text: String, message: String) {
        let errors = StubText.errors(text, as: .yaml)
        #expect(errors.contains { $0.message.contains(message) }, "\(errors)")
        #expect(errors.allSatisfy { $0.line > 0 })
    }

    @Test("'encoding' names the coding a recorded body goes out in", arguments: ContentCoding.allCases)
    func encoding(coding: ContentCoding) throws {
        let stub = try StubText.decodeOne("request: { path: /a }\nresponse: { body: hello, encoding: \(coding.rawValue.uppercased()) }\n")
        #expect(stub.response.encoding == coding)
    }

    @Test("An unknown encoding, or one given twice, is an error")
    func encodingErrors() {
        let unknown = StubText.errors("request: { path: /a }\nresponse:\n  encoding: gzp\n", as: .yaml)
        #expect(unknown.first?.message.contains("did you mean 'gzip'") == true)
        #expect(unknown.first?.line == 3)
        let twice = StubText.errors(
            "request: { path: /a }\nresponse:\n  headers: { Content-Encoding: gzip }\n  encoding: gzip\n", as: .yaml)
        #expect(twice.first?.message.contains("not as a Content-Encoding header") == true)
    }

    @Test("A recorded encoding is applied for clients that accept it, with no Vary added")
    func recordedEncoding() throws {
        let definition = ResponseDefinition(
            headers: ["Content-Type": "application/json"], body: Array("{}".utf8), encoding: .deflate)
        let prepared = PreparedResponse(definition, compress: { bytes, coding in Array(coding.rawValue.utf8) + bytes })
        #expect(prepared.headers.lines == ["Content-Type: application/json"])
        let deflating = prepared.variant(for: ["Accept-Encoding": "gzip, deflate"])
        #expect(deflating.headers.lines == ["Content-Type: application/json", "Content-Encoding: deflate"])
        #expect(deflating.body.text == "deflate{}")
        let gzipOnly = prepared.variant(for: ["Accept-Encoding": "gzip"])
        #expect(gzipOnly.headers.lines == ["Content-Type: application/json"])
        #expect(gzipOnly.body.text == "{}")
        #expect(prepared.variant(for: [:]).body.text == "{}")
    }

    @Test("'identity' turns Orrery's own gzip off")
    func identity() {
        let body = Array(repeating: UInt8(ascii: "a"), count: 4096)
        let prepared = PreparedResponse(ResponseDefinition(body: body, encoding: .identity), compress: halvingCompressor)
        #expect(prepared.encodedBody == nil)
        #expect(!prepared.headers.contains("Vary"))
        #expect(prepared.variant(for: ["Accept-Encoding": "gzip"]).body.count == 4096)
    }

    @Test("A 204 or 304 with a recorded encoding has no encoded variant")
    func noBodyStatuses() {
        for status in [204, 304] {
            let prepared = PreparedResponse(ResponseDefinition(status: status, encoding: .gzip), compress: halvingCompressor)
            #expect(prepared.encodedBody == nil)
        }
    }

    @Test("accepts: deflate by name or by *, never identity")
    func acceptsDeflate() {
        #expect(PreparedResponse.accepts(.deflate, "gzip, deflate"))
        #expect(PreparedResponse.accepts(.deflate, "*"))
        #expect(!PreparedResponse.accepts(.deflate, "gzip"))
        #expect(!PreparedResponse.accepts(.deflate, "deflate;q=0"))
        #expect(!PreparedResponse.accepts(.identity, "*"))
    }

    @Test("binaryEqualTo matches the exact bytes of a body written in base64")
    func binaryBody() throws {
        let bytes: [UInt8] = [0, 159, 146, 150, 255, 10]
        let stub = try StubText.decodeOne(
            "request:\n  method: POST\n  path: /upload\n  body: { binaryEqualTo: \(Data(bytes).base64EncodedString()) }\nresponse: { status: 201 }\n")
        #expect(stub.request.matches(HTTPRequest(method: "POST", target: "/upload", body: bytes)))
        #expect(!stub.request.matches(HTTPRequest(method: "POST", target: "/upload", body: bytes + [0])))
        let errors = StubText.errors("request:\n  body: { binaryEqualTo: '***' }\nresponse: {}\n", as: .yaml)
        #expect(errors.first?.message == "'binaryEqualTo' must be base64")
    }

    @Test("A redacted value in a url, a query, a header or a JSON body stands for any value")
    func redactedValues() throws {
        let stubs = try StubText.decode(
            """
            - request:
                method: POST
                url: /login?user=ada&token=[REDACTED]
                headers: { Authorization: "[REDACTED]" }
                body: { json: { user: ada, password: "[REDACTED]", tags: ["[REDACTED]", 1] } }
              response: { status: 200 }
            - request:
                path: /search
                query: { key: "[REDACTED]" }
              response: { status: 200 }
            """, as: .yaml)
        let login = stubs[0].request
        let body = #"{"password": "hunter22", "user": "ada", "tags": [{"x": 1}, 1]}"#
        #expect(login.matches(.make(method: "POST", target: "/login?token=other&user=ada", headers: ["Authorization": "Bearer x"], body: body)))
        #expect(!login.matches(.make(method: "POST", target: "/login?token=other&user=bob", headers: ["Authorization": "Bearer x"], body: body)))
        #expect(!login.matches(.make(method: "POST", target: "/login?user=ada", headers: ["Authorization": "Bearer x"], body: body)))
        #expect(!login.matches(.make(method: "POST", target: "/login?token=a&user=ada", body: body)))
        #expect(!login.matches(.make(method: "POST", target: "/login?token=a&user=ada", headers: ["Authorization": "x"], body: #"{"user": "bob", "password": "x", "tags": [1, 1]}"#)))
        let search = stubs[1].request
        #expect(search.matches(.make(target: "/search?key=abc")))
        #expect(!search.matches(.make(target: "/search")))
    }
}
