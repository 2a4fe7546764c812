import Testing
@testable import OrreryCore

@Suite("Path templates")
struct PathTemplateTests {
    @Test("{name} matches one whole, non-empty segment; values are the decoded segments")
    func matching() throws {
        let template = try #require(try PathTemplate.parse("/users/{id}/posts/{post}"))
        #expect(template.parameterNames == ["id", "post"])
        #expect(template.literalPrefix == "/users")
        #expect(template.match("/users/7/posts/x y")?.values == ["7", "x y"])
        #expect(template.match("/users/7/posts/x")?["post"] == "x")
        #expect(template.match("/users//posts/x") == nil)
        #expect(template.match("/users/7/posts") == nil)
        #expect(template.match("/users/7/posts/x/") == nil)
        #expect(template.match("/users/7/comments/x") == nil)
        #expect(try PathTemplate.parse("/users") == nil)
    }

    @Test("Literal segments compare as Swift compares strings: bytes first, canonical equivalence for non-ASCII")
    func literalComparison() throws {
        // The stub writes é precomposed; a request may bring it decomposed (e + U+0301), which Swift calls equal.
        let template = try #require(try PathTemplate.parse("/caf\u{E9}/{id}"))
        #expect(template.match("/caf\u{E9}/1")?.values == ["1"])
        #expect(template.match("/cafe\u{301}/2")?.values == ["2"])
        #expect(template.matches("/cafe\u{301}/2"))
        #expect(!template.matches("/cafe/2"))
        #expect(template.match("/cafx/2") == nil)
        let ascii = try #require(try PathTemplate.parse("/a/{id}/b"))
        for path in ["/a/1/b", "/a/1/c", "/a//b", "/a/1", "/a/1/b/", "a/1/b", "/", "", "/a/\u{E9}/b", "/b/1/b"] {
            #expect(ascii.matches(path) == (ascii.match(path) != nil), "\(path)")
        }
        #expect(ascii.match("/a/\u{E9}/b")?.values == ["\u{E9}"])
    }

    @Test("A prefix template matches the paths below it")
    func prefix() throws {
        let template = try #require(try PathTemplate.parse("/orgs/{org}")).asPrefix
        #expect(template.match("/orgs/acme")?["org"] == "acme")
        #expect(template.match("/orgs/acme/repos/x")?["org"] == "acme")
        #expect(template.match("/orgs") == nil)
    }

    @Test(
        "Braces that are not a whole-segment parameter are errors",
        arguments: [
            ("/files/{name}.json", "'{name}.json': a path parameter is a whole segment, such as /users/{id} (write a literal brace as %7B or %7D)"),
            ("/a/{}", "'{}' is not a path parameter name (letters, digits, '_' and '-')"),
            ("/a/{x}/{x}", "the path parameter '{x}' appears twice"),
        ])
    func errors(path: String, message: String) {
        #expect(throws: PathTemplateError(message: message)) { try PathTemplate.parse(path) }
    }

    @Test("Stub paths: parameters in path, url and base.path; %7B stays a literal brace")
    func decoding() throws {
        let stubs = try StubText.decode(
            """
            base: { path: "/orgs/{org}" }
            stubs:
              - request: { path: "/repos/{repo}" }
                response: {}
              - request: { url: "/members?role=admin" }
                response: {}
              - request: { method: GET }
                response: {}
            """, as: .yaml)
        #expect(stubs.map(\.request.url.summary) == ["pathTemplate /orgs/{org}/repos/{repo}", "urlTemplate /orgs/{org}/members?role=admin", "pathTemplate /orgs/{org}/…"])
        let literal = try StubText.decodeOne(#"{ "request": { "path": "/a/%7Bid%7D" }, "response": {} }"#, as: .json)
        #expect(literal.request.url.summary == "path /a/{id}")
        let based = try StubText.decodeOne("base: { path: /api }\nstubs: [ { request: { path: '/u/{id}' }, response: {} } ]")
        #expect(based.request.url.summary == "pathTemplate /api/u/{id}")
        #expect(based.request.pathParameters(.make(target: "/api/u/5"))["id"] == "5")
    }

    @Test("A misused brace in a stub path is an error on its line")
    func decodingError() {
        #expect(
            StubText.errors("request:\n  path: /f/{name}.json\nresponse: {}", as: .yaml).map(\.description) == [
                "stubs/example.yaml:2: path '/f/{name}.json': '{name}.json': a path parameter is a whole segment, such as /users/{id} (write a literal brace as %7B or %7D)"
            ])
    }
}

