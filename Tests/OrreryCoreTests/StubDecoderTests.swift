import Foundation
import Testing
@testable import OrreryCore

@Suite("StubDecoder: file shapes")
struct StubDecoderShapeTests {
    @Test("A single stub in JSON")
    func singleJSON() throws {
        let stub = try StubText.decodeOne(
            """
            {
              "name": "users",
              "request": { "method": "GET", "path": "/users" },
              "response": { "status": 200, "body": "[]" }
            }
            """, as: .json)
        #expect(stub.name == "users")
        #expect(stub.id == "stub-0")
        #expect(stub.request.method == "GET")
        #expect(stub.request.url.summary == "path /users")
        #expect(stub.response.status == 200)
        #expect(String(decoding: stub.response.body, as: UTF8.self) == "[]")
        #expect(stub.location == OrreryCore.SourceLocation(file: "stubs/example.json", line: 1))
    }

    @Test("A single stub in YAML")
    func singleYAML() throws {
        let stub = try StubText.decodeOne(
            """
            # a comment first
            name: users
            request:
              method: get
              path: /users
            response:
              status: 201
            """)
        #expect(stub.name == "users")
        #expect(stub.request.method == "GET")
        #expect(stub.request.url.summary == "path /users")
        #expect(stub.response.status == 201)
        #expect(stub.location?.line == 2)
    }

    @Test("A list of stubs keeps its order, each with its own id and line")
    func list() throws {
        let stubs = try StubText.decode(
            """
            - name: first
              request: { path: /a }
              response: { status: 200 }
            - name: second
              request: { path: /b }
              response: { status: 200 }
            """, as: .yaml)
        #expect(stubs.map(\.name) == ["first", "second"])
        #expect(stubs.map(\.id) == ["stub-0", "stub-1"])
        #expect(stubs.map { $0.location?.line } == [1, 4])
    }

