import Foundation
import Testing
@testable import OrreryCore

@Suite("HTTPRequest parsing")
struct HTTPRequestTests {
    @Test("Path is percent-decoded; the query is split and decoded", arguments: [
        ("/users", "/users", ""),
        ("/a%20b/c%2Fd", "/a b/c/d", ""),
        ("/caf%C3%A9", "/café", ""),
        ("/bad%zzescape%", "/bad%zzescape%", ""),
        ("/search?q=a+b&tag=%23x", "/search", "q=a+b&tag=%23x"),
        ("/page#fragment", "/page", ""),
        ("relative", "/relative", ""),
        ("http://api.example.com:8080/v1/x?y=1", "/v1/x", "y=1"),
        ("http://api.example.com", "/", ""),
    ])
    func pathAndQuery(target: String, path: String, rawQuery: String) {
        let request = HTTPRequest.make(target: target)
        #expect(request.path == path)
        #expect(request.rawQuery == rawQuery)
    }

    @Test("Query items are decoded, + as a space, repeats kept")
    func queryItems() {
        let request = HTTPRequest.make(target: "/s?q=a+b%26c&tag=1&tag=2&flag&=empty")
        #expect(
            request.query == [
                QueryItem(name: "q", value: "a b&c"), QueryItem(name: "tag", value: "1"),
                QueryItem(name: "tag", value: "2"), QueryItem(name: "flag", value: ""),
                QueryItem(name: "", value: "empty"),
            ])
        #expect(request.queryValues(named: "tag") == ["1", "2"])
        #expect(request.pathAndQuery == "/s?q=a+b%26c&tag=1&tag=2&flag&=empty")
    }

    @Test(
        "One parameter read by name decodes as the whole query does: encoded names, +, repeats, no =, empty pairs",
        arguments: [
            "q=a+b%26c&tag=1&tag=2&flag&=empty", "%74ag=x&t%61g=y&tag", "a+b=1&a%20b=2&a b=3", "&&x=%zz&&x=%4", "",
            "name=Ada%20Lovelace", "=&==&x==1", "caf%C3%A9=%C3%A9t%C3%A9&caf%e9=bad",
            // Written beyond ASCII, unencoded: compared canonically (é precomposed and decomposed, the Kelvin sign).
            "caf\u{E9}=1&cafe\u{301}=2&K=3&\u{212A}=4",
        ])
    func queryValuesByName(query: String) {
        let request = HTTPRequest.make(target: "/s?" + query)
        let names = Set(request.query.map(\.name)).union(["tag", "x", "a b", "missing", "", "café", "K", "\u{212A}"])
        for name in names {
            let expected = request.query.filter { $0.name == name }.map(\.value)
            #expect(request.queryValues(named: name) == expected, "\(name) in \(query)")
            #expect(request.queryValue(named: name) == expected.first, "\(name) in \(query)")
            #expect(
                PercentDecoding.firstQueryValue(named: name, in: request.rawQuery).map(String.init) == expected.first,
                "\(name) in \(query)")
        }
    }

    @Test("Query items: empty pairs skipped, '=' inside a value kept, non-ASCII names and values decoded")
    func queryItemsEdges() {
        #expect(HTTPRequest.make(target: "/s?").query.isEmpty)
        #expect(HTTPRequest.make(target: "/s?&&").query.isEmpty)
        #expect(
            HTTPRequest.make(target: "/s?&a=b=c&&d=&").query == [
                QueryItem(name: "a", value: "b=c"), QueryItem(name: "d", value: ""),
            ])
        #expect(
            HTTPRequest.make(target: "/s?caf%C3%A9=%E2%9C%93&na\u{EF}ve=ol\u{E9}").query == [
                QueryItem(name: "café", value: "✓"), QueryItem(name: "naïve", value: "olé"),
            ])
        #expect(HTTPRequest.make(target: "/s?x=%2").query == [QueryItem(name: "x", value: "%2")])
    }

    @Test("Host comes from an absolute target (user-info dropped), else from the Host header")
    func host() {
        #expect(HTTPRequest.make(target: "/", host: "api.example.com").host == "api.example.com")
        #expect(HTTPRequest.make(target: "/").host == nil)
        let proxied = HTTPRequest.make(target: "http://user:pw@api.example.com:8080/x", host: "other")
        #expect(proxied.host == "api.example.com:8080")
        #expect(proxied.isAbsoluteForm)
        #expect(!HTTPRequest.make(target: "/x").isAbsoluteForm)
        // The last `@` ends the user-info; a name that is not ASCII is kept byte for byte.
        #expect(HTTPRequest.make(target: "http://a@b@h\u{E9}.example:1/x").host == "h\u{E9}.example:1")
        #expect(HTTPRequest.make(target: "https://api.example.test/bench").host == "api.example.test")
    }

    @Test("The method is upper-cased")
    func method() {
        #expect(HTTPRequest.make(method: "get").method == "GET")
    }
}

