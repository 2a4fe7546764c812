import Testing
@testable import OrreryCore

@Suite("Matchers: jsonPath, partial JSON, anyOf, allOf, not")
struct MatcherCompositionTests {
    let body = #"{"user": {"name": "Ada", "tags": ["a", "b"], "age": 36, "admin": true}, "items": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 1}], "odd key": "x"}"#

    func matches(_ yaml: String, body: String? = nil, headers: HTTPHeaders = [:], target: String = "/") throws -> Bool {
        let stub = try StubText.decodeOne("request:\n  \(yaml)\nresponse: {}")
        return stub.request.matches(.make(method: "POST", target: target, headers: headers, body: body ?? self.body))
    }

    @Test(
        "jsonPath: present, equalTo, matches, contains; bracket names, indexes and wildcards",
        arguments: [
            ("body: { jsonPath: $.user.name }", true),
            ("body: { jsonPath: $.user.nick }", false),
            ("body: { jsonPath: $.user.name, equalTo: Ada }", true),
            ("body: { jsonPath: $.user.name, equalTo: Bob }", false),
            ("body: { jsonPath: $.user.age, equalTo: 36 }", true),
            ("body: { jsonPath: $.user.age, equalTo: '36' }", true),
            ("body: { jsonPath: $.user.admin, equalTo: true }", true),
            ("body: { jsonPath: $.user.tags, equalTo: [a, b] }", true),
            ("body: { jsonPath: \"$['odd key']\", equalTo: x }", true),
            ("body: { jsonPath: \"$.items[1].sku\", equalTo: B-2 }", true),
            ("body: { jsonPath: \"$.items[-1].qty\", equalTo: 1 }", true),
            ("body: { jsonPath: \"$.items[*].sku\", equalTo: B-2 }", true),
            ("body: { jsonPath: \"$.items.*.sku\", matches: '^A-[0-9]$' }", true),
            ("body: { jsonPath: $.user.name, contains: d }", true),
            ("body: { jsonPath: $.user.tags, contains: '\"b\"' }", true),
            ("body: { jsonPath: \"$.items[5]\" }", false),
        ])
    func jsonPath(condition: String, expected: Bool) throws {
        #expect(try matches(condition) == expected)
    }

    @Test("Partial JSON: ignoreExtraFields at any depth, ignoreArrayOrder with the same number of items")
    func partialJSON() throws {
        #expect(try matches("body: { json: { user: { name: Ada } }, ignoreExtraFields: true }"))
        #expect(try !matches("body: { json: { user: { name: Ada } } }"))
        #expect(try !matches("body: { json: { user: { name: Bob } }, ignoreExtraFields: true }"))
        #expect(try matches("body: { json: { user: { tags: [b, a] } }, ignoreExtraFields: true, ignoreArrayOrder: true }"))
        #expect(try !matches("body: { json: { user: { tags: [b, a] } }, ignoreExtraFields: true }"))
        #expect(try !matches("body: { json: { user: { tags: [a] } }, ignoreExtraFields: true, ignoreArrayOrder: true }"))
        // A loose first item must not take the only partner of a stricter second one.
        let items = #"[{"a": 1, "b": 2}, {"a": 1}]"#
        #expect(try matches("body: { json: [{ a: 1 }, { a: 1, b: 2 }], ignoreExtraFields: true, ignoreArrayOrder: true }", body: items))
    }

    @Test("anyOf, allOf and not on headers, query parameters and form fields")
    func valueOperators() throws {
        let headers: HTTPHeaders = ["Accept": "application/vnd.api+json"]
        #expect(try matches("headers: { Accept: { anyOf: [application/json, { contains: +json }] } }", headers: headers))
        #expect(try !matches("headers: { Accept: { anyOf: [application/json, text/html] } }", headers: headers))
        #expect(try matches("headers: { Accept: { allOf: [{ contains: vnd }, { not: { contains: xml } }] } }", headers: headers))
        #expect(try !matches("headers: { Accept: { not: { matches: 'json$' } } }", headers: headers))
        #expect(try matches("query: { page: { not: { absent: true } } }", target: "/?page=1"))
        #expect(try matches("body: { form: { user: { anyOf: [ada, bob] } } }", body: "user=bob&x=1"))
    }

