import Foundation
import OrreryCore
import OrreryOpenAPI
import Testing

/// Request bodies that are not JSON, checked against their media type's schema: `text/*` read as the schema's type,
/// `multipart/form-data` and `application/x-www-form-urlencoded` field by field, each field as its property's type.
@Suite("OpenAPI request bodies beyond JSON")
struct OpenAPIBodyMediaTests {
    static let mock: OpenAPIMock = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/openapi/bodies-3.0.yaml").path
        return OpenAPIMock(specs: (try? OpenAPISpecLoader.load(path: path)).map { [$0] } ?? [])
    }()

    /// The status and the problem's errors as `location pointer: message`, sorted.
    static func send(_ method: String, _ target: String, _ contentType: String, _ body: String) -> (Int?, [String]) {
        let answer = mock.answer(
            HTTPRequest(method: method, target: target, headers: ["Content-Type": contentType], body: Array(body.utf8)))
        guard let answer else { return (nil, []) }
        guard case .array(let errors)? = try? JSONValue.parse(answer.body.bytes)["errors"] else {
            return (answer.status, [])
        }
        return (
            answer.status,
            errors.map {
                "\($0["location"]?.stringValue ?? "") \($0["pointer"]?.stringValue ?? ""): \($0["message"]?.stringValue ?? "")"
            }.sorted()
        )
    }

    static func multipart(_ parts: [(String, String)], boundary: String = "XyZ") -> String {
        parts.map { name, value in
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        .joined() + "--\(boundary)--\r\n"
    }

    @Test("text/plain against a string schema; text/* against an integer one, read as a parameter is")
    func text() {
        #expect(Self.send("POST", "/notes", "text/plain", "buy milk") == (204, []))
        #expect(Self.send("POST", "/notes", "text/plain; charset=utf-8", "buy milk") == (204, []))
        #expect(
            Self.send("POST", "/notes", "text/plain", "Buy milk and bread")
                == (
                    422,
                    [
                        "body : must be at most 10 characters long", "body : must match the pattern ^[a-z ]+$",
                    ]
                ))
        #expect(Self.send("POST", "/notes", "text/plain", "").0 == 422)
        #expect(Self.send("PUT", "/counts", "text/csv", "3") == (204, []))
        #expect(Self.send("PUT", "/counts", "text/plain", "0") == (422, ["body : must be at least 1"]))
        #expect(Self.send("PUT", "/counts", "text/plain", "three") == (400, ["body : 'three' is not of type integer"]))
    }

    @Test("multipart/form-data: each field read as its property's type; a file part is its content")
    func multipart() {
        let type = "multipart/form-data; boundary=XyZ"
        #expect(
            Self.send(
                "POST", "/uploads", type, Self.multipart([("title", "report"), ("copies", "2"), ("file", "%PDF-1.7")]))
                == (201, []))
        let fileHeaders =
            "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n\u{1}\u{2}\r\n"
        let quoted = "multipart/form-data; boundary=\"XyZ\""
        #expect(Self.send("POST", "/uploads", quoted, fileHeaders + Self.multipart([("title", "t")])) == (201, []))
        #expect(
            Self.send("POST", "/uploads", type, Self.multipart([("copies", "0"), ("file", "x")]))
                == (422, ["body /copies: must be at least 1", "body : is missing the required property 'title'"]))
        #expect(
            Self.send("POST", "/uploads", type, Self.multipart([("title", "t"), ("copies", "two"), ("file", "x")]))
                == (422, ["body /copies: must be integer, not a string"]))
        // Not multipart with that boundary: unreadable.
        let unreadable = (400, ["body : the body is not multipart/form-data with the boundary its Content-Type names"])
        #expect(Self.send("POST", "/uploads", "multipart/form-data", Self.multipart([("title", "t")])) == unreadable)
        #expect(
            Self.send("POST", "/uploads", "multipart/form-data; boundary=other", Self.multipart([("title", "t")]))
                == unreadable)
        #expect(
            Self.send("POST", "/uploads", type, "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nt")
                == unreadable)
    }

    @Test("application/x-www-form-urlencoded: a property name with a slash finds its type")
    func urlencoded() {
        let type = "application/x-www-form-urlencoded"
        #expect(Self.send("POST", "/uploads", type, "a%2Fb=5") == (201, []))
        #expect(Self.send("POST", "/uploads", type, "a%2Fb=x") == (422, ["body /a~1b: must be integer, not a string"]))
    }
}
