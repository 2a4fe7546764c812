import Foundation
import Testing

@testable import OrreryCore

@Suite("WireMock's Handlebars, compiled")
struct HandlebarsCompilerTests {
    /// 2024-05-01T12:34:56.789Z.
    static let now = Date(timeIntervalSince1970: 1_714_566_896.789)

    func render(
        _ text: String, method: String = "GET", target: String = "/users/42/orders?q=a%26b&page=2&page=3",
        headers: HTTPHeaders = ["Host": "example.test:8080", "X-Trace": "t-1", "Cookie": "session=abc; theme=dark"],
        body: String =
            #"{"user":{"name":"Ada","tags":["x","y"]},"items":[{"sku":"A1","qty":2},{"sku":"B2","qty":5}],"n":"7"}"#
    ) throws -> String {
        let template = try HandlebarsCompiler(parameterNames: ["id"]).compile(text)
        var context = TemplateContext(
            request: HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8)),
            parameters: PathParameters(names: ["id"], values: ["42"]), now: Self.now,
            generator: SeededGenerator(state: 7))
        return template.renderText(&context)
    }

    @Test(
        "The request model",
        arguments: [
            ("{{request.url}}", "/users/42/orders?q&#x3D;a%26b&amp;page&#x3D;2&amp;page&#x3D;3"),
            ("{{{request.url}}}", "/users/42/orders?q=a%26b&page=2&page=3"),
            (
                "{{request.path}} {{request.path.[1]}} {{request.pathSegments.[2]}} {{request.path.id}}",
                "/users/42/orders 42 orders 42"
            ),
            ("{{{request.query.q}}} {{request.query.page}} {{request.query.page.[1]}}", "a&b 2 3"),
            ("{{request.headers.X-Trace}} {{request.headers.[x-trace]}} {{request.cookies.theme}}", "t-1 t-1 dark"),
            ("{{request.method}} {{request.baseUrl}}", "GET http://example.test:8080"),
            ("{{! a comment }}{{!-- {{not}} a tag --}}x", "x"),
        ])
    func model(template: String, expected: String) throws {
        #expect(try render(template) == expected)
    }

    @Test(
        "Helpers",
        arguments: [
            ("{{jsonPath request.body '$.user.name'}} {{jsonPath request.body '$.items[1].qty'}}", "Ada 5"),
            ("{{{jsonPath request.body '$.user.tags'}}}", #"["x","y"]"#),
            ("{{jsonPath request.body '$.nothing' default='none'}}", "none"),
            ("{{regexExtract request.path '[0-9]+'}}", "42"),
            ("{{now}} {{now format='yyyy-MM-dd HH:mm:ss.SSS'}}", "2024-05-01T12:34:56Z 2024-05-01 12:34:56.789"),
            (
                "{{now offset='2 days' format='dd/MM/yyyy'}} {{now format='epoch'}} {{now format='unix'}}",
                "03/05/2024 1714566896789 1714566896"
            ),
            ("{{now format=\"EEE, dd MMM yyyy HH:mm:ss 'GMT'\"}}", "Wed, 01 May 2024 12:34:56 GMT"),
            ("{{date '2024-05-01T10:00:00Z' offset='-1 hours' format='HH:mm'}}", "09:00"),
            ("{{base64 'hello'}} {{base64 'aGVsbG8=' decode=true}}", "aGVsbG8&#x3D; hello"),
            ("{{urlEncode 'a b&c'}} {{urlEncode 'a+b%26c' decode=true}}", "a+b%26c a b&amp;c"),
            ("{{upper request.method}} {{lower 'AbC'}} [{{trim '  x  '}}]", "GET abc [x]"),
            ("{{size 'abcd'}} {{size (jsonPath request.body '$.items')}}", "4 2"),
            ("{{math 1 '+' 2}} {{math 7 '/' 2}} {{math (jsonPath request.body '$.n') '*' 3}}", "3 4 21"),
            ("{{math 7.0 '/' 2}} {{math 2 '*' 2.5}} {{math 10 '%' 3}}", "3.5 5.0 1"),
            ("{{{jsonPath request.body '$.user'}}}", "{\n  \"name\" : \"Ada\",\n  \"tags\" : [ \"x\", \"y\" ]\n}"),
            ("{{{formatJson '{\"a\":1}'}}}", "{\n  \"a\" : 1\n}"),
        ])
    func helpers(template: String, expected: String) throws {
        #expect(try render(template) == expected)
    }

    @Test(
        "JSONPath filters and recursive descent, as Jayway's",
        arguments: [
            ("{{{jsonPath request.body '$.items[?(@.qty > 3)].sku'}}}", #"["B2"]"#),
            ("{{{jsonPath request.body '$.items[?(@.sku == \"A1\")]'}}}", #"[{"sku":"A1","qty":2}]"#),
            ("{{{jsonPath request.body '$.items[?(@.sku =~ /a.*/i && @.qty < 3)].qty'}}}", "[2]"),
            ("{{{jsonPath request.body '$..sku'}}}", #"["A1","B2"]"#),
            ("{{{jsonPath request.body '$.user[?(@.name)].name'}}}", #"["Ada"]"#),
            ("{{{jsonPath request.body '$.items[?(!(@.qty == 2) || @.none)].sku'}}}", #"["B2"]"#),
        ])
    func filters(template: String, expected: String) throws {
        #expect(try render(template) == expected)
    }

    @Test("Random values have their shape")
    func random() throws {
        let uuid = try render("{{randomValue type='UUID'}}")
        #expect(uuid.count == 36 && uuid.filter { $0 == "-" }.count == 4)
        let digits = try render("{{randomValue length=12 type='NUMERIC'}}")
        #expect(digits.count == 12 && digits.allSatisfy(\.isNumber))
        let upper = try render("{{randomValue length=8 type='ALPHABETIC' uppercase=true}}")
        #expect(upper.count == 8 && upper.allSatisfy(\.isUppercase))
        #expect(["a", "b"].contains(try render("{{pickRandom 'a' 'b'}}")))
    }

    @Test(
        "Blocks and comparisons",
        arguments: [
            ("{{#if request.query.q}}q{{else}}none{{/if}}", "q"),
            ("{{#unless request.query.missing}}no{{/unless}}", "no"),
            ("{{#eq request.method 'POST'}}post{{else}}other{{/eq}}", "other"),
            (
                "{{#if (eq request.method 'POST')}}post{{else if (eq request.method 'GET')}}get{{else}}other{{/if}}",
                "get"
            ),
            ("{{#gt (jsonPath request.body '$.items[1].qty') 3}}many{{/gt}} {{#lt 2 10}}lt{{/lt}}", "many lt"),
            (
                "{{#contains request.path 'orders'}}yes{{/contains}} {{#matches request.path '/users/[0-9]+/orders'}}m{{/matches}}",
                "yes m"
            ),
            ("{{#each (jsonPath request.body '$.items')}}{{sku}}={{this.qty}};{{/each}}", "A1=2;B2=5;"),
            ("{{#each request.pathSegments}}[{{this}}]{{/each}}", "[users][42][orders]"),
            ("{{#each (jsonPath request.body '$.none')}}x{{else}}empty{{/each}}", "empty"),
            ("{{#and request.query.q (not request.query.none)}}both{{/and}}", "both"),
            ("a\n{{#if request.query.q}}\nline\n{{/if}}\nb", "a\n\nline\n\nb"),
            ("a {{~ request.method ~}} b", "aGETb"),
        ])
    func blocks(template: String, expected: String) throws {
        #expect(try render(template) == expected)
    }

    @Test(
        "What Orrery does not run is refused with the line and why",
        arguments: [
            ("{{request.nothing}}", "'request.nothing' is not a field of the request model that Orrery knows"),
            ("x\n{{lookup request.query 'x'}}", "helper 'lookup' is not supported"),
            ("{{#with request}}{{/with}}", "block helper 'with' is not supported"),
            ("{{jsonPath request.body '$.items[0:1]'}}", "'jsonPath' $.items[0:1]: '[0:1]' is not supported"),
            ("{{#if request.path}}", "the block '{{#if}}' is never closed"),
            ("{{now format='yyyy-MM-dd QQ'}}", "the date format 'yyyy-MM-dd QQ' has the letter 'Q'"),
            ("{{regexExtract request.body '(a)\\1'}}", "'regexExtract': the regex"),
            ("{{parameters.x}}", "'parameters.x' is neither a helper Orrery runs nor a field of the request model"),
        ])
    func refusals(template: String, message: String) {
        do {
            _ = try HandlebarsCompiler(parameterNames: ["id"]).compile(template)
            Issue.record("compiled: \(template)")
        } catch {
            #expect(error.message.hasPrefix(message), "\(error.message)")
            #expect(error.line == (template.hasPrefix("x\n") ? 2 : 1))
        }
    }

    @Test("A stub with template: handlebars runs it")
    func stub() throws {
        let yaml = """
            - request: { method: GET, path: "/users/{id}" }
              response:
                template: handlebars
                headers: { X-Id: "{{request.path.id}}" }
                body: "{{#eq request.path.id '42'}}answer{{/eq}} {{request.query.q}}"
            """
        let rendered = try renderStub(yaml, .make(target: "/users/42?q=%3Cb%3E"))
        #expect(String(decoding: rendered.body, as: UTF8.self) == "answer &lt;b&gt;")
        #expect(rendered.headers.first(named: "X-Id") == "42")
    }

    @Test(
        "jsonBody numbers as WireMock writes them",
        arguments: [
            ("1234567890.12", "1234567890.12"), ("2.0", "2"), ("1.50", "1.5"), ("100.250", "100.25"), ("10", "10"),
        ])
    func jackson(written: String, served: String) {
        #expect(SourceNode.withoutTrailingZeros(written) == served)
    }
}
