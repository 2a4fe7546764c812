import Testing
@testable import OrreryCore

/// A stand-in for zlib: "compresses" to the first half of the bytes.
let halvingCompressor: @Sendable ([UInt8], ContentCoding) -> [UInt8]? = { bytes, _ in Array(bytes.prefix(bytes.count / 2)) }

/// Bytes of text that are worth compressing.
func textBody(_ count: Int) -> [UInt8] {
    Array(repeating: UInt8(ascii: "a"), count: count)
}

@Suite("PreparedResponse")
struct PreparedResponseTests {
    @Test("Status, reason phrase, headers, body and delay are carried over")
    func basics() {
        let prepared = PreparedResponse(
            ResponseDefinition(status: 401, headers: ["X-Id": "1"], body: Array("no".utf8), delayMilliseconds: 30),
            compress: nil)
        #expect(prepared.status == 401)
        #expect(prepared.reason == "Unauthorized")
        #expect(prepared.headers.lines == ["X-Id: 1"])
        #expect(prepared.body.text == "no")
        #expect(prepared.body.count == 2)
        #expect(prepared.delayMilliseconds == 30)
        #expect(PreparedResponse(ResponseDefinition(status: 299), compress: nil).reason == "Unknown Success")
    }

    @Test("A big compressible body gets a gzip variant, Vary: Accept-Encoding, and Content-Encoding only on the variant")
    func gzipVariant() throws {
        let definition = ResponseDefinition(headers: ["Content-Type": "application/json"], body: textBody(300))
        let prepared = PreparedResponse(definition, compress: halvingCompressor)
        let encodedBody = try #require(prepared.encodedBody)
        #expect(encodedBody.count == 150)
        #expect(prepared.body.bytes == definition.body)
        #expect(prepared.headers.lines == ["Content-Type: application/json", "Vary: Accept-Encoding"])
        #expect(prepared.encodedHeaders.lines == ["Content-Type: application/json", "Vary: Accept-Encoding", "Content-Encoding: gzip"])
    }

    @Test("Exactly the minimum size is compressed")
    func minimumSize() {
        let prepared = PreparedResponse(
            ResponseDefinition(body: textBody(PreparedResponse.minimumCompressibleSize)), compress: halvingCompressor)
        #expect(prepared.encodedBody != nil)
    }

    @Test("An existing Vary: Accept-Encoding is not repeated")
    func existingVary() {
        let prepared = PreparedResponse(
            ResponseDefinition(headers: ["vary": "accept-encoding"], body: textBody(300)), compress: halvingCompressor)
        #expect(prepared.headers.all(named: "Vary") == ["accept-encoding"])
    }

    @Test(
        "Another Vary header still gets Accept-Encoding when a gzip variant exists")
    func otherVary() {
        let prepared = PreparedResponse(
            ResponseDefinition(headers: ["Vary": "Origin"], body: textBody(300)), compress: halvingCompressor)
        #expect(prepared.encodedBody != nil)
        let vary = prepared.headers.all(named: "Vary").joined(separator: ",").lowercased()
        #expect(vary.contains("accept-encoding"))
    }

