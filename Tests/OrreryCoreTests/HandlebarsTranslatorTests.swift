import Testing
@testable import OrreryCore

@Suite("WireMock's Handlebars as Orrery templates")
struct HandlebarsTranslatorTests {
    let translator = HandlebarsTranslator(parameterNames: ["id"])

    @Test("The request model's names become the names Orrery compiles", arguments: [
        ("{{request.path}}", "{{request.path}}"),
        ("{{request.path.[1]}} {{request.pathSegments.[0]}}", "{{request.pathSegments.1}} {{request.pathSegments.0}}"),
        ("{{request.path.id}} {{request.pathParameters.id}}", "{{params.id}} {{params.id}}"),
        ("{{request.query.page}} {{request.query.page.[0]}}", "{{request.query.page}} {{request.query.page}}"),
        ("{{request.headers.X-Trace}} {{request.headers.[Content-Type]}}", "{{request.headers.x-trace}} {{request.headers.content-type}}"),
        ("{{{request.body}}} {{ request.method }}", "{{request.body}} {{request.method}}"),
        ("{{jsonPath request.body '$.items[0].sku'}}", "{{request.json.items.0.sku}}"),
        ("{{randomValue type='UUID'}} {{now}}", "{{uuid}} {{now}}"),
        ("a{{! note }}b", "ab"),
    ])
    func names(handlebars: String, orrery: String) throws {
        #expect(try translator.translate(handlebars) == orrery)
    }

    @Test("#if and #unless on a value, with else, become sections and inverted sections")
    func blocks() throws {
        #expect(try translator.translate("{{#if request.query.q}}with {{request.query.q}}{{else}}none{{/if}}")
            == "{{#request.query.q}}with {{request.query.q}}{{/request.query.q}}{{^request.query.q}}none{{/request.query.q}}")
        #expect(try translator.translate("{{#unless request.headers.x}}no x{{/unless}}") == "{{^request.headers.x}}no x{{/request.headers.x}}")
    }

    @Test("What has no equivalent is refused with the tag and why", arguments: [
        ("{{math 1 '+' 2}}", "helper 'math' is not supported"),
        ("{{request.url}}", "'request.url' has no Orrery equivalent"),
        ("{{jsonPath request.body '$..sku'}}", "the JSONPath '$..sku' is not a plain path of names and indexes"),
        ("{{#each request.query.x}}{{this}}{{/each}}", "block helper 'each' is not supported (only #if and #unless on a value)"),
        ("{{request.path", "the tag is not closed"),
        ("{{lower (request.query.x)}}", "subexpressions are not supported"),
    ])
    func refusals(handlebars: String, reason: String) {
        #expect(throws: HandlebarsTranslator.Refusal.self) { try translator.translate(handlebars) }
        do {
            _ = try translator.translate(handlebars)
        } catch {
            #expect(error.reason == reason)
        }
    }
}