@Suite("RequestPattern.matches")
struct RequestPatternMatchTests {
    @Test("path: exact and percent-decoded; the query is free")
    func path() {
        let pattern = RequestPattern(url: .path("/a b"))
        #expect(pattern.matches(.make(target: "/a%20b")))
        #expect(pattern.matches(.make(target: "/a%20b?x=1")))
        #expect(!pattern.matches(.make(target: "/a%20b/")))
        #expect(!pattern.matches(.make(target: "/A%20B")))
        #expect(RequestPattern(url: .path("/café")).matches(.make(target: "/caf%C3%A9")))
    }

    @Test("url: path and query, query in any order, repeats counted")
    func url() {
        let pattern = RequestPattern(
            url: .url(
                path: "/s",
                query: [QueryItem(name: "q", value: "a b"), QueryItem(name: "t", value: "1"), QueryItem(name: "t", value: "2")]))
        #expect(pattern.matches(.make(target: "/s?q=a+b&t=1&t=2")))
        #expect(pattern.matches(.make(target: "/s?t=2&q=a%20b&t=1")))
        #expect(!pattern.matches(.make(target: "/s?q=a+b&t=1")))
        #expect(!pattern.matches(.make(target: "/s?q=a+b&t=1&t=1")))
        #expect(!pattern.matches(.make(target: "/s?q=a+b&t=1&t=2&x=")))
        #expect(!pattern.matches(.make(target: "/other?q=a+b&t=1&t=2")))
        #expect(RequestPattern(url: .url(path: "/s", query: [])).matches(.make(target: "/s")))
        #expect(!RequestPattern(url: .url(path: "/s", query: [])).matches(.make(target: "/s?x=1")))
    }