    /// A response that must go out without a gzip variant.
    struct PlainCase: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var definition: ResponseDefinition
        var compress: (@Sendable ([UInt8], ContentCoding) -> [UInt8]?)? = halvingCompressor
    }

    static let plainCases: [PlainCase] = [
        PlainCase(testDescription: "no compressor", definition: ResponseDefinition(body: textBody(1000)), compress: nil),
        PlainCase(testDescription: "255 bytes", definition: ResponseDefinition(body: textBody(255))),
        PlainCase(testDescription: "empty body", definition: ResponseDefinition()),
        PlainCase(
            testDescription: "compressor gives up", definition: ResponseDefinition(body: textBody(300)),
            compress: { _, _ in nil }),
        PlainCase(
            testDescription: "compressed barely smaller", definition: ResponseDefinition(body: textBody(300)),
            compress: { bytes, _ in Array(bytes.dropLast(10)) }),
        PlainCase(
            testDescription: "compressed larger", definition: ResponseDefinition(body: textBody(300)),
            compress: { bytes, _ in bytes + bytes }),
        PlainCase(
            testDescription: "image", definition: ResponseDefinition(headers: ["Content-Type": "image/png"], body: textBody(300))),
        PlainCase(
            testDescription: "already encoded",
            definition: ResponseDefinition(headers: ["Content-Encoding": "br"], body: textBody(300))),
        PlainCase(testDescription: "204", definition: ResponseDefinition(status: 204, body: textBody(300))),
        PlainCase(testDescription: "304", definition: ResponseDefinition(status: 304, body: textBody(300))),
        PlainCase(testDescription: "1xx", definition: ResponseDefinition(status: 101, body: textBody(300))),
    ]

    @Test("No gzip variant", arguments: plainCases)
    func noGzip(plain: PlainCase) {
        let prepared = PreparedResponse(plain.definition, compress: plain.compress)
        #expect(prepared.encodedBody == nil)
        #expect(!prepared.headers.contains("Vary"))
        #expect(prepared.encodedHeaders.lines == prepared.headers.lines)
        #expect(prepared.body.bytes == plain.definition.body)
    }

    @Test("The compressor is not even called for small bodies")
    func compressorNotCalled() {
        var calls = 0
        _ = PreparedResponse(ResponseDefinition(body: textBody(10)), compress: { _, _ in calls += 1; return [] })
        #expect(calls == 0)
    }

    @Test("Text-like content types are compressed", arguments: [
        "text/html; charset=utf-8", "application/json", "application/vnd.api+json", "application/xml",
        "application/javascript", "application/x-www-form-urlencoded", "image/svg+xml", "text/csv", "application/yaml",
    ])
    func compressibleTypes(type: String) {
        let prepared = PreparedResponse(
            ResponseDefinition(headers: ["Content-Type": type], body: textBody(300)), compress: halvingCompressor)
        #expect(prepared.encodedBody != nil)
    }

    @Test("accepts(.gzip) by name, x-gzip or *, not with q=0", arguments: [
        ("gzip", true), ("gzip, deflate", true), ("deflate, gzip", true), ("deflate", false), ("gzip;q=0", false),
        ("*", true), (nil, false), ("", false), ("GZIP", true), ("x-gzip", true), (" gzip ; q=0.5", true),
        ("gzip; q=0.0", false), ("br;q=1, gzip;q=0", false), ("identity", false), ("gzipx", false),
    ] as [(String?, Bool)])
    func acceptsGzip(header: String?, expected: Bool) {
        #expect(PreparedResponse.accepts(.gzip, header) == expected)
    }

    @Test(
        "accepts(.gzip): an explicit gzip wins over a refused *")
    func explicitGzipAfterRefusedWildcard() {
        #expect(PreparedResponse.accepts(.gzip, "*;q=0, gzip"))
    }
}

@Suite("Payload")
struct PayloadTests {
    @Test("Holds bytes and text, including empty")
    func bytes() {
        #expect(Payload("héllo").text == "héllo")
        #expect(Payload([1, 2, 3]).bytes == [1, 2, 3])
        #expect(Payload.empty.count == 0)
        #expect(Payload.empty.bytes == [])
        #expect(Payload("").text == "")
    }
}

@Suite("ErrorResponse")
struct ErrorResponseTests {
    @Test("The JSON carries the status, its reason, failureReason and recoverySuggestion, then the details")
    func json() throws {
        let response = ErrorResponse(
            .Code404NotFound, message: "No stub matches GET /x", details: [("nearMisses", .array([]))])
        let json = response.json
        #expect(json["status"] == JSONValue.int(404))
        #expect(json["error"]?.stringValue == "Not Found")
        #expect(json["message"]?.stringValue == "No stub matches GET /x")
        #expect(json["failureReason"]?.stringValue == HTTPStatusCode.Code404NotFound.failureReason)
        #expect(json["recoverySuggestion"]?.stringValue == HTTPStatusCode.Code404NotFound.recoverySuggestion)
        #expect(json["nearMisses"] == JSONValue.array([]))
        guard case .object(let members) = json else {
            Issue.record("expected an object")
            return
        }
        #expect(members.map { $0.0 } == ["status", "error", "message", "failureReason", "recoverySuggestion", "nearMisses"])
    }

    @Test("Every generated error, whatever its status, carries both texts", arguments: [400, 404, 413, 414, 431, 502, 504])
    func everyStatus(status: Int) throws {
        let code = try #require(HTTPStatusCode(rawValue: status))
        let json = ErrorResponse(status: HTTPStatus(status), message: "m").json
        #expect(json["failureReason"]?.stringValue == code.failureReason)
        #expect(json["recoverySuggestion"]?.stringValue == code.recoverySuggestion)
    }

    @Test("An unregistered status still gets both texts")
    func unregisteredStatus() {
        let json = ErrorResponse(status: 499, message: "m").json
        #expect(json["error"]?.stringValue == "Unknown Client Error")
        #expect(json["failureReason"]?.stringValue?.isEmpty == false)
        #expect(json["recoverySuggestion"]?.stringValue?.isEmpty == false)
    }

    @Test("The body is the pretty JSON plus a newline, and parses back; headers say JSON, no caching")
    func body() throws {
        let response = ErrorResponse(.Code502BadGateway, message: "upstream \"api\" refused")
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.hasSuffix("}\n"))
        #expect(try JSONValue.parse(response.body) == response.json)
        #expect(response.headers.lines == ["Content-Type: application/json", "Cache-Control: no-store"])
    }
}