    @Test("anyOf, allOf and not on bodies, operands being text or mappings of operators")
    func bodyOperators() throws {
        #expect(try matches("body: { anyOf: [ exact text, { jsonPath: $.user.name, equalTo: Ada } ] }"))
        #expect(try matches("body: { allOf: [ { contains: Ada }, { jsonPath: $.items } ] }"))
        #expect(try !matches("body: { allOf: [ { contains: Ada }, { jsonPath: $.nothing } ] }"))
        #expect(try matches("body: { not: { contains: Bob } }"))
        #expect(try !matches("body: { not: { json: { user: { name: Ada } }, ignoreExtraFields: true } }"))
        #expect(try matches("body: { anyOf: [ { contains: zzz }, { contains: yyy, not: { contains: q } }, { jsonPath: $.user } ] }"))
    }

    @Test("A near miss names the failing condition, not the whole list")
    func explainedMisses() throws {
        let stub = try StubText.decodeOne(
            """
            request:
              headers: { Accept: { allOf: [{ contains: json }, { not: { contains: vnd } }] } }
            response: {}
            """)
        let miss = stub.request.mismatches(.make(headers: ["Accept": "application/vnd.api+json"]))
        #expect(miss.map(\.expected) == [#"not containing "vnd" (allOf, condition 2 of 2)"#])

        let bodyStub = try StubText.decodeOne(
            """
            request:
              body: { allOf: [ { contains: Ada }, { jsonPath: $.user.name, equalTo: Bob } ] }
            response: {}
            """)
        let bodyMiss = bodyStub.request.mismatches(.make(method: "POST", body: body))
        #expect(bodyMiss.map(\.expected) == [#"JSONPath $.user.name equal to "Bob" (allOf, condition 2 of 2)"#])
        #expect(bodyMiss.map(\.actual) == [#""Ada""#])
    }

    @Test(
        "Misspelt or misplaced operators are errors with a hint",
        arguments: [
            ("headers: { A: { anyof: [x] } }", "2: unknown matcher 'anyof'; did you mean 'anyOf'?"),
            ("headers: { A: { anyOf: [] } }", "2: 'anyOf' needs at least one matcher"),
            ("body: { jsonPath: '$.a', equalTo: 1, matches: x }", "2: use only one of 'equalTo', 'matches'"),
            ("body: { jsonPath: '$.a', equals: 1 }", "2: beside 'jsonPath' only equalTo, matches or contains may stand (what the value must be), not 'equals'; did you mean 'equalTo'?; combine other conditions with allOf"),
            ("body: { jsonPath: 'a.b' }", "2: 'jsonPath' a.b: a JSONPath starts with '$', as in $.user.name"),
            (
                "body: { jsonPath: '$.a[0:2]' }",
                "2: 'jsonPath' $.a[0:2]: '[0:2]' is not supported: use [0], [*] or ['name']"
            ),
            ("body: { jsonPath: '$.a[?(@.b' }", "2: 'jsonPath' $.a[?(@.b: a filter's '(' is never closed"),
            ("body: { contains: x, ignoreExtraFields: true }", "2: 'ignoreExtraFields' goes beside 'json', which it loosens"),
            ("body: { json: {}, ignoreArrayOrdr: true }", "2: unknown body matcher 'ignoreArrayOrdr'; did you mean 'ignoreArrayOrder'?"),
            ("body: { nott: { contains: x } }", "2: unknown body matcher 'nott'; did you mean 'not'?"),
        ])
    func errors(yaml: String, message: String) {
        #expect(StubText.errors("request:\n  \(yaml)\nresponse: {}", as: .yaml).map(\.description) == ["stubs/example.yaml:\(message)"])
    }

    @Test("JSONPath parsing and selection")
    func jsonPathSelection() throws {
        let json = try JSONValue.parse(body)
        #expect(try JSONPath("$").select(in: json).count == 1)
        #expect(try JSONPath("$.user.*").select(in: json).count == 4)
        #expect(try JSONPath(#"$["user"]['name']"#).select(in: json) == [.string("Ada")])
        #expect(try JSONPath("$.items[*].qty").select(in: json) == [.int(2), .int(1)])
        #expect(try JSONPath("$.user.name.first").select(in: json).isEmpty)
    }
}
