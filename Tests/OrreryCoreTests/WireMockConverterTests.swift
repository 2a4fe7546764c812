import Foundation
import Testing
@testable import OrreryCore

@Suite("WireMock mappings as native stubs")
struct WireMockConverterTests {
    /// Loads a WireMock root made of `files` (paths under the root) and answers `request` from it.
    private func serve(_ files: [String: String], _ requests: [HTTPRequest]) throws -> (names: [String?], issues: [WireMockIssue], stubs: [Stub]) {
        func under(_ folder: String) -> [String: String] {
            Dictionary(uniqueKeysWithValues: files.compactMap { path, text in
                path.hasPrefix(folder + "/") ? (String(path.dropFirst(folder.count + 1)), text) : nil
            })
        }
        let root = WireMockLoader.Root(
            path: "root", mappings: MemoryStubSource(root: "root/mappings", texts: under("mappings")),
            bodyFiles: MemoryStubSource(root: "root/__files", texts: under("__files")))
        do {
            let loaded = try WireMockLoader(sources: [root]).load()
            let index = StubIndex(loaded.stubs)
            return (requests.map { index.lookup($0)?.stub.name }, loaded.issues, loaded.stubs)
        }
    }

    @Test("proxyBaseUrl becomes a forward to that base URL, joined to the request's path and query as text")
    func proxyBaseUrl() throws {
        let mappings = #"""
            {"mappings": [
              {"name": "proxy", "request": {"urlPathPattern": "/api/.*"}, "response": {
                "proxyBaseUrl": "http://127.0.0.1:8087/base/", "additionalProxyRequestHeaders": {"X-Added": "yes"},
                "removeProxyRequestHeaders": ["X-Secret"], "fixedDelayMilliseconds": 5, "status": 500}},
              {"name": "bad", "request": {"urlPath": "/bad"}, "response": {"proxyBaseUrl": "ftp://example.com"}}
            ]}
            """#
        let served = try serve(["mappings/m.json": mappings], [.make(method: "GET", target: "/api/a?b=1")])
        #expect(served.names == ["proxy"])
        let target = try #require(served.stubs.first { $0.name == "proxy" }?.responses.first?.proxy)
        #expect(target.upstream.origin == "http://127.0.0.1:8087")
        #expect(target.target(for: "/api/a?b=1") == "/base//api/a?b=1")
        #expect(target.addedHeaders.map(\.name) == ["X-Added"])
        #expect(target.removedHeaders == ["X-Secret"])
        #expect(served.stubs.first { $0.name == "proxy" }?.responses.first?.delayMilliseconds == 5)
        #expect(served.issues.contains { $0.description.contains("ftp://example.com") }, "\(served.issues)")
    }

    @Test("equalToXml and matchesXPath (with a sub-matcher and namespaces) match XML bodies")
    func xml() throws {
        let mappings = #"""
            {"mappings": [
              {"name": "doc", "request": {"urlPath": "/xml", "bodyPatterns": [{"equalToXml": "<order><id>7</id></order>"}]}, "response": {}},
              {"name": "path", "request": {"urlPath": "/xpath", "bodyPatterns": [
                {"matchesXPath": {"expression": "//s:Body/item/@sku", "matches": "A[0-9]"}, "xPathNamespaces": {"s": "urn:soap"}}]}, "response": {}}
            ]}
            """#
        func post(_ path: String, _ body: String) -> HTTPRequest { .make(method: "POST", target: path, body: body) }
        let served = try serve(
            ["mappings/m.json": mappings],
            [
                post("/xml", "<order>\n  <id>7</id>\n</order>"), post("/xml", "<order><id>8</id></order>"),
                post("/xpath", #"<e:Envelope xmlns:e="urn:soap"><e:Body><item sku="A1"/></e:Body></e:Envelope>"#),
                post("/xpath", #"<e:Envelope xmlns:e="urn:soap"><e:Body><item sku="B1"/></e:Body></e:Envelope>"#),
            ])
        #expect(served.names == ["doc", nil, "path", nil])
        #expect(
            served.issues.map { "\($0.jsonPath) \($0.effect)" } == [
                "$.mappings[1].request.bodyPatterns[0].xPathNamespaces differs"
            ])
    }

    @Test("A lower priority number wins; among equals the mapping loaded last wins, as in WireMock")
    func order() throws {
        let mappings = #"""
            {"mappings": [
              {"name": "pattern", "request": {"urlPathPattern": "/users/.*"}, "response": {"status": 200}},
              {"name": "exact", "request": {"urlPath": "/users/7"}, "response": {"status": 200}},
              {"name": "catch-all", "request": {"urlPattern": ".*"}, "response": {"status": 404}},
              {"name": "urgent", "priority": 1, "request": {"urlPathPattern": "/users/[0-9]+"}, "response": {"status": 200}}
            ]}
            """#
        let served = try serve(["mappings/all.json": mappings], [.make(target: "/users/7"), .make(target: "/users/x"), .make(target: "/other")])
        #expect(served.issues == [])
        // Orrery's own rules would prefer the exact path; WireMock's are priority, then the newest.
        #expect(served.names == ["urgent", "catch-all", "catch-all"])
    }

    @Test("url is the path and query exactly, in their order; the patterns must match the whole URL")
    func urls() throws {
        let mappings = #"""
            {"mappings": [
              {"name": "url", "request": {"method": "GET", "url": "/search?q=a&page=2"}, "response": {}},
              {"name": "path", "request": {"urlPath": "/things"}, "response": {}},
              {"name": "pattern", "request": {"urlPattern": "/item/[0-9]+"}, "response": {}}
            ]}
            """#
        let served = try serve(["mappings/m.json": mappings], [
            .make(target: "/search?q=a&page=2"), .make(target: "/search?page=2&q=a"), .make(target: "/things?x=1"),
            .make(target: "/item/12"), .make(target: "/item/12/more"), .make(target: "/x/item/12"),
        ])
        #expect(served.names == ["url", nil, "path", "pattern", nil, nil])
    }

    @Test("Percent-escapes in a url or a URL regex stand for the characters Orrery's decoded path holds")
    func escapes() throws {
        let mappings = #"""
            {"mappings": [
              {"name": "url", "request": {"url": "/c%20d?x=1%202"}, "response": {}},
              {"name": "pattern", "request": {"urlPathPattern": "/g%20[a-z]+"}, "response": {}}
            ]}
            """#
        let served = try serve(["mappings/m.json": mappings], [
            .make(target: "/c%20d?x=1%202"), .make(target: "/g%20abc"), .make(target: "/g%2520abc"),
        ])
        #expect(served.names == ["url", "pattern", nil])
    }

    @Test("Value matchers: case-insensitive equality, doesNotContain, whole-text regexes, and/or, absent")
    func valueMatchers() throws {
        let mapping = #"""
            {"name": "m", "request": {"urlPath": "/v", "headers": {
                "X-Mode": {"equalTo": "Fast", "caseInsensitive": true},
                "X-Agent": {"doesNotContain": "bot"},
                "X-Id": {"matches": "[0-9]+"},
                "X-Either": {"or": [{"equalTo": "a"}, {"equalTo": "b"}]},
                "X-Never": {"absent": true}
            }}, "response": {}}
            """#
        func request(_ mode: String, _ agent: String, _ id: String, _ either: String, never: Bool = false) -> HTTPRequest {
            var headers: HTTPHeaders = ["X-Mode": mode, "X-Agent": agent, "X-Id": id, "X-Either": either]
            if never { headers.add("X-Never", "1") }
            return .make(target: "/v", headers: headers)
        }
        let served = try serve(["mappings/m.json": mapping], [
            request("FAST", "curl", "42", "b"), request("fast", "googlebot", "42", "a"), request("fast", "curl", "42x", "a"),
            request("fast", "curl", "42", "c"), request("fast", "curl", "42", "a", never: true),
        ])
        #expect(served.names == ["m", nil, nil, nil, nil])
    }

    @Test("Cookies and basic credentials are conditions on the Cookie and Authorization headers")
    func cookiesAndCredentials() throws {
        let mapping = #"""
            {"name": "m", "request": {"urlPath": "/me",
              "cookies": {"session": {"equalTo": "abc"}},
              "basicAuthCredentials": {"username": "ada", "password": "lovelace"}}, "response": {}}
            """#
        let authorization = "Basic " + Data("ada:lovelace".utf8).base64EncodedString()
        let served = try serve(["mappings/m.json": mapping], [
            .make(target: "/me", headers: ["Cookie": "theme=dark; session=abc", "Authorization": authorization]),
            .make(target: "/me", headers: ["Cookie": "session=abcd", "Authorization": authorization]),
            .make(target: "/me", headers: ["Cookie": "session=abc", "Authorization": "Basic eA=="]),
        ])
        #expect(served.names == ["m", nil, nil])
    }

    @Test("Body patterns: equalToJson with its options, matchesJsonPath with a matcher, several patterns at once")
    func bodies() throws {
        let mappings = #"""
            {"mappings": [
              {"name": "json", "request": {"urlPath": "/j", "bodyPatterns": [
                {"equalToJson": "{\"a\": [1, 2], \"b\": \"${json-unit.ignore}\"}", "ignoreArrayOrder": true, "ignoreExtraElements": true, "enablePlaceholders": true}]},
               "response": {}},
              {"name": "path", "request": {"urlPath": "/p", "bodyPatterns": [
                {"matchesJsonPath": {"expression": "$.user.name", "equalTo": "ada"}}, {"doesNotContain": "test"}]},
               "response": {}}
            ]}
            """#
        let served = try serve(["mappings/m.json": mappings], [
            .make(method: "POST", target: "/j", body: #"{"a": [2, 1], "b": 7, "c": true}"#),
            .make(method: "POST", target: "/j", body: #"{"a": [2], "b": 7}"#),
            .make(method: "POST", target: "/p", body: #"{"user": {"name": "ada"}}"#),
            .make(method: "POST", target: "/p", body: #"{"user": {"name": "ada"}, "test": 1}"#),
        ])
        #expect(served.issues == [])
        #expect(served.names == ["json", nil, "path", nil])
    }

    @Test("Responses: JSON bodies compact, no Content-Type that the mapping does not give, faults and delays by WireMock's names")
    func responses() throws {
        let mappings = #"""
            {"mappings": [
              {"name": "json", "request": {"urlPath": "/json"}, "response": {"status": 201, "jsonBody": {"a": [1, {"b": null}]}}},
              {"name": "file", "request": {"urlPath": "/file"}, "response": {"bodyFileName": "data/x.json", "fixedDelayMilliseconds": 5,
                "delayDistribution": {"type": "uniform", "lower": 10, "upper": 20}}},
              {"name": "reset", "request": {"urlPath": "/reset"}, "response": {"status": 200, "fault": "CONNECTION_RESET_BY_PEER"}},
              {"name": "slow", "request": {"urlPath": "/slow"}, "response": {"body": "0123456789", "chunkedDribbleDelay": {"numberOfChunks": 5, "totalDuration": 1000}}}
            ]}
            """#
        let served = try serve(["mappings/m.json": mappings, "__files/data/x.json": #"{"x": 1}"#], [])
        #expect(served.issues == [])
        let stubs = Dictionary(uniqueKeysWithValues: served.stubs.map { ($0.name ?? "", $0.response) })
        #expect(stubs["json"]?.status == 201)
        #expect(String(decoding: stubs["json"]?.body ?? [], as: UTF8.self) == #"{"a":[1,{"b":null}]}"#)
        #expect(stubs["json"]?.headers.contains("Content-Type") == false)
        #expect(String(decoding: stubs["file"]?.body ?? [], as: UTF8.self) == #"{"x": 1}"#)
        #expect(stubs["file"]?.headers.contains("Content-Type") == false)
        #expect(stubs["file"]?.delay == .uniform(min: 15, max: 25))
        #expect(stubs["reset"]?.fault == .connectionReset)
        #expect(stubs["slow"]?.throttle?.bytesPerSecond == 10)
    }

    @Test("What cannot be honoured is reported with file, line, JSON path and reason, and that mapping is not served")
    func issues() throws {
        let mappings = #"""
            {"mappings": [
              {"name": "ok", "request": {"urlPath": "/ok"}, "response": {}},
              {"name": "xml", "request": {"urlPath": "/xml",
                "bodyPatterns": [{"equalToXml": "<a>"}]}, "response": {}},
              {"id": "not-a-uuid", "request": {"urlPath": "/id"}, "response": {}},
              {"name": "helper", "request": {"urlPath": "/t"}, "response": {"body": "{{lookup request.query 'x'}}", "transformers": ["response-template"]}}
            ]}
            """#
        let served = try serve(["mappings/m.json": mappings], [.make(target: "/ok"), .make(target: "/xml")])
        #expect(served.names == ["ok", nil])
        #expect(served.stubs.map(\.name) == ["ok"])
        let described = served.issues.map { "\($0.line) \($0.jsonPath) \($0.effect)" }
        #expect(described == [
            "4 $.mappings[1].request.bodyPatterns[0].equalToXml skipped",
            "5 $.mappings[2].id skipped",
            "6 $.mappings[3].response.body skipped",
        ])
        #expect(served.issues.first?.file.hasSuffix("mappings/m.json") == true)
        #expect(served.issues.last?.reason.contains("helper 'lookup' is not supported") == true)
    }

    @Test("Scenarios keep WireMock's names, with Started first")
    func scenarios() throws {
        let mappings = #"""
            {"mappings": [
              {"name": "empty", "scenarioName": "cart", "requiredScenarioState": "Started", "request": {"urlPath": "/cart"}, "response": {}},
              {"name": "add", "scenarioName": "cart", "newScenarioState": "full", "request": {"method": "POST", "urlPath": "/cart"}, "response": {}}
            ]}
            """#
        let served = try serve(["mappings/m.json": mappings], [])
        #expect(served.stubs.map { $0.scenario?.name } == ["cart", "cart"])
        #expect(served.stubs.map { $0.scenario?.requiredState } == ["Started", nil])
        #expect(served.stubs.map { $0.scenario?.newState } == [nil, "full"])
    }
}
