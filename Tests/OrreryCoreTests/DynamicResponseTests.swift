import Foundation
import Testing
@testable import OrreryCore

@Suite("Dynamic responses: declarations")
struct DynamicDeclarationTests {
    @Test("delay: milliseconds, uniform and lognormal; a fixed delay stays on the prepared response")
    func delays() throws {
        let stubs = try StubText.decode(
            """
            - { request: { path: /a }, response: { delay: 250 } }
            - { request: { path: /b }, response: { delay: { uniform: [100, 300] } } }
            - { request: { path: /c }, response: { delay: { lognormal: { median: 80, sigma: 0.4 } } } }
            """, as: .yaml)
        #expect(stubs.map(\.response.delay) == [.fixed(milliseconds: 250), .uniform(min: 100, max: 300), .lognormal(median: 80, sigma: 0.4)])
        #expect(stubs[0].response.delayMilliseconds == 250)
        #expect(stubs[0].response.dynamic == nil)
        #expect(PreparedResponse(stubs[0].response, compress: nil).delayMilliseconds == 250)
        #expect(stubs[1].response.delayMilliseconds == 0)
        #expect(stubs[1].response.dynamic?.delay == .uniform(min: 100, max: 300))
        #expect(PreparedResponse(stubs[2].response, compress: nil).dynamic?.delay == .lognormal(median: 80, sigma: 0.4))
    }

    @Test("throttle, fault and scenario keys")
    func throttleFaultScenario() throws {
        let stubs = try StubText.decode(
            """
            - request: { path: /slow }
              response: { throttle: { bytesPerSecond: 2048 }, body: "..." }
            - request: { path: /flaky }
              response: { fault: connectionReset }
            - request: { method: POST, path: /cart/checkout }
              scenario: checkout
              requiredState: Started
              newState: paid
              response: { status: 201 }
            """, as: .yaml)
        #expect(stubs[0].response.dynamic?.throttle == Throttle(bytesPerSecond: 2048))
        #expect(stubs[0].response.dynamic?.rendersBody == false)
        #expect(stubs[1].response.dynamic?.fault == .connectionReset)
        #expect(stubs[2].scenario == ScenarioRule(name: "checkout", requiredState: "Started", newState: "paid"))
        #expect(stubs[2].response.dynamic == nil)
    }

    @Test(
        "Misspelt, invalid and conflicting keys are errors with their line",
        arguments: [
            ("response: { fault: connectionRest }", "1: unknown fault 'connectionRest'; did you mean 'connectionReset'? (use connectionReset, emptyResponse, malformedResponse, truncatedBody, noResponse)"),
            ("response: { delay: { unifrom: [1, 2] } }", "1: unknown delay 'unifrom'; did you mean 'uniform'? (use uniform or lognormal, or a number of milliseconds)"),
            ("response: { delay: { uniform: [300, 100] } }", "1: 'uniform' [300, 100]: the minimum must not be above the maximum"),
            ("response: { delay: { lognormal: { median: 80, sigm: 1 } } }", "1: unknown key 'sigm' in 'lognormal'; did you mean 'sigma'?"),
            ("response: { delay: 700000 }", "1: 'delay' 700000 is outside 0...600000"),
            ("response: { throttle: { bytesPerSec: 10 } }", "1: unknown key 'bytesPerSec' in 'throttle'; did you mean 'bytesPerSecond'?"),
            ("response: { throttle: { bytesPerSecond: 0 } }", "1: 'bytesPerSecond' 0 is outside 1...1000000000"),
            ("response: { falt: noResponse }", "1: unknown key 'falt' in 'response'; did you mean 'fault'?"),
            ("response: { templat: true }", "1: unknown key 'templat' in 'response'; did you mean 'template'?"),
            ("response: { fault: connectionReset, status: 500 }", "1: 'fault: connectionReset' sends no response, so 'status' has no effect; leave it out"),
            ("response: { fault: noResponse, delay: 10 }", "1: 'fault: noResponse' never answers, so 'delay' has no effect; leave it out"),
            ("response: { fault: truncatedBody, paginate: { items: [] } }", "1: 'fault' cannot be combined with 'paginate': a fault answers instead of the page"),
            ("response: { paginate: { items: [] }, body: x }", "1: 'paginate' makes the body from its items; leave out 'body'"),
            ("response: { paginate: { items: [] }, template: true }", "1: 'template' cannot be combined with 'paginate': a page's body is made from its items"),
            ("response: { paginate: { items: [], perpage: 3 } }", "1: unknown key 'perpage' in 'paginate'; did you mean 'perPage'?"),
            ("response: { paginate: { perPage: 3 } }", "1: 'paginate' needs 'items': a list, or { bodyFile: file.json }"),
            ("response: { template: true, body: '{{request.path}}', encoding: gzip }", "1: a body made per request ('template', 'paginate') is not encoded ahead; leave out 'encoding: gzip'"),
            ("requiredState: paid\nresponse: {}", "1: 'requiredState' needs a 'scenario' beside it, naming the scenario"),
            ("scenaro: x\nresponse: {}", "1: unknown key 'scenaro' in a stub; did you mean 'scenario'?"),
        ])
    func errors(text: String, message: String) {
        #expect(StubText.errors(text, as: .yaml).map(\.description) == ["stubs/example.yaml:\(message)"])
    }

