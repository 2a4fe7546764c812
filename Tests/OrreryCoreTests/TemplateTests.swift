import Foundation
import Testing
@testable import OrreryCore

/// A seeded generator, so that `uuid` and delays are the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Renders a response's body for a request, from stub text with `template: true`.
func renderStub(
    _ yaml: String, _ request: HTTPRequest, now: Date = Date(timeIntervalSince1970: 1_714_566_896)
) throws -> RenderedResponse {
    let stub = try StubText.decodeOne(yaml)
    let dynamic = try #require(stub.response.dynamic)
    var generator = SeededGenerator(state: 42)
    return dynamic.render(request, parameters: stub.request.pathParameters(request), now: now, using: &generator)
}

@Suite("Templates: rendering")
struct TemplateRenderTests {
    func render(
        _ text: String, _ request: HTTPRequest = .make(), parameters: PathParameters = PathParameters(),
        names: [String] = [], mode: Template.Mode = .text
    ) throws -> String {
        let template = try TemplateCompiler(scope: TemplateScope(parameterNames: names)).compile(text, mode: mode)
        var context = TemplateContext(
            request: request, parameters: parameters, now: Date(timeIntervalSince1970: 1_714_566_896),
            generator: SeededGenerator(state: 7))
        return template.renderText(&context)
    }

    @Test("Request fields: method, path, segments, query, headers (any case), body")
    func requestFields() throws {
        let request = HTTPRequest.make(
            method: "POST", target: "/api/v1/users/7?page=2&tag=a&tag=b", headers: ["User-Agent": "curl/8", "X-Trace.Id": "t1"],
            body: "hello")
        #expect(try render("{{request.method}} {{request.path}}", request) == "POST /api/v1/users/7")
        #expect(try render("{{request.pathSegments.0}}/{{request.pathSegments.3}}/[{{request.pathSegments.9}}]", request) == "api/7/[]")
        #expect(try render("{{request.query.page}} {{request.query.tag}} [{{request.query.none}}]", request) == "2 a []")
        #expect(try render("{{request.headers.user-agent}} {{request.headers.User-Agent}} {{request.headers.x-trace.id}}", request) == "curl/8 curl/8 t1")
        #expect(try render("<{{request.body}}>", request) == "<hello>")
        #expect(try render("{{#request.pathSegments}}[{{.}}]{{/request.pathSegments}}", request) == "[api][v1][users][7]")
    }

    @Test("Path parameters, now (RFC 3339, UTC) and a lower-case UUID that is the same within one response")
    func parametersNowUUID() throws {
        let parameters = PathParameters(names: ["id", "post"], values: ["42", "x"])
        #expect(try render("{{params.id}}-{{params.post}}", parameters: parameters, names: ["id", "post"]) == "42-x")
        #expect(try render("{{now}}") == "2024-05-01T12:34:56Z")
        let uuids = try render("{{uuid}} {{uuid}}").split(separator: " ")
        #expect(uuids.count == 2 && uuids[0] == uuids[1])
        let uuid = String(uuids[0])
        #expect(uuid.count == 36 && uuid == uuid.lowercased())
        #expect(uuid.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(Array(uuid)[14] == "4")
    }