    @Test("urlPattern sees the decoded path and the raw query; pathPattern sees the path alone")
    func patterns() throws {
        let url = RequestPattern(url: .urlPattern(try Pattern(#"^/users/[0-9]+\?page=2$"#)))
        #expect(url.matches(.make(target: "/users/7?page=2")))
        #expect(!url.matches(.make(target: "/users/7")))
        #expect(!url.matches(.make(target: "/users/x?page=2")))

        let unanchored = RequestPattern(url: .pathPattern(try Pattern("users")))
        #expect(unanchored.matches(.make(target: "/api/users/7?x=1")))
        #expect(!unanchored.matches(.make(target: "/api/orders?who=users")))

        let decoded = RequestPattern(url: .pathPattern(try Pattern("^/files/a b$")))
        #expect(decoded.matches(.make(target: "/files/a%20b")))
    }

    @Test("method: exact, or any when nil; an explicit method overrides the request's")
    func method() {
        let get = RequestPattern(method: "GET")
        #expect(get.matches(.make(method: "GET")))
        #expect(!get.matches(.make(method: "POST")))
        #expect(get.matches(.make(method: "HEAD"), method: "GET"))
        #expect(RequestPattern().matches(.make(method: "DELETE")))
    }

    @Test("host: case-insensitive; without a port it matches any port, with one it needs that port", arguments: [
        ("api.example.com", "api.example.com", true),
        ("api.example.com", "API.Example.COM", true),
        ("api.example.com", "api.example.com:8080", true),
        ("api.example.com:8080", "api.example.com:8080", true),
        ("api.example.com:8080", "api.example.com:9090", false),
        ("api.example.com:8080", "api.example.com", false),
        ("api.example.com", "qa.api.example.com", false),
        ("api.example.com", "api.example.com.evil", false),
        ("[::1]:8080", "[::1]:8080", true),
    ])
    func host(expected: String, actual: String, matches: Bool) {
        #expect(RequestPattern(host: expected).matches(.make(host: actual)) == matches)
    }

    @Test("host: an absolute request target's host is used")
    func hostFromAbsoluteTarget() {
        let pattern = RequestPattern(host: "api.example.com")
        #expect(pattern.matches(.make(target: "http://api.example.com:8443/x", host: "localhost:9000")))
        #expect(!pattern.matches(.make(target: "/x")))
    }

    @Test(
        "host: an IPv6 literal written without a port matches any port")
    func hostIPv6WithoutPort() {
        #expect(RequestPattern(host: "[::1]").matches(.make(host: "[::1]:8080")))
    }

    @Test("Header names are case-insensitive; values are not")
    func headerNames() {
        let pattern = RequestPattern(headers: [("content-type", .equalTo("application/json"))])
        #expect(pattern.matches(.make(headers: ["Content-Type": "application/json"])))
        #expect(pattern.matches(.make(headers: ["CONTENT-TYPE": "application/json"])))
        #expect(!pattern.matches(.make(headers: ["Content-Type": "Application/JSON"])))
    }

    @Test("Value matchers, positive and negative", arguments: [
        ("equalTo", ["json"], true), ("equalTo", ["jsonx"], false), ("equalTo", [], false),
        ("contains", ["application/json"], true), ("contains", ["text/html"], false), ("contains", [], false),
        ("matches", ["application/json"], true), ("matches", ["text/json"], false), ("matches", [], false),
        ("doesNotMatch", ["text/html"], true), ("doesNotMatch", ["application/xml"], false),
        ("absent", [], true), ("absent", ["x"], false),
        ("present", ["x"], true), ("present", [""], true), ("present", [], false),
        ("anyValue", ["text/html", "json"], true),
    ])
    func valueMatcher(kind: String, values: [String], expected: Bool) throws {
        let matcher: ValueMatcher =
            switch kind {
            case "equalTo", "anyValue": .equalTo("json")
            case "contains": .contains("json")
            case "matches": .matches(try Pattern("^application/"))
            case "doesNotMatch": .doesNotMatch(try Pattern("xml"))
            case "absent": .absent(true)
            default: .absent(false)
            }
        #expect(matcher.matches(values) == expected)
    }

    @Test("Header matchers on a request, each positive and negative", arguments: [
        ("Accept", ValueMatcher.equalTo("application/json"), true),
        ("Accept", .equalTo("application/xml"), false),
        ("Accept", .contains("json"), true),
        ("Accept", .contains("yaml"), false),
        ("X-Token", .absent(true), true),
        ("Accept", .absent(true), false),
        ("accept", .absent(false), true),
        ("X-Token", .absent(false), false),
        ("X-Multi", .equalTo("b"), true),
    ])
    func headerMatchers(name: String, matcher: ValueMatcher, expected: Bool) {
        let request = HTTPRequest.make(headers: ["Accept": "application/json", "X-Multi": "a", "x-multi": "b"])
        #expect(RequestPattern(headers: [(name, matcher)]).matches(request) == expected)
    }

    @Test("Query matchers on a request: decoded values, any repeat may match")
    func queryMatchers() throws {
        let request = HTTPRequest.make(target: "/s?q=hello+world&page=2&tag=a&tag=b")
        #expect(RequestPattern(query: [("q", .equalTo("hello world"))]).matches(request))
        #expect(RequestPattern(query: [("page", .matches(try Pattern("^[0-9]+$")))]).matches(request))
        #expect(RequestPattern(query: [("tag", .equalTo("b"))]).matches(request))
        #expect(RequestPattern(query: [("debug", .absent(true))]).matches(request))
        #expect(!RequestPattern(query: [("page", .equalTo("3"))]).matches(request))
        #expect(!RequestPattern(query: [("Page", .equalTo("2"))]).matches(request))
        #expect(!RequestPattern(query: [("page", .doesNotMatch(try Pattern("2")))]).matches(request))
    }

    @Test("Body matchers, positive and negative")
    func bodyMatchers() throws {
        let json = HTTPRequest.make(method: "POST", body: #"{"b": [1, 2], "a": {"x": 1.0}}"#)
        #expect(BodyMatcher.equalTo(#"{"b": [1, 2], "a": {"x": 1.0}}"#).matches(json.body))
        #expect(!BodyMatcher.equalTo(#"{"b":[1,2],"a":{"x":1.0}}"#).matches(json.body))
        #expect(BodyMatcher.json(try JSONValue.parse(#"{"a": {"x": 1}, "b": [1, 2]}"#)).matches(json.body))
        #expect(!BodyMatcher.json(try JSONValue.parse(#"{"a": {"x": 1}, "b": [2, 1]}"#)).matches(json.body))
        #expect(!BodyMatcher.json(try JSONValue.parse(#"{"a": {"x": 1}}"#)).matches(json.body))
        #expect(!BodyMatcher.json(.object([])).matches(Array("not json".utf8)))
        #expect(BodyMatcher.contains(#""x": 1.0"#).matches(json.body))
        #expect(!BodyMatcher.contains("y").matches(json.body))
        #expect(BodyMatcher.contains("").matches([]))
        #expect(BodyMatcher.matches(try Pattern(#"^\{"b""#)).matches(json.body))
        #expect(!BodyMatcher.matches(try Pattern(#"^\{"a""#)).matches(json.body))
    }

    @Test("Form bodies: decoded fields, each with its matcher")
    func formBody() throws {
        let body = Array("user=alice+smith&code=4%262&tag=a&tag=b".utf8)
        #expect(BodyMatcher.form([("user", .equalTo("alice smith")), ("code", .equalTo("4&2"))]).matches(body))
        #expect(BodyMatcher.form([("tag", .equalTo("b")), ("missing", .absent(true))]).matches(body))
        #expect(!BodyMatcher.form([("user", .equalTo("alice"))]).matches(body))
        #expect(!BodyMatcher.form([("missing", .absent(false))]).matches(body))
    }

    @Test("Every condition must hold")
    func allConditions() throws {
        let pattern = RequestPattern(
            method: "POST", host: "api.example.com", url: .path("/login"), query: [("v", .equalTo("2"))],
            headers: [("Content-Type", .contains("json"))], body: [.json(try JSONValue.parse(#"{"u": "x"}"#))])
        let request = HTTPRequest.make(
            method: "POST", target: "/login?v=2", host: "api.example.com",
            headers: ["Content-Type": "application/json"], body: #"{"u":"x"}"#)
        #expect(pattern.matches(request))
        var wrongBody = request
        wrongBody.body = Array(#"{"u":"y"}"#.utf8)
        #expect(!pattern.matches(wrongBody))
    }
}

@Suite("RequestPattern.mismatches")
struct RequestPatternMismatchTests {
    static let pattern = RequestPattern(
        method: "POST", host: "api.example.com", url: .path("/login"), query: [("v", .equalTo("2"))],
        headers: [("X-Token", .equalTo("secret"))], body: [.contains("user")])

    @Test("A matching request has no mismatches")
    func none() {
        let request = HTTPRequest.make(
            method: "POST", target: "/login?v=2", host: "api.example.com", headers: ["x-token": "secret"],
            body: "user=me")
        #expect(Self.pattern.mismatches(request).isEmpty)
    }

    @Test("Each differing field is listed, in order, with its name, expectation and actual value")
    func allFields() {
        let request = HTTPRequest.make(
            method: "GET", target: "/logout?v=3", host: "other.example.com", headers: ["X-Token": "wrong"],
            body: "nobody")
        #expect(
            Self.pattern.mismatches(request) == [
                Mismatch(field: "path", expected: "/login", actual: "/logout"),
                Mismatch(field: "method", expected: "POST", actual: "GET"),
                Mismatch(field: "host", expected: "api.example.com", actual: "other.example.com"),
                Mismatch(field: "query", name: "v", expected: #"equal to "2""#, actual: "3"),
                Mismatch(field: "header", name: "X-Token", expected: #"equal to "secret""#, actual: "wrong"),
                Mismatch(field: "body", expected: #"containing "user""#, actual: "nobody"),
            ])
    }

    @Test("Missing fields have no actual value")
    func missingValues() {
        let request = HTTPRequest.make(method: "POST", target: "/login")
        #expect(
            Self.pattern.mismatches(request) == [
                Mismatch(field: "host", expected: "api.example.com", actual: nil),
                Mismatch(field: "query", name: "v", expected: #"equal to "2""#, actual: nil),
                Mismatch(field: "header", name: "X-Token", expected: #"equal to "secret""#, actual: nil),
                Mismatch(field: "body", expected: #"containing "user""#, actual: nil),
            ])
    }

    @Test("One differing field gives one mismatch naming it", arguments: [
        ("/logout?v=2", "POST", "secret", "user", "path", nil),
        ("/login?v=2", "PUT", "secret", "user", "method", nil),
        ("/login?v=1", "POST", "secret", "user", "query", "v"),
        ("/login?v=2", "POST", "nope", "user", "header", "X-Token"),
        ("/login?v=2", "POST", "secret", "guest", "body", nil),
    ] as [(String, String, String, String, String, String?)])
    func oneField(target: String, method: String, token: String, body: String, field: String, name: String?) {
        let request = HTTPRequest.make(
            method: method, target: target, host: "api.example.com", headers: ["X-Token": token], body: body)
        let mismatches = Self.pattern.mismatches(request)
        #expect(mismatches.map(\.field) == [field])
        #expect(mismatches.first?.name == name)
    }

    @Test("stopAtFirst stops at the first mismatch")
    func stopAtFirst() {
        let request = HTTPRequest.make(method: "GET", target: "/x")
        #expect(Self.pattern.mismatches(request, stopAtFirst: true).map(\.field) == ["path"])
    }

    @Test("url and urlPattern mismatches are reported as field 'url', pathPattern as 'path'")
    func urlFields() throws {
        let request = HTTPRequest.make(target: "/b?x=1")
        let url = RequestPattern(url: .url(path: "/a", query: [QueryItem(name: "x", value: "1")]))
        #expect(url.mismatches(request) == [Mismatch(field: "url", expected: "/a?x=1", actual: "/b?x=1")])
        let urlPattern = RequestPattern(url: .urlPattern(try Pattern("^/a")))
        #expect(urlPattern.mismatches(request) == [Mismatch(field: "url", expected: "/^/a/", actual: "/b?x=1")])
        let pathPattern = RequestPattern(url: .pathPattern(try Pattern("^/a")))
        #expect(pathPattern.mismatches(request) == [Mismatch(field: "path", expected: "/^/a/", actual: "/b")])
    }

    @Test("A mismatch's JSON names its field")
    func mismatchJSON() {
        let mismatch = Mismatch(field: "header", name: "Accept", expected: "x", actual: nil)
        #expect(mismatch.json.encoded == #"{"field":"header","name":"Accept","expected":"x","actual":null}"#)
    }
}