    @Test("The same errors come from JSON, as the admin API sends it")
    func jsonErrors() {
        let text = """
            {
              "request": { "path": "/a" },
              "response": {
                "fault": "emptyResponce"
              }
            }
            """
        #expect(
            StubText.errors(text, as: .json).map(\.description) == [
                "stubs/example.json:4: unknown fault 'emptyResponce'; did you mean 'emptyResponse'? (use connectionReset, emptyResponse, malformedResponse, truncatedBody, noResponse)"
            ])
    }

    @Test("truncatedBody keeps the response it cuts; faults have their bytes")
    func faults() throws {
        let stub = try StubText.decodeOne("response: { fault: truncatedBody, status: 200, body: abcdef, throttle: { bytesPerSecond: 10 } }")
        #expect(stub.response.fault == .truncatedBody)
        #expect(Fault.truncatedLength(of: 6) == 3)
        #expect(Fault.truncatedLength(of: 1) == 0)
        #expect(!Fault.malformedBytes.starts(with: Array("HTTP/".utf8)))
        #expect(Fault.allCases.filter(\.sendsResponse) == [.truncatedBody])
    }
}

@Suite("Dynamic responses: delays and throttle")
struct DelaySamplingTests {
    @Test("uniform samples stay in range and average the middle")
    func uniform() {
        var generator = SeededGenerator(state: 1)
        let delay = Delay.uniform(min: 100, max: 300)
        let samples = (0..<20_000).map { _ in delay.sample(using: &generator) }
        #expect(samples.allSatisfy { (100...300).contains($0) })
        let mean = Double(samples.reduce(0, +)) / Double(samples.count)
        #expect(abs(mean - 200) < 3)
        #expect(samples.contains(100) && samples.contains(300))
    }

    @Test("lognormal samples: half below the median, about 68% within a factor e^sigma of it")
    func lognormal() {
        var generator = SeededGenerator(state: 2)
        let delay = Delay.lognormal(median: 100, sigma: 0.5)
        let samples = (0..<20_000).map { _ in delay.sample(using: &generator) }
        let below = Double(samples.filter { $0 < 100 }.count) / Double(samples.count)
        #expect(abs(below - 0.5) < 0.02)
        let low = 100 * exp(-0.5)
        let high = 100 * exp(0.5)
        let within = Double(samples.filter { Double($0) >= low && Double($0) <= high }.count) / Double(samples.count)
        #expect(abs(within - 0.6827) < 0.02)
        #expect(samples.allSatisfy { $0 >= 0 && $0 <= Delay.maximumMilliseconds })
    }

    @Test("A fixed delay is always itself")
    func fixed() {
        var generator = SeededGenerator(state: 3)
        #expect(Delay.fixed(milliseconds: 40).sample(using: &generator) == 40)
    }

    @Test("throttle: time to send and bytes per tick")
    func throttle() {
        let throttle = Throttle(bytesPerSecond: 2048)
        #expect(throttle.milliseconds(toSend: 4096) == 2000)
        #expect(throttle.milliseconds(toSend: 1) == 1)
        #expect(throttle.bytesPerTick(milliseconds: 100) == 204)
        #expect(Throttle(bytesPerSecond: 5).bytesPerTick(milliseconds: 10) == 1)
    }
}