    @Test("RFC 3339 times across dates: epoch, leap day, before 1970")
    func timestamps() {
        func text(_ seconds: Int) -> String {
            var out: [UInt8] = []
            TemplateRenderer.appendTimestamp(seconds, into: &out)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(text(0) == "1970-01-01T00:00:00Z")
        #expect(text(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(text(-1) == "1969-12-31T23:59:59Z")
        #expect(text(4_102_444_799) == "2099-12-31T23:59:59Z")
    }

    @Test("JSON body fields: nested, array items by number, booleans, numbers as written, null, missing as empty")
    func jsonFields() throws {
        let request = HTTPRequest.make(
            method: "POST", target: "/",
            body: #"{"user": {"name": "Ada", "admin": true, "score": 1.50, "nick": null}, "items": [{"sku": "A-1"}, {"sku": "B-2"}]}"#)
        #expect(try render("{{request.json.user.name}}", request) == "Ada")
        #expect(try render("{{request.json.items.1.sku}}", request) == "B-2")
        #expect(try render("{{request.json.user.admin}} {{request.json.user.score}} {{request.json.user.nick}}", request) == "true 1.50 null")
        #expect(try render("[{{request.json.user.missing}}][{{request.json.items.9.sku}}]", request) == "[][]")
        #expect(try render("{{request.json.items.0}}", request) == #"{"sku":"A-1"}"#)
        #expect(try render("[{{request.json.user.name}}]", .make(body: "not json")) == "[]")
    }

    @Test("Sections iterate arrays; names resolve on the item first, then outwards; inverted sections")
    func sections() throws {
        let request = HTTPRequest.make(
            method: "POST", target: "/?x=1",
            body: #"{"label": "L", "items": [{"sku": "A", "tags": ["t1", "t2"]}, {"sku": "B", "label": "own", "tags": []}], "none": []}"#)
        #expect(
            try render("{{#request.json.items}}{{sku}}:{{label}}({{#tags}}{{.}},{{/tags}}{{^tags}}-{{/tags}}) {{/request.json.items}}", request)
                == "A:(t1,t2,) B:own(-) ")
        #expect(try render("{{#request.json.items}}{{request.query.x}}{{/request.json.items}}", request) == "11")
        #expect(try render("{{^request.json.none}}empty{{/request.json.none}}", request) == "empty")
        #expect(try render("{{#request.json.none}}x{{/request.json.none}}{{#request.query.x}}yes {{.}}{{/request.query.x}}", request) == "yes 1")
        #expect(try render("{{^request.headers.x-missing}}no header{{/request.headers.x-missing}}", request) == "no header")
    }

    @Test("Triple braces and & are the same as double ones (nothing is HTML-escaped); comments vanish")
    func escapingAndComments() throws {
        let request = HTTPRequest.make(target: "/?q=%3Cb%3E%26%22")
        #expect(try render("{{request.query.q}}|{{{request.query.q}}}|{{& request.query.q}}", request) == #"<b>&"|<b>&"|<b>&""#)
        #expect(try render("a{{! a comment }}b") == "ab")
    }

    @Test("Standalone section and comment lines leave no blank lines")
    func standaloneLines() throws {
        let request = HTTPRequest.make(method: "POST", target: "/", body: #"{"items": [{"n": 1}, {"n": 2}]}"#)
        let text = """
            list:
              {{#request.json.items}}
              - {{n}}
              {{/request.json.items}}
            {{! done }}
            end
            """
        #expect(try render(text, request) == "list:\n  - 1\n  - 2\nend")
    }

    @Test("In JSON-string mode values are JSON-escaped")
    func jsonStringMode() throws {
        let request = HTTPRequest.make(headers: ["X-Name": #"Ada "The Countess" \ <L>"#])
        #expect(try render("{{request.headers.x-name}}", request, mode: .jsonString) == #"Ada \"The Countess\" \\ <L>"#)
    }
}

@Suite("Templates: compile errors")
struct TemplateErrorTests {
    func error(_ text: String, names: [String] = []) -> TemplateError? {
        do {
            _ = try TemplateCompiler(scope: TemplateScope(parameterNames: names)).compile(text)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "Each error says what is wrong, on its line",
        arguments: [
            ("{{request.path", 1, "unclosed tag '{{request.path': no '}}' after it"),
            ("a\n{{#request.json.items}}\nx", 2, "the section '{{#request.json.items}}' is never closed (no '{{/request.json.items}}')"),
            ("{{#request.json.a}}\n{{/request.json.b}}", 2, "'{{/request.json.b}}' does not match the open section '{{#request.json.a}}' (line 1)"),
            ("{{/request.path}}", 1, "'{{/request.path}}' closes a section that was never opened"),
            ("x\n\n{{reqest.path}}", 3, "unknown name 'reqest.path'; did you mean 'request.path'?"),
            ("{{request.hedaers.accept}}", 1, "unknown name 'request.hedaers.accept'; did you mean 'request.headers.accept'?"),
            ("{{uuidd}}", 1, "unknown name 'uuidd'; did you mean 'uuid'?"),
            ("{{params.idd}}", 1, "unknown path parameter 'params.idd'; did you mean 'params.id'? (the path has {id})"),
            ("{{> partial}}", 1, "partials ('{{>') are not supported in response templates"),
            ("{{.}}", 1, "'{{.}}' stands for a section's item, and is outside any section"),
            ("{{request.pathSegments.x}}", 1, "'request.pathSegments.x': a path segment is chosen by its number from 0, as in request.pathSegments.0"),
            ("{{request.method.name}}", 1, "'request.method' is text and has no field 'name'"),
        ])
    func errors(text: String, line: Int, message: String) {
        let found = error(text, names: ["id"])
        #expect(found?.line == line)
        #expect(found?.message == message)
    }

    @Test("params with no path parameters says so")
    func noParameters() {
        #expect(error("{{params.id}}")?.message == "unknown name 'params.id': the stub's path has no parameters (write one as /users/{id})")
    }

    @Test("Inside a section, item names are not checked (loading cannot know them), root names are")
    func sectionNames() {
        #expect(error("{{#request.json.items}}{{sku}}{{/request.json.items}}") == nil)
        #expect(error("{{#request.json.items}}{{request.hedaers.x}}{{/request.json.items}}") != nil)
    }
}

@Suite("Templates: stubs with template: true")
struct TemplateStubTests {
    @Test("A json: body renders each string as a template and stays valid JSON whatever the values hold")
    func jsonBody() throws {
        let response = try renderStub(
            """
            request: { method: POST, path: "/users/{id}" }
            response:
              status: 201
              template: true
              headers: { X-Request-Path: "{{request.path}}", Location: "/users/{{params.id}}" }
              json:
                id: "{{params.id}}"
                agent: "{{request.headers.user-agent}}"
                name: "{{request.json.name}}"
                tags: ["{{#request.json.tags}}{{.}};{{/request.json.tags}}", 3, true, null]
                "{{params.id}}-key": literal
            """,
            .make(
                method: "POST", target: "/users/7", headers: ["User-Agent": "agent \"quoted\"\n"],
                body: #"{"name": "Ada \"Countess\" \\", "tags": ["a", "b"]}"#))
        #expect(response.status == 201)
        #expect(response.headers["X-Request-Path"] == "/users/7")
        #expect(response.headers["Location"] == "/users/7")
        #expect(response.headers["Content-Type"] == "application/json")
        let json = try JSONValue.parse(response.body)
        #expect(json["id"] == .string("7"))
        #expect(json["agent"] == .string("agent \"quoted\"\n"))
        #expect(json["name"] == .string(#"Ada "Countess" \"#))
        #expect(json["tags"] == .array([.string("a;b;"), .int(3), .bool(true), .null]))
        #expect(json["7-key"] == .string("literal"))
    }

    @Test("A text body and a header value render as text; a header value cannot break into new lines")
    func textBody() throws {
        let response = try renderStub(
            """
            request: { path: /echo }
            response:
              template: true
              headers: { X-Echo: "{{request.query.h}}" }
              body: "{{request.method}} {{request.query.q}} at {{now}}"
            """, .make(target: "/echo?q=%7B%7Bnow%7D%7D&h=a%0D%0AInjected:%20yes"))
        #expect(response.bodyText == "GET {{now}} at 2024-05-01T12:34:56Z")
        #expect(response.headers["X-Echo"] == "a  Injected: yes")
        #expect(response.headers.count == 1)
    }

    @Test("A body file is a template too")
    func bodyFile() throws {
        try withStubFiles(["stubs/bodies/user.json": #"{"id": "{{params.id}}", "path": "{{request.path}}"}"#]) {
            folder in
            var decoder = StubDecoder(
                displayPath: "stubs/u.yaml", source: folder.source(), folder: "", makeID: { "s\($0)" })
            let node = try StubLoader.parse(
                Array(#"{"request": {"path": "/u/{id}"}, "response": {"template": true, "bodyFile": "bodies/user.json"}}"#.utf8),
                isJSON: true)
            let decoded = decoder.decodeSingle(node)
            let stub = try #require(decoded)
            #expect(decoder.errors.isEmpty)
            let request = HTTPRequest.make(target: "/u/9")
            let rendered = try #require(stub.response.dynamic).render(request, parameters: stub.request.pathParameters(request))
            #expect(rendered.bodyText == #"{"id": "9", "path": "/u/9"}"#)
            #expect(rendered.headers["Content-Type"] == "application/json")
        }
    }

    @Test("template: true without tags is a static response, prepared once")
    func constantTemplate() throws {
        let stub = try StubText.decodeOne(
            """
            request: { path: /static }
            response: { template: true, json: { a: "b {{! note }}" } }
            """)
        #expect(!stub.response.isDynamic)
        #expect(stub.response.dynamic == nil)
        #expect(String(decoding: stub.response.body, as: UTF8.self) == #"{"a":"b "}"#)
    }

    @Test("A templated response is not pre-encoded: its prepared body is empty, the server renders it")
    func notPreEncoded() throws {
        let stub = try StubText.decodeOne(
            """
            request: { path: /t }
            response: { template: true, body: "{{request.path}} and enough text to be worth compressing, 256 bytes or so." }
            """)
        #expect(stub.response.isDynamic)
        let prepared = PreparedResponse(stub.response, compress: { bytes, _ in Array(bytes.prefix(1)) })
        #expect(prepared.body.count == 0)
        #expect(prepared.encodedBody == nil)
        #expect(prepared.dynamic?.rendersBody == true)
    }

    @Test(
        "Template errors are load errors with the stub file's line",
        arguments: [
            (
                "request: { path: /a }\nresponse:\n  template: true\n  json:\n    x: \"{{reqest.path}}\"\n",
                "stubs/example.yaml:5: template: unknown name 'reqest.path'; did you mean 'request.path'?"
            ),
            (
                "request: { path: /a }\nresponse:\n  template: true\n  headers: { X-A: \"{{request.path\" }\n",
                "stubs/example.yaml:4: template: unclosed tag '{{request.path': no '}}' after it"
            ),
            (
                "request: { path: \"/a/{id}\" }\nresponse:\n  template: true\n  body: \"{{params.ID}}\"\n",
                "stubs/example.yaml:4: template: unknown path parameter 'params.ID'; did you mean 'params.id'? (the path has {id})"
            ),
            (
                "request: { path: /a }\nresponse:\n  template: true\n  body: |\n    line one\n    {{reqest.path}}\n",
                "stubs/example.yaml:6: template: unknown name 'reqest.path'; did you mean 'request.path'?"
            ),
            (
                "request: { path: /a }\nresponse:\n  template: yes please\n",
                "stubs/example.yaml:3: 'template' must be true, false or handlebars, not 'yes please'"
            ),
        ])
    func loadErrors(text: String, message: String) {
        #expect(StubText.errors(text, as: .yaml).map(\.description) == [message])
    }

    @Test("A template error in JSON stub files has its line too")
    func jsonFileLine() {
        let text = """
            {
              "request": { "path": "/a" },
              "response": {
                "template": true,
                "json": { "a": "{{#request.json.x}}" }
              }
            }
            """
        #expect(
            StubText.errors(text, as: .json).map(\.description) == [
                "stubs/example.json:5: template: the section '{{#request.json.x}}' is never closed (no '{{/request.json.x}}')"
            ])
    }
}

@Suite("Examples of docs/dynamic-responses.md")
struct ReadmeDynamicExampleTests {
    @Test("The template example renders")
    func templateExample() throws {
        let response = try renderStub(
            """
            - request: { method: POST, path: "/users/{id}/orders" }
              response:
                status: 201
                template: true
                headers: { Location: "/users/{{params.id}}/orders/{{uuid}}" }
                json:
                  id: "{{uuid}}"
                  user: "{{params.id}}"
                  sku: "{{request.json.items.0.sku}}"
                  agent: "{{request.headers.user-agent}}"
                  createdAt: "{{now}}"
                  lines: "{{#request.json.items}}{{sku}} x{{qty}}; {{/request.json.items}}"
            """,
            .make(
                method: "POST", target: "/users/ada/orders", headers: ["User-Agent": "tests"],
                body: #"{"items": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 1}]}"#))
        let json = try JSONValue.parse(response.body)
        let uuid = try #require(json["id"]?.stringValue)
        #expect(response.headers["Location"] == "/users/ada/orders/\(uuid)")
        #expect(json["user"] == .string("ada"))
        #expect(json["sku"] == .string("A-1"))
        #expect(json["agent"] == .string("tests"))
        #expect(json["createdAt"] == .string("2024-05-01T12:34:56Z"))
        #expect(json["lines"] == .string("A-1 x2; B-2 x1; "))
    }

    @Test("The scenario example decodes with its rules")
    func scenarioExample() throws {
        let stubs = try StubText.decode(
            """
            - request: { method: GET, path: /cart }
              scenario: checkout
              requiredState: Started
              response: { json: { items: [] } }
            - request: { method: POST, path: /cart/checkout }
              scenario: checkout
              newState: paid
              response: { status: 201 }
            - request: { method: GET, path: /cart }
              scenario: checkout
              requiredState: paid
              response: { json: { items: [], paid: true } }
            """, as: .yaml)
        let index = StubIndex(stubs)
        var states = ScenarioStates()
        #expect(index.lookup(.make(target: "/cart"), scenarioState: { states[$0] })?.stub.id == "stub-0")
        if let rule = index.lookup(.make(method: "POST", target: "/cart/checkout"))?.stub.scenario { states.apply(rule) }
        #expect(index.lookup(.make(target: "/cart"), scenarioState: { states[$0] })?.stub.id == "stub-2")
    }
}