    @Test("An explicit id is kept")
    func explicitID() throws {
        let stub = try StubText.decodeOne(#"{ "id": "login-ok", "request": {}, "response": {} }"#, as: .json)
        #expect(stub.id == "login-ok")
    }

    @Test("The DESIGN.md example decodes, base merged into each stub")
    func designExample() throws {
        let stubs = try StubText.decode(
            """
            base:                        # optional, Astral-style shared configuration
              host: api.example.com      # optional: match only requests for this host
              path: /api/v1              # prefix for every stub path below
              headers: { Accept: application/json }   # required request headers for every stub below
            stubs:
              - name: login
                request:
                  method: POST
                  path: /token
                  headers: { Content-Type: application/json }
                  body: { json: { username: user, password: pass } }   # JSON-equal, key order ignored
                response:
                  status: Code200OK      # or 200, or "ok"
                  headers: { X-Request-Id: abc }
                  json: { token: "[TOKEN]" }
              - request:
                  method: GET
                  urlPattern: "^/api/v1/users/[0-9]+$"   # regex; like Nocilla's stubRequest(nil, regex)
                response:
                  status: 404
            """, as: .yaml)
        try #require(stubs.count == 2)

        let login = stubs[0]
        #expect(login.name == "login")
        #expect(login.request.method == "POST")
        #expect(login.request.host == "api.example.com")
        #expect(login.request.url.summary == "path /api/v1/token")
        #expect(
            login.request.headerSummary == [
                #"Accept: equal to "application/json""#, #"Content-Type: equal to "application/json""#,
            ])
        #expect(login.request.body.map(\.description) == [#"JSON equal to {"username":"user","password":"pass"}"#])
        #expect(login.response.status == 200)
        #expect(login.response.headers.lines == ["X-Request-Id: abc", "Content-Type: application/json"])
        #expect(String(decoding: login.response.body, as: UTF8.self) == #"{"token":"[TOKEN]"}"#)
        #expect(login.definition["base"] != nil)

        let request = HTTPRequest.make(
            method: "POST", target: "/api/v1/token", host: "api.example.com",
            headers: ["Accept": "application/json", "Content-Type": "application/json"],
            body: #"{"password": "pass", "username": "user"}"#)
        #expect(login.request.matches(request))

        let users = stubs[1]
        #expect(users.request.method == "GET")
        #expect(users.request.url.summary == "urlPattern ^/api/v1/users/[0-9]+$")
        #expect(users.request.headerSummary == [#"Accept: equal to "application/json""#])
        #expect(users.response.status == 404)
    }

    @Test("The base path prefixes path and url, and is normalised")
    func basePath() throws {
        let stubs = try StubText.decode(
            """
            {
              "base": { "path": "api/v1/" },
              "stubs": [
                { "request": { "path": "/users" }, "response": {} },
                { "request": { "path": "orders" }, "response": {} },
                { "request": { "url": "/search?b=2&a=1" }, "response": {} }
              ]
            }
            """, as: .json)
        #expect(stubs.map(\.request.url.summary) == ["path /api/v1/users", "path /api/v1/orders", "url /api/v1/search?b=2&a=1"])
    }

    @Test("A stub with no URL under a base path answers everything under that prefix")
    func basePathAlone() throws {
        let stubs = try StubText.decode(
            """
            base: { path: /api/v1 }
            stubs:
              - request: { method: GET }
                response: { status: 200 }
            """, as: .yaml)
        let pattern = try #require(stubs.first).request
        #expect(pattern.matches(.make(target: "/api/v1")))
        #expect(pattern.matches(.make(target: "/api/v1/users/7")))
        #expect(pattern.matches(.make(target: "/api/v1?page=2")))
        #expect(!pattern.matches(.make(target: "/api/v10")))
        #expect(!pattern.matches(.make(target: "/other")))
    }

    @Test("Base headers are required; the stub's own header of the same name wins, whatever its case")
    func baseHeaders() throws {
        let stubs = try StubText.decode(
            """
            base:
              headers: { Accept: application/json, X-Client: ios }
            stubs:
              - request: { path: /a }
                response: {}
              - request:
                  path: /b
                  headers: { accept: text/plain }
                response: {}
            """, as: .yaml)
        try #require(stubs.count == 2)
        #expect(stubs[0].request.headerSummary == [#"Accept: equal to "application/json""#, #"X-Client: equal to "ios""#])
        #expect(stubs[1].request.headerSummary == [#"X-Client: equal to "ios""#, #"accept: equal to "text/plain""#])

        let plain = HTTPRequest.make(target: "/b", headers: ["Accept": "text/plain", "X-Client": "ios"])
        #expect(stubs[1].request.matches(plain))
        #expect(!stubs[0].request.matches(.make(target: "/a", headers: ["X-Client": "ios"])))
    }

    @Test(
        "A stub with no request section under a base path answers only under that prefix")
    func basePathWithoutRequest() throws {
        let stubs = try StubText.decode(
            """
            base: { path: /api/v1 }
            stubs:
              - response: { status: 204 }
            """, as: .yaml)
        let pattern = try #require(stubs.first).request
        #expect(pattern.matches(.make(target: "/api/v1/users")))
        #expect(!pattern.matches(.make(target: "/other")))
    }

    @Test("A base host applies to every stub, also one without a request section")
    func baseHost() throws {
        let stubs = try StubText.decode(
            """
            base: { host: api.example.com }
            stubs:
              - request: { path: /a }
                response: {}
              - response: { status: 204 }
            """, as: .yaml)
        #expect(stubs.map(\.request.host) == ["api.example.com", "api.example.com"])
    }

    @Test("A stub's own host wins over the base host")
    func ownHost() throws {
        let stubs = try StubText.decode(
            """
            base: { host: api.example.com }
            stubs:
              - request: { host: "localhost:9000", path: /a }
                response: {}
            """, as: .yaml)
        #expect(stubs.first?.request.host == "localhost:9000")
    }

    @Test("any, ANY and * mean any method; others are upper-cased", arguments: [
        ("any", nil), ("ANY", nil), ("*", nil), ("get", "GET"), ("PROPFIND", "PROPFIND"), ("m-search", "M-SEARCH"),
    ] as [(String, String?)])
    func method(written: String, expected: String?) throws {
        let stub = try StubText.decodeOne(
            """
            request: { method: "\(written)", path: /a }
            response: {}
            """)
        #expect(stub.request.method == expected)
    }

    @Test("No method means any method")
    func noMethod() throws {
        let stub = try StubText.decodeOne("request: { path: /a }\nresponse: {}")
        #expect(stub.request.method == nil)
    }
}

@Suite("StubDecoder: request matchers")
struct StubDecoderRequestTests {
    @Test("URL keys", arguments: [
        ("path: /users/7", "path /users/7"),
        ("path: /a%20b", "path /a b"),
        ("url: /search?q=swift&page=2", "url /search?q=swift&page=2"),
        ("url: /search", "url /search"),
        (#"urlPattern: "^/users/[0-9]+$""#, "urlPattern ^/users/[0-9]+$"),
        (#"pathPattern: "^/files/.*\\.png$""#, #"pathPattern ^/files/.*\.png$"#),
        ("method: GET", "any"),
    ])
    func urlKeys(line: String, expected: String) throws {
        let stub = try StubText.decodeOne(
            """
            request:
              \(line)
            response: {}
            """)
        #expect(stub.request.url.summary == expected)
    }

    @Test("url matches whatever the order of the query parameters")
    func urlQueryOrder() throws {
        let stub = try StubText.decodeOne(#"{ "request": { "url": "/search?q=swift&page=2" }, "response": {} }"#, as: .json)
        #expect(stub.request.matches(.make(target: "/search?page=2&q=swift")))
        #expect(stub.request.matches(.make(target: "/search?q=swift&page=2")))
        #expect(!stub.request.matches(.make(target: "/search?q=swift")))
        #expect(!stub.request.matches(.make(target: "/search?q=swift&page=2&extra=1")))
    }

    @Test("Query and header matchers", arguments: [
        ("json", #"equal to "json""#),
        ("2", #"equal to "2""#),
        ("true", #"equal to "true""#),
        ("{ equalTo: json }", #"equal to "json""#),
        (#"{ matches: "^app.*" }"#, "matching /^app.*/"),
        ("{ doesNotMatch: xml }", "not matching /xml/"),
        ("{ contains: js }", #"containing "js""#),
        ("{ absent: true }", "absent"),
        ("{ absent: false }", "present"),
    ])
    func valueMatchers(written: String, expected: String) throws {
        let stub = try StubText.decodeOne(
            """
            request:
              path: /a
              query: { page: \(written) }
              headers: { Accept: \(written) }
            response: {}
            """)
        #expect(stub.request.querySummary == ["page: \(expected)"])
        #expect(stub.request.headerSummary == ["Accept: \(expected)"])
    }

    @Test("Body matchers", arguments: [
        ("hello world", "hello world", "hello"),
        ("{ equalTo: hello world }", "hello world", "hello world!"),
        ("{ contains: lo wo }", "hello world", "hello"),
        (#"{ matches: "^h.*d$" }"#, "hello world", "hello"),
        ("{ json: { b: [1, 2], a: x } }", #"{"a": "x", "b": [1, 2.0]}"#, #"{"a": "x", "b": [2, 1]}"#),
        ("{ form: { user: alice, code: { matches: '^[0-9]+$' } } }", "code=42&user=alice", "user=alice&code=x"),
        ("{ contains: hello, matches: world$ }", "hello world", "hello there"),
    ])
    func bodyMatchers(written: String, matching: String, notMatching: String) throws {
        let stub = try StubText.decodeOne(
            """
            request:
              method: POST
              path: /a
              body: \(written)
            response: {}
            """)
        #expect(stub.request.matches(.make(method: "POST", target: "/a", body: matching)))
        #expect(!stub.request.matches(.make(method: "POST", target: "/a", body: notMatching)))
    }

    @Test("Body matcher descriptions")
    func bodyMatcherDescriptions() throws {
        let stub = try StubText.decodeOne(
            """
            {
              "request": {
                "body": { "json": { "b": 1, "a": [true, null] }, "form": { "user": "alice" }, "contains": "x" }
              },
              "response": {}
            }
            """, as: .json)
        #expect(
            stub.request.body.map(\.description) == [
                #"JSON equal to {"b":1,"a":[true,null]}"#, #"form fields user equal to "alice""#, #"containing "x""#,
            ])
    }
}

@Suite("StubDecoder: responses")
struct StubDecoderResponseTests {
    @Test("Status by number or by name", arguments: [
        ("200", 200), ("201", 201), ("Code401Unauthorized", 401), ("unauthorized", 401), (#""404""#, 404),
        ("ok", 200), ("Not Found", 404), ("not_found", 404), ("Code418ImATeapot", 418), ("599", 599),
    ])
    func status(written: String, expected: Int) throws {
        let stub = try StubText.decodeOne("request: {}\nresponse:\n  status: \(written)")
        #expect(stub.response.status == expected)
    }

    @Test("Status in JSON: a number or a string")
    func statusJSON() throws {
        for (written, expected) in [("404", 404), (#""404""#, 404), (#""Code401Unauthorized""#, 401)] {
            let stub = try StubText.decodeOne(#"{ "response": { "status": \#(written) } }"#, as: .json)
            #expect(stub.response.status == expected, "\(written)")
        }
    }

    @Test("No status means 200, no body means empty")
    func defaults() throws {
        let stub = try StubText.decodeOne("response: {}")
        #expect(stub.response.status == 200)
        #expect(stub.response.body.isEmpty)
        #expect(stub.response.headers.count == 0)
        #expect(stub.response.delayMilliseconds == 0)
        #expect(stub.request.url.summary == "any")
    }

    @Test("Headers keep their order, list values become repeated fields, framing headers are dropped")
    func headers() throws {
        let stub = try StubText.decodeOne(
            """
            response:
              headers:
                Set-Cookie: [a=1, b=2]
                Content-Length: 999
                X-Count: 3
                transfer-encoding: chunked
                content-length: "12"
                X-Request-Id: abc
            """)
        #expect(stub.response.headers.lines == ["Set-Cookie: a=1", "Set-Cookie: b=2", "X-Count: 3", "X-Request-Id: abc"])
    }

    @Test("body as text is sent as written, with no Content-Type added")
    func textBody() throws {
        let stub = try StubText.decodeOne(#"{ "response": { "body": "caf\u00e9\n" } }"#, as: .json)
        #expect(stub.response.body == Array("café\n".utf8))
        #expect(stub.response.headers["Content-Type"] == nil)
    }

    @Test("json is encoded compactly in the order written, numbers as written, with a JSON Content-Type")
    func jsonBody() throws {
        let stub = try StubText.decodeOne(
            """
            response:
              json: { b: 1.50, a: [true, null, "x"], c: { d: -0.0 } }
            """)
        #expect(String(decoding: stub.response.body, as: UTF8.self) == #"{"b":1.50,"a":[true,null,"x"],"c":{"d":-0.0}}"#)
        #expect(stub.response.headers.lines == ["Content-Type: application/json"])
    }

    @Test(
        "YAML number spellings in a json body are served as valid JSON",
        arguments: ["012", "1_000", "+12", "0x1F", ".5", "1:30", ".inf"])
    func yamlNumbersInJSONBody(number: String) throws {
        let stub = try StubText.decodeOne("response:\n  json: { n: \(number) }")
        #expect((try? JSONSerialization.jsonObject(with: Data(stub.response.body))) != nil)
    }

    @Test("YAML numbers that are already JSON are served as written", arguments: ["0", "-0", "12", "1.50", "1e3", "-1.5E+3"])
    func jsonNumbersInYAMLBody(number: String) throws {
        let stub = try StubText.decodeOne("response:\n  json: { n: \(number) }")
        #expect(String(decoding: stub.response.body, as: UTF8.self) == #"{"n":\#(number)}"#)
        #expect((try? JSONSerialization.jsonObject(with: Data(stub.response.body))) != nil)
    }

    @Test("A mapping given as body is JSON too")
    func mappingBody() throws {
        let stub = try StubText.decodeOne(#"{ "response": { "body": { "ok": true } } }"#, as: .json)
        #expect(String(decoding: stub.response.body, as: UTF8.self) == #"{"ok":true}"#)
        #expect(stub.response.headers["Content-Type"] == "application/json")
    }

    @Test("An explicit Content-Type wins over the default")
    func explicitContentType() throws {
        let stub = try StubText.decodeOne(
            """
            response:
              headers: { content-type: application/vnd.api+json }
              json: { ok: true }
            """)
        #expect(stub.response.headers.lines == ["content-type: application/vnd.api+json"])
    }

    @Test("bodyFile is read relative to the stub file's folder")
    func bodyFile() throws {
        let stubs = try StubText.decode(
            """
            - response: { bodyFile: users.json }
            - response: { bodyFile: page.html }
            """, as: .yaml, bodyFiles: ["users.json": #"[{"id":1}]"#, "page.html": "<p>hi</p>"])
        try #require(stubs.count == 2)
        #expect(String(decoding: stubs[0].response.body, as: UTF8.self) == #"[{"id":1}]"#)
        #expect(stubs[0].response.headers["Content-Type"] == "application/json")
        #expect(String(decoding: stubs[1].response.body, as: UTF8.self) == "<p>hi</p>")
        #expect(stubs[1].response.headers["Content-Type"] == "text/html; charset=utf-8")
    }

    @Test("delay and priority")
    func delayAndPriority() throws {
        let stub = try StubText.decodeOne("priority: -3\nresponse: { delay: 250 }")
        #expect(stub.priority == -3)
        #expect(stub.response.delayMilliseconds == 250)
    }
}

@Suite("StubDecoder: errors")
struct StubDecoderErrorTests {
    /// One mistake written in both syntaxes, and the line each should be reported on.
    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var name: String
        var json: String
        var jsonLine: Int
        var yaml: String
        var yamlLine: Int
        var message: String

        var testDescription: String { name }

        func text(_ format: StubFormat) -> String { format == .json ? json : yaml }
        func line(_ format: StubFormat) -> Int { format == .json ? jsonLine : yamlLine }
    }

    static let cases: [ErrorCase] = [
        ErrorCase(
            name: "unknown matcher",
            json: """
                {
                  "request": {
                    "method": "GET",
                    "path": "/users",
                    "headers": {
                      "Accept": {
                        "mathces": "json"
                      }
                    }
                  },
                  "response": { "status": 200 }
                }
                """,
            jsonLine: 7,
            yaml: """
                request:
                  method: GET
                  path: /users
                  headers:
                    Accept:
                      # the typo is on the next line
                      mathces: json
                response:
                  status: 200
                """,
            yamlLine: 7,
            message: "unknown matcher 'mathces'; did you mean 'matches'?"),
        ErrorCase(
            name: "unknown status name",
            json: """
                {
                  "request": { "path": "/me" },
                  "response": {
                    "status": "unauthorised"
                  }
                }
                """,
            jsonLine: 4,
            yaml: """
                request:
                  path: /me
                response:
                  status: unauthorised
                """,
            yamlLine: 4,
            message: "unknown status 'unauthorised'; did you mean 'unauthorized'?"),
        ErrorCase(
            name: "status out of range",
            json: """
                {
                  "response": {
                    "status": 600
                  }
                }
                """,
            jsonLine: 3,
            yaml: """
                response:
                  status: 600
                """,
            yamlLine: 2,
            message: "'status' 600 is outside 100...599"),
        ErrorCase(
            name: "unknown key in a stub",
            json: """
                {
                  "request": { "path": "/a" },
                  "respnse": { "status": 200 },
                  "response": { "status": 200 }
                }
                """,
            jsonLine: 3,
            yaml: """
                request: { path: /a }

                respnse: { status: 200 }
                response: { status: 200 }
                """,
            yamlLine: 3,
            message: "unknown key 'respnse' in a stub; did you mean 'response'?"),
        ErrorCase(
            name: "unknown key in a request",
            json: """
                {
                  "request": {
                    "path": "/a",
                    "header": { "Accept": "x" }
                  },
                  "response": {}
                }
                """,
            jsonLine: 4,
            yaml: """
                request:
                  path: /a
                  header: { Accept: x }
                response: {}
                """,
            yamlLine: 3,
            message: "unknown key 'header' in 'request'; did you mean 'headers'?"),
        ErrorCase(
            name: "two URL keys at once",
            json: """
                {
                  "request": {
                    "path": "/a",
                    "urlPattern": "^/a"
                  },
                  "response": { "status": 200 }
                }
                """,
            jsonLine: 4,
            yaml: """
                request:
                  path: /a
                  urlPattern: ^/a
                response:
                  status: 200
                """,
            yamlLine: 3,
            message: "use only one of 'path', 'urlPattern'"),
        ErrorCase(
            name: "body and json at once",
            json: """
                {
                  "request": { "path": "/a" },
                  "response": {
                    "body": "text",
                    "json": { "a": 1 }
                  }
                }
                """,
            jsonLine: 5,
            yaml: """
                request:
                  path: /a
                response:
                  body: text
                  json: { a: 1 }
                """,
            yamlLine: 5,
            message: "use only one of 'body', 'json'"),
        ErrorCase(
            name: "invalid regex",
            json: """
                {
                  "request": {
                    "urlPattern": "^/users/([0-9]+$"
                  },
                  "response": { "status": 200 }
                }
                """,
            jsonLine: 3,
            yaml: """
                request:
                  urlPattern: "^/users/([0-9]+$"
                response:
                  status: 200
                """,
            yamlLine: 2,
            message: "'urlPattern' is not a valid regular expression (expected ')' at offset 16 to close the group opened at offset 8): ^/users/([0-9]+$"),
        ErrorCase(
            name: "invalid regex in a header matcher",
            json: """
                {
                  "request": {
                    "headers": {
                      "Accept": { "matches": "[a-" }
                    }
                  },
                  "response": {}
                }
                """,
            jsonLine: 4,
            yaml: """
                request:
                  headers:
                    Accept: { matches: "[a-" }
                response: {}
                """,
            yamlLine: 3,
            message: "'matches' is not a valid regular expression (expected ']' at offset 3 to close the class opened at offset 0): [a-"),
        ErrorCase(
            name: "request is not a mapping",
            json: """
                {
                  "request": "GET /users",
                  "response": {}
                }
                """,
            jsonLine: 2,
            yaml: """
                request: GET /users
                response: {}
                """,
            yamlLine: 1,
            message: "'request' must be a mapping, not a string"),
        ErrorCase(
            name: "status of the wrong type",
            json: """
                {
                  "response": {
                    "status": true
                  }
                }
                """,
            jsonLine: 3,
            yaml: """
                response:
                  status: true
                """,
            yamlLine: 2,
            message: "'status' must be a number or a status name such as Code404NotFound, not a boolean"),
        ErrorCase(
            name: "priority not a number",
            json: """
                {
                  "priority": "high",
                  "response": {}
                }
                """,
            jsonLine: 2,
            yaml: """
                priority: high
                response: {}
                """,
            yamlLine: 1,
            message: "'priority' must be a whole number"),
        ErrorCase(
            name: "path not text",
            json: """
                {
                  "request": {
                    "path": ["/a", "/b"]
                  },
                  "response": {}
                }
                """,
            jsonLine: 3,
            yaml: """
                request:
                  path: [/a, /b]
                response: {}
                """,
            yamlLine: 2,
            message: "'path' must be text, not a list"),
        ErrorCase(
            name: "headers not a mapping",
            json: """
                {
                  "request": {
                    "headers": ["Accept"]
                  },
                  "response": {}
                }
                """,
            jsonLine: 3,
            yaml: """
                request:
                  headers: [Accept]
                response: {}
                """,
            yamlLine: 2,
            message: "headers must be a mapping of names to values, not a list"),
        ErrorCase(
            name: "absent not a boolean",
            json: """
                {
                  "request": {
                    "query": { "debug": { "absent": "maybe" } }
                  },
                  "response": {}
                }
                """,
            jsonLine: 3,
            yaml: """
                request:
                  query: { debug: { absent: maybe } }
                response: {}
                """,
            yamlLine: 2,
            message: "'absent' must be true or false"),
        ErrorCase(
            name: "invalid method",
            json: """
                {
                  "request": {
                    "method": "GE T"
                  },
                  "response": {}
                }
                """,
            jsonLine: 3,
            yaml: """
                request:
                  method: GE T
                response: {}
                """,
            yamlLine: 2,
            message: "'GE T' is not an HTTP method"),
        ErrorCase(
            name: "a stub without a response",
            json: """
                [
                  { "request": { "path": "/a" }, "response": {} },
                  { "request": { "path": "/b" } }
                ]
                """,
            jsonLine: 3,
            yaml: """
                - request: { path: /a }
                  response: {}
                - request: { path: /b }
                """,
            yamlLine: 3,
            message: "the stub has no 'response'"),
        ErrorCase(
            name: "a line break in a response header",
            json: """
                {
                  "response": {
                    "headers": {
                      "X-Note": "one\\ntwo"
                    }
                  }
                }
                """,
            jsonLine: 4,
            yaml: """
                response:
                  headers:
                    X-Note: "one\\ntwo"
                """,
            yamlLine: 3,
            message: "the value of header 'X-Note' contains a line break"),
        ErrorCase(
            name: "base without stubs",
            json: """
                {
                  "base": { "path": "/api" }
                }
                """,
            jsonLine: 1,
            yaml: """
                base:
                  path: /api
                """,
            yamlLine: 1,
            message: "'base' needs a 'stubs' list next to it"),
        ErrorCase(
            name: "a file that is not a stub",
            json: """

                "just text"
                """,
            jsonLine: 2,
            yaml: """
                # comment

                just text
                """,
            yamlLine: 3,
            message: "expected a stub, a list of stubs, or { base, stubs }, not a string"),
    ]

    @Test("Each error names the file and the 1-based line", arguments: cases, StubFormat.allCases)
    func errorLine(errorCase: ErrorCase, format: StubFormat) {
        let errors = StubText.errors(errorCase.text(format), as: format)
        let expected = "\(format.fileName):\(errorCase.line(format)): \(errorCase.message)"
        #expect(errors.map(\.description).contains(expected), "got \(errors.map(\.description))")
        #expect(errors.allSatisfy { $0.file == format.fileName })
    }

    @Test("Every problem in a file is reported, not just the first")
    func severalErrors() {
        let errors = StubText.errors(
            """
            - request: { path: /a, mehtod: GET }
              response: { status: 200 }
            - request: { path: /b }
              response: { status: notFuond }
            """, as: .yaml)
        #expect(
            errors.map(\.description) == [
                "stubs/example.yaml:1: unknown key 'mehtod' in 'request'; did you mean 'method'?",
                "stubs/example.yaml:4: unknown status 'notFuond'; did you mean 'notFound'?",
            ])
    }

    @Test("Bad JSON syntax is reported on the line of the error")
    func badJSONSyntax() {
        let errors = StubText.errors(
            """
            {
              "request": {
                "method": "GET"
                "path": "/a"
              }
            }
            """, as: .json)
        #expect(errors.map(\.description) == [#"stubs/example.json:4: expected ',' or '}' after the value of 'method'"#])
    }

    @Test("JSON that ends too early is reported on its last line")
    func truncatedJSON() {
        let errors = StubText.errors("{\n  \"request\": {\n    \"path\": \"/a\"", as: .json)
        #expect(errors.map(\.line) == [3])
        #expect(errors.first?.message.contains("not closed") == true)
    }

    @Test("Bad YAML syntax is reported on the line of the error")
    func badYAMLSyntax() {
        let errors = StubText.errors(
            """
            request:
              path: /a
              method: GET: POST
            response: {}
            """, as: .yaml)
        #expect(errors.count == 1)
        #expect(errors.first?.file == "stubs/example.yaml")
        #expect(errors.first?.line == 3)
        #expect(errors.first?.message.hasPrefix("YAML: ") == true)
    }

    @Test("An unclosed YAML flow list is reported with a line")
    func unclosedYAMLList() {
        let errors = StubText.errors(
            """
            request:
              path: /a
              query: { tags: [a, b }
            response: {}
            """, as: .yaml)
        #expect(errors.count == 1)
        #expect(errors.first?.line == 3)
    }

    @Test("A duplicate key in JSON is reported on the line of the second one")
    func duplicateKeyJSON() {
        let text = "{\n  \"request\": {\n    \"method\": \"GET\",\n    \"path\": \"/a\",\n    \"path\": \"/b\"\n  },\n  \"response\": {}\n}"
        let errors = StubText.errors(text, as: .json)
        #expect(errors.map(\.description) == ["stubs/example.json:5: duplicate key 'path'"])
    }

    @Test("A duplicate key in YAML is reported on the line of the first one (Yams finds it first)")
    func duplicateKeyYAML() {
        let errors = StubText.errors("request:\n  method: GET\n  path: /a\n  path: /b\nresponse: {}", as: .yaml)
        #expect(errors.map(\.description) == ["stubs/example.yaml:3: duplicate key 'path'"])
    }

    @Test("An empty file is an error on line 1", arguments: [
        (StubFormat.json, ""), (.json, "   "), (.yaml, ""), (.yaml, "# only a comment\n"),
    ])
    func emptyFile(format: StubFormat, text: String) {
        let errors = StubText.errors(text, as: format)
        #expect(errors.count == 1)
        #expect(errors.first?.line == 1, "\(errors)")
        #expect(errors.first?.file == format.fileName)
    }

    @Test("The empty YAML file says what a stub file holds")
    func emptyYAMLMessage() {
        let errors = StubText.errors("", as: .yaml)
        #expect(
            errors.map(\.description) == [
                "stubs/example.yaml:1: the file is empty; expected a stub, a list of stubs, or { base, stubs }",
            ])
    }

    @Test("YAML aliases expand, but an alias bomb is refused instead of exhausting memory")
    func yamlAlias() throws {
        let shared = """
            - request: &shared { path: /a }
              response: {}
            - request: *shared
              response: { status: 201 }
            """
        #expect(try StubText.decode(shared, as: .yaml).count == 2)
        var bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...7 {
            let previous = "*a\(level - 1)"
            bomb += "a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]\n"
        }
        let errors = StubText.errors(bomb, as: .yaml)
        #expect(errors.first?.message.contains("more than") == true)
    }
}
