import Foundation
import Testing

/// Each request matcher, end to end: a real client, a real daemon, one stub per matcher answering its own name.
@Suite("Matchers over HTTP")
struct MatcherLiveTests {
    static let stubs = """
        base:
          path: /m
        stubs:
          - { request: { method: DELETE, path: /method }, response: { body: method-delete } }
          - { request: { method: ANY, path: /method }, response: { body: method-any } }
          - { request: { path: /path }, response: { body: path } }
          - { request: { url: "/url?a=1&b=2" }, response: { body: url } }
          - { request: { urlPattern: "^/m/users/[0-9]+$" }, response: { body: urlPattern } }
          - { request: { path: /query, query: { page: "2", q: { contains: ada } } }, response: { body: query } }
          - { request: { path: /header, headers: { X-Exact: yes } }, response: { body: header-equal } }
          - { request: { path: /header, headers: { X-Regex: { matches: "^v[0-9]+$" } } }, response: { body: header-matches } }
          - { request: { path: /header, headers: { X-Part: { contains: needle } } }, response: { body: header-contains } }
          - { request: { path: /absent, headers: { Authorization: { absent: true } } }, response: { body: header-absent } }
          - { request: { path: /absent }, response: { status: 401, body: needs-absent } }
          - { request: { method: POST, path: /body, body: { equalTo: "exact text" } }, response: { body: body-equal } }
          - { request: { method: POST, path: /body, body: { json: { b: [1, 2], a: "x" } } }, response: { body: body-json } }
          - { request: { method: POST, path: /body, body: { matches: "^order-[0-9]+$" } }, response: { body: body-matches } }
          - { request: { method: POST, path: /body, body: { contains: "needle" } }, response: { body: body-contains } }
          - { request: { method: POST, path: /body, body: { form: { sku: A, qty: { matches: "^[0-9]+$" } } } }, response: { body: body-form } }
        """

    struct Case: CustomTestStringConvertible, Sendable {
        var method = "GET"
        var path: String
        var headers: [String: String] = [:]
        var body: String?
        var expected: String
        var testDescription: String { "\(method) \(path) → \(expected)" }
    }

    static let cases: [Case] = [
        Case(method: "DELETE", path: "/m/method", expected: "method-delete"),
        Case(method: "PUT", path: "/m/method", expected: "method-any"),
        Case(path: "/m/path?anything=1", expected: "path"),
        Case(path: "/m/url?b=2&a=1", expected: "url"),
        Case(path: "/m/users/42", expected: "urlPattern"),
        Case(path: "/m/query?q=lovelace-ada&page=2", expected: "query"),
        Case(path: "/m/header", headers: ["X-Exact": "yes"], expected: "header-equal"),
        Case(path: "/m/header", headers: ["x-regex": "v12"], expected: "header-matches"),
        Case(path: "/m/header", headers: ["X-Part": "a needle here"], expected: "header-contains"),
        Case(path: "/m/absent", expected: "header-absent"),
        Case(path: "/m/absent", headers: ["Authorization": "Bearer t"], expected: "needs-absent"),
        Case(method: "POST", path: "/m/body", body: "exact text", expected: "body-equal"),
        Case(method: "POST", path: "/m/body", body: #"{"a":"x","b":[1,2.0]}"#, expected: "body-json"),
        Case(method: "POST", path: "/m/body", body: "order-12", expected: "body-matches"),
        Case(method: "POST", path: "/m/body", body: "hay needle hay", expected: "body-contains"),
        Case(method: "POST", path: "/m/body", body: "qty=3&sku=A", expected: "body-form"),
    ]

    @Test(arguments: cases)
    func matcherSelectsItsStub(_ testCase: Case) async throws {
        try await LiveServer.with(files: ["stubs/matchers.yaml": Self.stubs]) { (server: LiveServer) async throws in
            let result = try await server.request(
                testCase.method, testCase.path, headers: testCase.headers, body: testCase.body.map { Data($0.utf8) })
            #expect(result.text == testCase.expected)
        }
    }

    static let misses: [Case] = [
        Case(method: "GET", path: "/m/users/abc", expected: "url"),
        Case(path: "/m/query?page=3&q=ada", expected: "query"),
        Case(path: "/m/header", headers: ["X-Regex": "version-1"], expected: "header"),
        Case(method: "POST", path: "/m/body", body: #"{"a":"x","b":[2,1]}"#, expected: "body"),
        Case(method: "POST", path: "/m/body", body: "qty=many&sku=A", expected: "body"),
    ]

    @Test("a near miss is a 404 naming the field that differed", arguments: misses)
    func nearMissExplainsItself(_ testCase: Case) async throws {
        try await LiveServer.with(files: ["stubs/matchers.yaml": Self.stubs]) { (server: LiveServer) async throws in
            let result = try await server.request(
                testCase.method, testCase.path, headers: testCase.headers, body: testCase.body.map { Data($0.utf8) })
            #expect(result.status == 404)
            #expect(result.header("Content-Type") == "application/json")
            let json = try result.json()
            #expect(json["failureReason"] as? String != nil)
            #expect(json["recoverySuggestion"] as? String != nil)
            let closest = try #require(json["closestStubs"] as? [[String: Any]])
            let fields = closest.flatMap { ($0["differences"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String } }
            #expect(fields.contains(testCase.expected), "fields: \(fields)")
        }
    }
}
