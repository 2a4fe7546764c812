import Testing
@testable import OrreryCore

@Suite("StubIndex.lookup")
struct StubIndexLookupTests {
    /// The name of the stub that answers, or nil.
    func winner(_ stubs: [Stub], _ request: HTTPRequest) -> String? {
        StubIndex(stubs).lookup(request)?.stub.name
    }

    @Test("An exact route is found among others")
    func exactRoute() {
        let stubs = [
            Stub.make(name: "a", path: "/a"), .make(name: "b", path: "/b"), .make(name: "post b", method: "POST", path: "/b"),
        ]
        #expect(winner(stubs, .make(target: "/b")) == "b")
        #expect(winner(stubs, .make(method: "POST", target: "/b")) == "post b")
        #expect(winner(stubs, .make(target: "/a?any=query")) == "a")
    }

    @Test("A method-specific stub beats an any-method stub on the same path, whatever the load order")
    func methodBeatsAny() {
        let stubs = [Stub.make(name: "any", method: nil, path: "/a"), .make(name: "get", method: "GET", path: "/a")]
        #expect(winner(stubs, .make(method: "GET", target: "/a")) == "get")
        #expect(winner(stubs.reversed(), .make(method: "GET", target: "/a")) == "get")
        #expect(winner(stubs, .make(method: "DELETE", target: "/a")) == "any")
    }

    @Test("The most specific matching stub wins")
    func mostSpecific() {
        let stubs = [
            Stub.make(name: "plain", path: "/a"),
            .make(name: "one header", path: "/a", headers: [("X-Env", .equalTo("qa"))]),
            .make(name: "two headers", path: "/a", headers: [("X-Env", .equalTo("qa")), ("X-Beta", .absent(false))]),
        ]
        #expect(winner(stubs, .make(target: "/a")) == "plain")
        #expect(winner(stubs, .make(target: "/a", headers: ["X-Env": "qa"])) == "one header")
        #expect(winner(stubs, .make(target: "/a", headers: ["X-Env": "qa", "X-Beta": "1"])) == "two headers")
        #expect(winner(stubs.reversed(), .make(target: "/a", headers: ["X-Env": "qa"])) == "one header")
    }

    @Test("An exact path beats a pattern; a pattern beats no URL condition")
    func urlSpecificity() throws {
        let stubs = [
            Stub.make(name: "anything", method: nil, url: .any),
            .make(name: "pattern", url: .pathPattern(try Pattern("^/users/[0-9]+$"))),
            .make(name: "exact", path: "/users/7"),
        ]
        #expect(winner(stubs, .make(target: "/users/7")) == "exact")
        #expect(winner(stubs, .make(target: "/users/8")) == "pattern")
        #expect(winner(stubs, .make(target: "/orders")) == "anything")
    }

    @Test("An explicit priority beats specificity, and a lower number wins")
    func priority() {
        let stubs = [
            Stub.make(name: "specific", path: "/a", headers: [("X-Env", .equalTo("qa"))]),
            .make(name: "priority 5", priority: 5, path: "/a"),
            .make(name: "priority 2", priority: 2, method: nil, path: "/a"),
        ]
        let request = HTTPRequest.make(target: "/a", headers: ["X-Env": "qa"])
        #expect(winner(stubs, request) == "priority 2")
        #expect(winner(Array(stubs.prefix(2)), request) == "priority 5")
        #expect(winner(stubs, .make(method: "PUT", target: "/a")) == "priority 2")
    }

    @Test("A negative priority beats a positive one")
    func negativePriority() {
        let stubs = [Stub.make(name: "zero", priority: 0, path: "/a"), .make(name: "minus", priority: -1, path: "/a")]
        #expect(winner(stubs, .make(target: "/a")) == "minus")
    }

    @Test("Ties are broken by load order: the first loaded wins")
    func loadOrder() {
        let stubs = [
            Stub.make(name: "first", path: "/a"), .make(name: "second", path: "/a"), .make(name: "third", path: "/a"),
        ]
        #expect(winner(stubs, .make(target: "/a")) == "first")
        #expect(winner(stubs.reversed(), .make(target: "/a")) == "third")
        let prioritized = [
            Stub.make(name: "p first", priority: 1, method: nil, path: "/b"),
            .make(name: "p second", priority: 1, path: "/b", headers: [("X", .absent(true))]),
        ]
        #expect(winner(prioritized, .make(target: "/b")) == "p second", "equal priority: the more specific wins")
    }

    @Test("A pattern stub with a better priority beats an exact stub")
    func patternWithPriority() throws {
        let stubs = [
            Stub.make(name: "exact", path: "/users/7"),
            .make(name: "maintenance", priority: 1, method: nil, url: .pathPattern(try Pattern("^/users/"))),
        ]
        #expect(winner(stubs, .make(target: "/users/7")) == "maintenance")
        let samePriority = [
            Stub.make(name: "exact", priority: 1, path: "/users/7"),
            .make(name: "pattern", priority: 1, url: .pathPattern(try Pattern("^/users/"))),
        ]
        #expect(winner(samePriority, .make(target: "/users/7")) == "exact")
    }

