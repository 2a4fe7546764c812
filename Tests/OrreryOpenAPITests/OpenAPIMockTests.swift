import Foundation
import OrreryCore
import OrreryOpenAPI
import Testing

/// Requests answered and checked by `OpenAPIMock` as values: parameter styles, credentials, bodies, `Prefer`,
/// the base path and the route index (the live tests in OrreryEndToEndTests send real requests).
@Suite("OpenAPI mock: requests as values")
struct OpenAPIMockTests {
    static let mock = OpenAPIFixtures.mock("styles-3.0.yaml")

    static func answer(_ target: String, method: String = "GET", headers: HTTPHeaders = [:], body: String = "")
        -> OpenAPIAnswer?
    {
        OpenAPIFixtures.answer(mock, target, method: method, headers: headers, body: body)
    }

    /// The problem's errors as `location pointer: message`.
    static func errors(_ answer: OpenAPIAnswer?) -> [String] {
        OpenAPIFixtures.errors(answer, withMessages: true)
    }

    @Test("The base path is the servers' path; literal segments win over parameters; 404 and 405 come from the index")
    func routing() {
        #expect(Self.mock.specs.count == 1)
        #expect(Self.answer("/base/items/mine")?.operationId == "mine")
        #expect(Self.answer("/base/items/7")?.operationId == "item")
        #expect(Self.answer("/items/7") == nil)
        let wrongMethod = Self.answer("/base/items/7", method: "DELETE")
        #expect(wrongMethod?.status == 405)
        #expect(wrongMethod?.headers.first(named: "Allow") == "GET")
        #expect(wrongMethod?.headers.first(named: "Content-Type") == "application/problem+json")
    }

    @Test("Path parameters: simple, label and matrix styles, types read from the schema")
    func pathStyles() {
        #expect(Self.answer("/base/items/7")?.status == 200)
        #expect(Self.errors(Self.answer("/base/items/0")) == ["path /id: must be at least 1"])
        #expect(Self.answer("/base/items/seven")?.status == 400)
        #expect(Self.answer("/base/label/.1.2.3")?.status == 204)
        #expect(Self.answer("/base/label/.1.x")?.status == 400)
        #expect(Self.answer("/base/matrix/;x=1;y=2")?.status == 204)
        #expect(Self.errors(Self.answer("/base/matrix/;x=1")) == ["path /point: is missing the required property 'y'"])
    }

    @Test("Query, header and cookie parameters: pipe and space delimited, deepObject, required, every violation listed")
    func queryStyles() {
        let headers: HTTPHeaders = ["X-Count": "3", "Cookie": "flag=true"]
        #expect(
            Self.answer("/base/query?tags=a|b&near[x]=1&near[y]=2&words=one%20two", headers: headers)?.status == 200)
        let broken = Self.answer("/base/query?tags=a|c&near[x]=1&words=a%20b%20c", headers: ["Cookie": "flag=yes"])
        #expect(broken?.status == 400)
        #expect(
            Self.errors(broken) == [
                "query /tags/1: must be one of \"a\", \"b\"", "query /near: is missing the required property 'y'",
                "query /words: must have at most 2 items",
                "header /X-Count: the required header parameter 'X-Count' is missing",
                "cookie /flag: 'yes' is not of type boolean",
            ])
        let missing = Self.answer("/base/query", headers: ["X-Count": "3"])
        #expect(missing?.status == 422)
        #expect(Self.errors(missing) == ["query /tags: the required query parameter 'tags' is missing"])
    }

    @Test("Security: one complete alternative is enough; a missing credential is 401 with WWW-Authenticate")
    func security() {
        #expect(Self.answer("/base/secure", headers: ["Authorization": "Basic dTpw"])?.status == 200)
        #expect(Self.answer("/base/secure?api_key=k", headers: ["Cookie": "sid=s"])?.status == 200)
        let missing = Self.answer("/base/secure?api_key=k")
        #expect(missing?.status == 401)
        #expect(missing?.headers.first(named: "WWW-Authenticate") == "Basic realm=\"orrery\"")
        #expect(Self.answer("/base/secure", headers: ["Authorization": "Bearer t"])?.status == 401)
    }

    @Test("Bodies: JSON and form bodies against the schema, readOnly refused in requests, content type and presence")
    func bodies() {
        let json: HTTPHeaders = ["Content-Type": "application/json"]
        #expect(Self.answer("/base/points", method: "POST", headers: json, body: #"{"x": 1, "y": 2}"#)?.status == 201)
        let broken = Self.errors(
            Self.answer("/base/points", method: "POST", headers: json, body: #"{"x": "1", "id": "p"}"#))
        #expect(
            broken.sorted() == [
                "body /id: is read-only: it belongs in responses, not in a request",
                "body /x: must be integer, not a string",
                "body : is missing the required property 'y'",
            ])
        #expect(Self.answer("/base/points", method: "POST", headers: json, body: "{")?.status == 400)
        #expect(Self.answer("/base/points", method: "POST", headers: json)?.status == 422)
        let form: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        #expect(Self.answer("/base/points", method: "POST", headers: form, body: "x=1&y=2")?.status == 201)
        #expect(
            Self.errors(Self.answer("/base/points", method: "POST", headers: form, body: "x=1&y=z")) == [
                "body /y: must be integer, not a string"
            ])
        let text: HTTPHeaders = ["Content-Type": "text/plain"]
        #expect(Self.answer("/base/points", method: "POST", headers: text, body: "1,2")?.status == 422)
    }

    @Test("Prefer: code, example by name, dynamic bodies that repeat for the same request")
    func prefer() throws {
        let first = try #require(Self.answer("/base/items/1"))
        #expect(first.body.text == #"{"x":0,"y":0}"#)
        #expect(Self.answer("/base/items/1", headers: ["Prefer": "example=far"])?.body.text == #"{"x":99,"y":99}"#)
        let missing = Self.answer("/base/items/1", headers: ["Prefer": "code=404"])
        #expect(missing?.status == 404)
        #expect(missing?.body.text == #"{"error":"gone"}"#)
        #expect(Self.answer("/base/items/1", headers: ["Prefer": "code=418"])?.status == 422)
        let dynamic = Self.answer("/base/items/1", headers: ["Prefer": "dynamic=true"])
        #expect(dynamic?.body.text == Self.answer("/base/items/1", headers: ["Prefer": "dynamic=true"])?.body.text)
        #expect(Self.answer("/base/query?tags=a", headers: ["X-Count": "1"])?.body.text == "fine")
    }

    @Test("report mode answers a broken request as usual and hands its violations over")
    func report() {
        let mock = OpenAPIMock(specs: Self.mock.specs, validation: .report)
        let answer = mock.answer(HTTPRequest(method: "GET", target: "/base/items/0"))
        #expect(answer?.status == 200)
        #expect(answer?.violations.map(\.pointer) == ["/id"])
        let off = OpenAPIMock(specs: Self.mock.specs, validation: .off)
        #expect(off.answer(HTTPRequest(method: "GET", target: "/base/items/0"))?.violations.isEmpty == true)
    }
}