@Suite("Dynamic responses: scenarios")
struct ScenarioTests {
    let stubs = [
        Stub(
            id: "empty", name: "empty cart", request: RequestPattern(method: "GET", url: .path("/cart")),
            response: ResponseDefinition(body: Array("[]".utf8)),
            scenario: ScenarioRule(name: "checkout", requiredState: ScenarioStates.started)),
        Stub(
            id: "paid", name: "paid cart", request: RequestPattern(method: "GET", url: .path("/cart")),
            response: ResponseDefinition(body: Array("paid".utf8)),
            scenario: ScenarioRule(name: "checkout", requiredState: "paid")),
        Stub(
            id: "pay", name: "pay", request: RequestPattern(method: "POST", url: .path("/cart/checkout")),
            response: ResponseDefinition(status: 201), scenario: ScenarioRule(name: "checkout", newState: "paid")),
    ]

    @Test("A stub answers only in its required state, and its answer moves the scenario on")
    func flow() throws {
        let index = StubIndex(stubs)
        var states = ScenarioStates()
        #expect(index.lookup(.make(target: "/cart"), scenarioState: { states[$0] })?.stub.id == "empty")
        let pay = try #require(index.lookup(.make(method: "POST", target: "/cart/checkout"), scenarioState: { states[$0] }))
        states.apply(try #require(pay.stub.scenario))
        #expect(states["checkout"] == "paid")
        #expect(index.lookup(.make(target: "/cart"), scenarioState: { states[$0] })?.stub.id == "paid")
        states.reset()
        #expect(states["checkout"] == ScenarioStates.started)
        #expect(index.lookup(.make(target: "/cart"))?.stub.id == "empty")
    }

    @Test("A near miss says the scenario was in another state")
    func nearMiss() throws {
        let index = StubIndex([stubs[1]])
        #expect(index.lookup(.make(target: "/cart")) == nil)
        let miss = try #require(index.nearMisses(.make(target: "/cart")).first)
        #expect(miss.mismatches == [Mismatch(field: "scenario", name: "checkout", expected: "paid", actual: "Started")])
    }
}

@Suite("Dynamic responses: pagination")
struct PaginationTests {
    let repos: [JSONValue] = (1...7).map { number in
        .object([("id", .int(number)), ("name", .string(number % 2 == 0 ? "Swift-\(number)" : "orrery-\(number)"))])
    }

    func page(_ pagination: Pagination, _ target: String) -> RenderedResponse {
        pagination.page(for: .make(target: target, host: "127.0.0.1:8080"))
    }