@Suite("StubIndex with path templates")
struct StubIndexTemplateTests {
    func template(_ name: String, _ path: String, method: String? = "GET", priority: Int? = nil) throws -> Stub {
        Stub.make(name: name, priority: priority, method: method, url: .pathTemplate(try #require(try PathTemplate.parse(path))))
    }

    @Test("A template answers its paths; an exact path beats it; it beats a regex")
    func ranking() throws {
        let stubs = [
            try template("user", "/users/{id}"),
            Stub.make(name: "me", path: "/users/me"),
            Stub.make(name: "regex", url: .pathPattern(try Pattern("^/users/"))),
        ]
        let index = StubIndex(stubs)
        #expect(index.lookup(.make(target: "/users/7"))?.stub.name == "user")
        #expect(index.lookup(.make(target: "/users/me"))?.stub.name == "me")
        #expect(index.lookup(.make(target: "/users/7/x"))?.stub.name == "regex")
        #expect(RequestPattern(url: .pathPattern(try Pattern("x"))).specificity < stubs[0].request.specificity)
        #expect(stubs[0].request.specificity < RequestPattern(method: "GET", url: .path("/x")).specificity)
    }

    @Test("More literal segments win; methods and any-method buckets; root-level parameters")
    func buckets() throws {
        let stubs = [
            try template("any two", "/{a}/{b}"),
            try template("posts", "/users/{id}/posts"),
            try template("user", "/users/{id}"),
            try template("delete user", "/users/{id}", method: "DELETE"),
            try template("any method", "/things/{id}", method: nil),
            try template("tenant", "/{tenant}/settings"),
        ]
        let index = StubIndex(stubs)
        #expect(index.lookup(.make(target: "/users/7"))?.stub.name == "user")
        #expect(index.lookup(.make(method: "DELETE", target: "/users/7"))?.stub.name == "delete user")
        #expect(index.lookup(.make(target: "/users/7/posts"))?.stub.name == "posts")
        #expect(index.lookup(.make(target: "/acme/settings"))?.stub.name == "tenant")
        #expect(index.lookup(.make(target: "/x/y"))?.stub.name == "any two")
        #expect(index.lookup(.make(method: "PATCH", target: "/things/1"))?.stub.name == "any method")
        #expect(index.lookup(.make(target: "/nothing/here/at/all")) == nil)
        #expect(index.lookup(.make(target: "/")) == nil)
    }

    @Test("An explicit priority still wins over an exact path; HEAD falls back to a GET template")
    func priorityAndHead() throws {
        let stubs = [Stub.make(name: "exact", path: "/a/1"), try template("first", "/a/{n}", priority: 1)]
        #expect(StubIndex(stubs).lookup(.make(target: "/a/1"))?.stub.name == "first")
        #expect(StubIndex([try template("get", "/h/{id}")]).lookup(.make(method: "HEAD", target: "/h/2"))?.stub.name == "get")
    }

    @Test("A miss near a template lists it, with the template as the expected path")
    func nearMisses() throws {
        let index = StubIndex([try template("posts", "/users/{id}/posts"), .make(name: "other", path: "/elsewhere")])
        let misses = index.nearMisses(.make(target: "/users/7/comments"))
        #expect(misses.first?.stub.stub.name == "posts")
        #expect(misses.first?.mismatches == [Mismatch(field: "path", expected: "/users/{id}/posts", actual: "/users/7/comments")])
    }

    @Test("Many templates: each request still finds its own")
    func many() throws {
        var stubs: [Stub] = []
        for number in 0..<500 { stubs.append(try template("t\(number)", "/r\(number)/{id}/x\(number % 7)")) }
        let index = StubIndex(stubs)
        #expect(index.lookup(.make(target: "/r321/abc/x6"))?.stub.name == "t321")
        #expect(index.lookup(.make(target: "/r321/abc/x5")) == nil)
        let entry = try #require(index.lookup(.make(target: "/r7/z/x0")))
        #expect(entry.parameters(for: .make(target: "/r7/z/x0"))["id"] == "z")
    }
}