    @Test("A stub that does not match is passed over for the next best")
    func fallsThrough() {
        let stubs = [
            Stub.make(name: "needs token", priority: 1, path: "/a", headers: [("X-Token", .equalTo("t"))]),
            .make(name: "plain", path: "/a"),
        ]
        #expect(winner(stubs, .make(target: "/a")) == "plain")
        #expect(winner(stubs, .make(target: "/a", headers: ["X-Token": "t"])) == "needs token")
    }

    @Test("HEAD falls back to GET stubs, but a HEAD stub is preferred")
    func headFallsBackToGet() throws {
        let get = [Stub.make(name: "get", path: "/a"), .make(name: "get pattern", url: .pathPattern(try Pattern("^/p/")))]
        #expect(winner(get, .make(method: "HEAD", target: "/a")) == "get")
        #expect(winner(get, .make(method: "HEAD", target: "/p/1")) == "get pattern")
        let withHead = get + [.make(name: "head", method: "HEAD", path: "/a")]
        #expect(winner(withHead, .make(method: "HEAD", target: "/a")) == "head")
        #expect(winner(get, .make(method: "POST", target: "/a")) == nil)
    }

    @Test("A request that matches no stub gets nil")
    func noMatch() {
        let stubs = [
            Stub.make(name: "a", path: "/a", headers: [("X-Token", .equalTo("t"))]),
            .make(name: "post b", method: "POST", path: "/b"),
        ]
        #expect(winner(stubs, .make(target: "/a")) == nil)
        #expect(winner(stubs, .make(target: "/b")) == nil)
        #expect(winner(stubs, .make(target: "/c")) == nil)
        #expect(winner([], .make(target: "/")) == nil)
    }

    @Test("Host conditions are checked on exact routes")
    func hostCondition() {
        let stubs = [
            Stub.make(name: "prod", host: "api.example.com", path: "/a"),
            .make(name: "qa", host: "qa.example.com", path: "/a"),
        ]
        #expect(winner(stubs, .make(target: "/a", host: "qa.example.com:8080")) == "qa")
        #expect(winner(stubs, .make(target: "/a", host: "localhost")) == nil)
    }

    @Test("Lookup among 20,000 exact stubs finds the right one")
    func manyStubs() throws {
        let stubs = (0..<20_000).map { index in
            Stub.make(id: "id-\(index)", method: index % 2 == 0 ? "GET" : "POST", path: "/items/\(index)")
        }
        let index = StubIndex(stubs)
        #expect(index.count == 20_000)
        #expect(index.lookup(.make(target: "/items/12344"))?.stub.id == "id-12344")
        #expect(index.lookup(.make(method: "POST", target: "/items/19999"))?.stub.id == "id-19999")
        #expect(index.lookup(.make(method: "POST", target: "/items/12344")) == nil)
        #expect(index.lookup(.make(target: "/items/20000")) == nil)
        #expect(index.stub(id: "id-777")?.stub.request.url.exactPath == "/items/777")
    }

    @Test("A path no exact stub has skips the route table, and every path a stub has is still found")
    func exactPathFilter() {
        // 3,000 paths fill many of the filter's bits: each is found, the paths between them are not.
        let stubs = (0..<3_000).map { Stub.make(id: "id-\($0)", path: "/p/\($0 * 2)") }
        let index = StubIndex(stubs)
        #expect((0..<3_000).allSatisfy { index.lookup(.make(target: "/p/\($0 * 2)"))?.stub.id == "id-\($0)" })
        #expect((0..<3_000).allSatisfy { index.lookup(.make(target: "/p/\($0 * 2 + 1)")) == nil })
        // A path beyond ASCII compares canonically, as a string does: the Kelvin sign is the letter K, é composed
        // or not is the same path.
        let kelvin = [Stub.make(name: "kelvin", path: "/\u{212A}"), .make(name: "cafe", path: "/caf\u{E9}")]
        #expect(winner(kelvin, .make(target: "/K")) == "kelvin")
        #expect(winner(kelvin, .make(target: "/cafe\u{301}")) == "cafe")
        #expect(winner(kelvin, .make(target: "/caf%C3%A9")) == "cafe")
        #expect(winner(kelvin, .make(target: "/k")) == nil)
        // No exact stub at all: a template or pattern stub still answers.
        let template = [Stub.make(name: "any", method: nil, url: .any)]
        #expect(winner(template, .make(target: "/x")) == "any")
    }

    @Test("Ranks order by priority, then specificity, then load order")
    func ranks() {
        typealias Rank = IndexedStub.Rank
        #expect(Rank(priority: 1, specificity: 0, order: 9) < Rank(priority: 2, specificity: 99, order: 0))
        #expect(Rank(priority: 1, specificity: 50, order: 9) < Rank(priority: 1, specificity: 40, order: 0))
        #expect(Rank(priority: 1, specificity: 50, order: 0) < Rank(priority: 1, specificity: 50, order: 1))
        #expect(!(Rank(priority: 1, specificity: 50, order: 1) < Rank(priority: 1, specificity: 50, order: 1)))
    }

