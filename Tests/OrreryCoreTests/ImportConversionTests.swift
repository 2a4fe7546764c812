import Testing
@testable import OrreryCore

@Suite("Importers as values: Hoverfly templates, Postman URLs, MockServer times")
struct ImportConversionTests {
    @Test(
        "Hoverfly template tags become Orrery names, or say why not",
        arguments: [
            ("{{ Request.Path.[1] }}", "{{request.pathSegments.1}}"),
            ("{{Request.QueryParam.page}}", "{{request.query.page}}"),
            ("{{ Request.Header.X-Trace }}", "{{request.headers.x-trace}}"),
            ("{{ Request.Body 'jsonpath' '$.items[0].sku' }}", "{{request.json.items.0.sku}}"),
            ("{{{ Request.Method }}} {{ randomUuid }}", "{{request.method}} {{uuid}}"),
            ("{{ now '' '' }}", "{{now}}"),
        ] as [(String, String)])
    func hoverflyTemplates(source: String, expected: String) throws {
        #expect(try HoverflyTemplate.convert(source).get() == expected)
    }

    @Test("Hoverfly template tags with no equivalent are refused by name")
    func hoverflyTemplateRefusals() {
        for tag in ["{{ Request.Scheme }}", "{{ Request.Body 'jsonpath' '$..sku' }}", "{{#each Request.Path}}x{{/each}}", "{{ State.basket }}"] {
            guard case .failure(let error) = HoverflyTemplate.convert(tag) else {
                Issue.record("\(tag) converted")
                continue
            }
            #expect(error.description.contains("cannot be converted"), "\(error)")
        }
    }

    @Test("Hoverfly: a glob becomes an anchored regex, literal characters escaped")
    func glob() throws {
        let regex = HoverflyImport.globRegex("*.hoverfly.io")
        let pattern = try Pattern(regex)
        #expect(pattern.matches("docs.hoverfly.io"))
        #expect(!pattern.matches("docsxhoverflyxio"))
        #expect(!pattern.matches("docs.hoverfly.io.evil"))
    }

    @Test("MockServer: times becomes one stub per answer on a scenario of its own; priority keeps MockServer's order")
    func mockServerTimes() throws {
        let document = try JSONValue.parse(#"""
            [{"httpRequest": {"path": "/a"}, "httpResponse": {"body": "x"}, "times": {"remainingTimes": 3}},
             {"httpRequest": {"path": "/b"}, "httpResponse": {"body": "y"}, "priority": 5}]
            """#)
        let result = try MockServerImport.stubs(from: document, name: "e")
        #expect(result.importedCount == 2)
        let stubs = try StubText.decode(try #require(result.files.first).text, as: .yaml)
        #expect(stubs.count == 4)
        #expect(stubs.map { $0.scenario?.requiredState } == ["Started", "answered 1", "answered 2", nil])
        #expect(stubs.map { $0.scenario?.newState } == ["answered 1", "answered 2", "used up", nil])
        #expect(stubs.map(\.priority) == [2, 2, 2, 1])
    }

    @Test("Postman: variables resolved, unknown ones and :names as path parameters, the host set aside")
    func postmanURLs() throws {
        let document = try JSONValue.parse(#"""
            {"info": {"name": "c", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
             "variable": [{"key": "base", "value": "https://api.example.com/v2"}],
             "item": [{"name": "r", "request": {"url": "{{base}}/users/:id/{{other}}?x=1"},
                       "response": [{"name": "ok", "code": 200, "body": "hi"}]}]}
            """#)
        let result = try PostmanImport.stubs(from: document, name: "c")
        let file = try #require(result.files.first)
        let stub = try #require(try StubText.decode(file.text, as: .yaml).first)
        #expect(stub.request.matches(.make(method: "GET", target: "/v2/users/7/z?x=1")))
        #expect(!stub.request.matches(.make(method: "GET", target: "/v2/users/7/z?x=2")))
        #expect(!stub.request.matches(.make(method: "POST", target: "/v2/users/7/z?x=1")))
    }
}
