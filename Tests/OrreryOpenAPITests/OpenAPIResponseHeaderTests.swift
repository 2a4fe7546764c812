import Foundation
import OrreryCore
import OrreryOpenAPI
import Testing

/// A response's declared headers: sent with the spec's answers (from their examples, else from their schemas), and
/// checked in answers whoever gave them (required ones present, values against their schemas).
@Suite("OpenAPI response headers")
struct OpenAPIResponseHeaderTests {
    static let spec: OpenAPISpec? = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/openapi/headers-3.0.yaml").path
        return try? OpenAPISpecLoader.load(path: path)
    }()

    static let mock = OpenAPIMock(specs: spec.map { [$0] } ?? [])

    static let conforming: HTTPHeaders = [
        "Content-Type": "application/json", "X-Rate-Limit": "99",
        "X-Request-Id": "5b3c1a38-4c1f-4c4e-9d0e-2f1c6b7a8d90",
    ]

    /// The exchange's response violations as `location pointer: message`.
    static func violations(status: Int = 200, _ headers: HTTPHeaders, body: String = #"["a"]"#) -> [String] {
        let check = mock.check(
            HTTPRequest(method: "GET", target: "/items"), status: status, headers: headers, body: Array(body.utf8))
        return check.violations.map { "\($0.location) \($0.pointer): \($0.message)" }
    }

    @Test("The loader reads each response's headers: required, schema (or content's), example; Content-Type left out")
    func loaded() throws {
        let spec = try #require(Self.spec)
        let operation = try #require(spec.operations.first)
        let ok = try #require(operation.responses.first { $0.status == "200" })
        #expect(ok.headers.map(\.name) == ["X-Rate-Limit", "X-Request-Id", "X-Tags", "X-Next", "X-Undescribed"])
        #expect(ok.headers.map(\.isRequired) == [true, true, false, false, false])
        #expect(ok.headers[0].example == .number(100, text: "100"))
        #expect(
            ok.headers[3].schema?.location.hasSuffix("#/components/headers/Next/content/application~1json/schema")
                == true)
        #expect(ok.headers[4].schema == nil && ok.headers[4].example == nil)
    }

    @Test("Served from the spec: examples first, else a value from the schema, arrays and JSON content as written")
    func served() throws {
        let answer = try #require(Self.mock.answer(HTTPRequest(method: "GET", target: "/items")))
        #expect(answer.status == 200)
        #expect(answer.headers.first(named: "X-Rate-Limit") == "100")
        let id = try #require(answer.headers.first(named: "X-Request-Id"))
        #expect(UUID(uuidString: id) != nil)
        #expect(answer.headers.first(named: "X-Tags") == "red,green")
        #expect(answer.headers.first(named: "X-Next") == #"{"page":2}"#)
        #expect(answer.headers.all(named: "Content-Type") == ["application/json"])
        #expect(answer.headers.first(named: "X-Undescribed") == nil)
        // The same spec always gives the same headers, and the answer it gives conforms to it.
        let again = try #require(Self.mock.answer(HTTPRequest(method: "GET", target: "/items")))
        #expect(again.headers == answer.headers)
        let check = Self.mock.check(
            HTTPRequest(method: "GET", target: "/items"), status: answer.status, headers: answer.headers,
            body: answer.body.bytes)
        #expect(check.violations.isEmpty, "\(check.violations)")
        // Another status of the operation has its own headers.
        let gone = try #require(
            Self.mock.answer(HTTPRequest(method: "GET", target: "/items", headers: ["Prefer": "code=404"])))
        #expect(gone.status == 404)
        #expect(gone.headers.first(named: "X-Reason") == "gone")
        #expect(gone.headers.first(named: "X-Rate-Limit") == nil)
    }

    @Test("Checked in answers: required headers present, values read as their type and checked, every one listed")
    func checked() {
        #expect(Self.violations(Self.conforming) == [])
        var missing = Self.conforming
        missing.remove("X-Rate-Limit")
        missing.remove("X-Request-Id")
        #expect(
            Self.violations(missing) == [
                "response.header /X-Rate-Limit: the required header 'X-Rate-Limit' of status 200 is missing",
                "response.header /X-Request-Id: the required header 'X-Request-Id' of status 200 is missing",
            ])
        var wrong = Self.conforming
        wrong.set("X-Rate-Limit", "-1")
        wrong.set("X-Request-Id", "not-a-uuid")
        wrong.add("X-Next", #"{"page":"two"}"#)
        #expect(
            Self.violations(wrong) == [
                "response.header /X-Rate-Limit: must be at least 0",
                "response.header /X-Request-Id: is not a valid uuid",
                "response.header /X-Next/page: must be integer, not a string",
            ])
        var unreadable = Self.conforming
        unreadable.set("X-Rate-Limit", "many")
        #expect(Self.violations(unreadable).count == 1)
        #expect(Self.violations(unreadable).first?.hasPrefix("response.header /X-Rate-Limit: ") == true)
        // Headers and the body are both checked; another status, its own headers.
        #expect(
            Self.violations(missing, body: "[1]") == [
                "response.header /X-Rate-Limit: the required header 'X-Rate-Limit' of status 200 is missing",
                "response.header /X-Request-Id: the required header 'X-Request-Id' of status 200 is missing",
                "response.body /0: must be string, not an integer",
            ])
        #expect(Self.violations(status: 404, ["X-Reason": "lost"], body: "").count == 1)
        #expect(Self.violations(status: 404, ["X-Reason": "never"], body: "") == [])
    }
}