    @Test("Specificity grows with each condition")
    func specificity() throws {
        #expect(RequestPattern().specificity == 0)
        #expect(RequestPattern(url: .pathPattern(try Pattern("x"))).specificity < RequestPattern(url: .path("/x")).specificity)
        #expect(RequestPattern(url: .path("/x")).specificity < RequestPattern(url: .url(path: "/x", query: [])).specificity)
        let base = RequestPattern(url: .path("/x"))
        let more = [
            RequestPattern(method: "GET", url: .path("/x")),
            RequestPattern(host: "h", url: .path("/x")),
            RequestPattern(url: .path("/x"), query: [("q", .equalTo("1"))]),
            RequestPattern(url: .path("/x"), headers: [("H", .equalTo("1"))]),
            RequestPattern(url: .path("/x"), body: [.contains("1")]),
        ]
        for pattern in more {
            #expect(pattern.specificity > base.specificity)
        }
    }
}

@Suite("StubIndex.nearMisses")
struct StubIndexNearMissTests {
    @Test("Same path, different method: the method is what differs")
    func differentMethod() throws {
        let index = StubIndex([Stub.make(name: "create", method: "POST", path: "/users"), .make(name: "other", path: "/orders")])
        let misses = index.nearMisses(.make(method: "GET", target: "/users"))
        try #require(misses.count == 1)
        #expect(misses.first?.stub.stub.name == "create")
        #expect(misses.first?.mismatches == [Mismatch(field: "method", expected: "POST", actual: "GET")])
    }

    @Test("Same path, missing header: the header is named")
    func wrongHeader() throws {
        let bearer = try Pattern("^Bearer ")
        let index = StubIndex([Stub.make(name: "secured", path: "/me", headers: [("Authorization", .matches(bearer))])])
        let misses = index.nearMisses(.make(target: "/me", headers: ["Authorization": "Basic abc"]))
        #expect(misses.map(\.stub.stub.name) == ["secured"])
        #expect(misses.first?.mismatches.map(\.field) == ["header"])
        #expect(misses.first?.mismatches.first?.name == "Authorization")
        #expect(misses.first?.mismatches.first?.actual == "Basic abc")
    }

    @Test("An unknown path lists the stubs under the nearest shared prefix, with field 'path'")
    func sharedPrefix() {
        let index = StubIndex([
            Stub.make(name: "users", path: "/api/v1/users"),
            .make(name: "orders", path: "/api/v1/orders"),
            .make(name: "v2", path: "/api/v2/users"),
            .make(name: "other", path: "/other/thing"),
        ])
        let misses = index.nearMisses(.make(target: "/api/v1/unknown"))
        #expect(Set(misses.map { $0.stub.stub.name ?? "" }) == ["users", "orders"])
        #expect(misses.allSatisfy { $0.mismatches.map(\.field) == ["path"] })
        #expect(misses.first?.mismatches.first?.actual == "/api/v1/unknown")
    }

    @Test("Fewest differences come first")
    func ordering() {
        let index = StubIndex([
            Stub.make(name: "wrong method and header", method: "POST", path: "/a", headers: [("X", .equalTo("1"))]),
            .make(name: "wrong header", path: "/a", headers: [("X", .equalTo("1"))]),
        ])
        let misses = index.nearMisses(.make(target: "/a"))
        #expect(misses.map(\.stub.stub.name) == ["wrong header", "wrong method and header"])
        #expect(misses.map(\.mismatches.count) == [1, 2])
    }

    @Test("Pattern stubs are considered too")
    func patterns() throws {
        let index = StubIndex([Stub.make(name: "user", method: "DELETE", url: .pathPattern(try Pattern("^/users/[0-9]+$")))])
        let misses = index.nearMisses(.make(target: "/users/7"))
        #expect(misses.map(\.stub.stub.name) == ["user"])
        #expect(misses.first?.mismatches.map(\.field) == ["method"])
    }

    @Test("The list is limited to `limit`", arguments: [1, 3, 5])
    func limit(limit: Int) {
        let stubs = (0..<10).map { Stub.make(name: "s\($0)", method: "POST", path: "/api/items/\($0)") }
        let index = StubIndex(stubs)
        #expect(index.nearMisses(.make(target: "/api/items/x"), limit: limit).count == limit)
        #expect(index.nearMisses(.make(target: "/api/items/3"), limit: limit).count == limit)
        #expect(index.nearMisses(.make(target: "/api/items/3"), limit: limit).first?.stub.stub.name == "s3")
    }

    @Test("A request with nothing nearby gets no near misses")
    func nothingNearby() {
        let index = StubIndex([Stub.make(name: "a", path: "/api/a")])
        #expect(index.nearMisses(.make(target: "/elsewhere")).isEmpty)
    }

    @Test("prefixes(of:) lists the proper ancestors, shortest first", arguments: [
        ("/a/b/c", ["/a", "/a/b"]), ("/a", []), ("/", []), ("/a/", ["/a"]),
    ])
    func prefixes(path: String, expected: [String]) {
        #expect(StubIndex.prefixes(of: path) == expected)
    }
}