    func ids(_ response: RenderedResponse, key: String? = nil) throws -> [Int] {
        var json = try JSONValue.parse(response.body)
        if let key { json = try #require(json[key]) }
        guard case .array(let items) = json else { return [] }
        return items.compactMap { item in
            if case .number(let value, _)? = item["id"] { Int(value) } else { nil }
        }
    }

    @Test("The first page, with Link and X-Total-Count; other parameters are kept in the links")
    func firstPage() throws {
        let response = page(Pagination(items: repos, perPage: 3), "/repos?sort=name&per_page=3")
        #expect(response.status == 200)
        #expect(try ids(response) == [1, 2, 3])
        #expect(response.headers["X-Total-Count"] == "7")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(
            response.headers["Link"]
                == #"<http://127.0.0.1:8080/repos?sort=name&per_page=3&page=1>; rel="first", <http://127.0.0.1:8080/repos?sort=name&per_page=3&page=2>; rel="next", <http://127.0.0.1:8080/repos?sort=name&per_page=3&page=3>; rel="last""#)
    }

    @Test("The last page has prev and no next; only the page changes in the links")
    func lastPage() throws {
        let response = page(Pagination(items: repos, perPage: 3), "/repos?page=3&sort=name")
        #expect(try ids(response) == [7])
        #expect(
            response.headers["Link"]
                == #"<http://127.0.0.1:8080/repos?page=1&sort=name>; rel="first", <http://127.0.0.1:8080/repos?page=2&sort=name>; rel="prev", <http://127.0.0.1:8080/repos?page=3&sort=name>; rel="last""#)
    }

    @Test("A page past the end is an empty list")
    func pastTheEnd() throws {
        let response = page(Pagination(items: repos, perPage: 3), "/repos?page=9")
        #expect(response.status == 200)
        #expect(response.bodyText == "[]")
        #expect(response.headers["X-Total-Count"] == "7")
    }

    @Test("An empty collection: one empty first page that is also the last")
    func emptyCollection() {
        let response = page(Pagination(items: [], perPage: 3), "/repos")
        #expect(response.bodyText == "[]")
        #expect(response.headers["X-Total-Count"] == "0")
        #expect(
            response.headers["Link"]
                == #"<http://127.0.0.1:8080/repos?page=1>; rel="first", <http://127.0.0.1:8080/repos?page=1>; rel="last""#)
    }

    @Test("q filters first, ignoring case, on the items' string values; collectionKeyPath wraps the page")
    func queryAndKeyPath() throws {
        let pagination = Pagination(items: repos, collectionKeyPath: ["items"], perPage: 2)
        let response = page(pagination, "/search?q=SWIFT")
        #expect(try ids(response, key: "items") == [2, 4])
        let json = try JSONValue.parse(response.body)
        #expect(json["total_count"] == .int(3))
        #expect(response.headers["X-Total-Count"] == "3")
        #expect(json.objectMembers?.map(\.0) == ["items", "total_count"])
    }

    @Test("Custom parameter names, first page 0, and per_page from the request")
    func customParameters() throws {
        let pagination = Pagination(
            items: repos, perPage: 5, pageParameter: "p", queryParameter: "search", perPageParameter: "size", firstPage: 0)
        #expect(try ids(page(pagination, "/r")) == [1, 2, 3, 4, 5])
        #expect(try ids(page(pagination, "/r?p=1&size=2")) == [3, 4])
        #expect(try ids(page(pagination, "/r?search=orrery&size=2&p=1")) == [5, 7])
    }

    @Test(
        "A page that is not a number or below the first is a 400 with a clear message",
        arguments: [
            ("/repos?page=abc", "page 'abc' is not a page number: pages are whole numbers from 1."),
            ("/repos?page=0", "page 0 is below the first page, 1."),
            ("/repos?page=", "page '' is not a page number: pages are whole numbers from 1."),
            ("/repos?per_page=0", "per_page 0 is not a page size: give a whole number from 1."),
        ])
    func badPages(target: String, message: String) throws {
        let response = page(Pagination(items: repos), target)
        #expect(response.status == 400)
        let json = try JSONValue.parse(response.body)
        #expect(json["message"] == .string(message))
        #expect(json["failureReason"] != nil)
    }

    @Test("paginate in a stub: inline items or a body file; the response renders per request")
    func decoded() throws {
        try withStubFiles([
            "stubs/bodies/repos.json": #"{"total_count": 3, "items": [{"id": 1}, {"id": 2}, {"id": 3}]}"#,
            "stubs/search.yaml": """
                - request: { path: /search/repositories }
                  response:
                    headers: { X-Source: fixture }
                    paginate:
                      items: { bodyFile: bodies/repos.json }
                      collectionKeyPath: items
                      perPage: 2
                - request: { path: /tags }
                  response:
                    paginate: { items: [a, b, c], perPage: 2 }
                """,
        ]) { folder in
            let loaded = folder.loadStubs()
            #expect(loaded.errors.isEmpty)
            let search = try #require(loaded.stubs.first?.response.dynamic)
            #expect(search.rendersBody)
            let second = search.render(.make(target: "/search/repositories?page=2", host: "h"))
            #expect(try ids(second, key: "items") == [3])
            #expect(second.headers["X-Source"] == "fixture")
            let tags = try #require(loaded.stubs.last?.response.dynamic)
            #expect(tags.render(.make(target: "/tags?page=2")).bodyText == #"["c"]"#)
            #expect(tags.render(.make(target: "/tags?page=2")).headers["Link"]?.hasPrefix("</tags?page=1>") == true)
        }
    }
}
