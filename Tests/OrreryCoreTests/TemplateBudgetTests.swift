import Foundation
import Testing
@testable import OrreryCore

@Suite("Templates: the budget of one render")
struct TemplateBudgetTests {
    /// A path of `count` one-letter segments: `/a/a/a...`.
    static func longPath(_ count: Int) -> String {
        String(repeating: "/a", count: count)
    }

    static let nested = """
        {{#request.pathSegments}}{{#request.pathSegments}}{{#request.pathSegments}}x{{/request.pathSegments}}\
        {{/request.pathSegments}}{{/request.pathSegments}}
        """

    func render(
        _ text: String, _ request: HTTPRequest, budget: TemplateBudget
    ) throws -> (output: [UInt8], exceeded: TemplateBudget.Exceeded?) {
        let template = try TemplateCompiler().compile(text)
        var context = TemplateContext(request: request, generator: SeededGenerator(state: 1), budget: budget)
        let output = template.render(&context)
        return (output, context.exceeded)
    }

    @Test("Three nested sections over the segments of a 4 KB path stop at the step bound, with little output")
    func nestedSections() throws {
        let request = HTTPRequest.make(target: Self.longPath(2_000))
        let (output, exceeded) = try render(Self.nested, request, budget: TemplateBudget())
        #expect(exceeded == .steps(limit: TemplateBudget.defaultMaximumSteps))
        #expect(output.count <= TemplateBudget.defaultMaximumSteps)
    }

    @Test("Output past the byte bound stops the render")
    func outputBound() throws {
        let request = HTTPRequest.make(target: Self.longPath(100))
        let budget = TemplateBudget(maximumBytes: 1_000, maximumSteps: 1_000_000)
        let (output, exceeded) = try render(
            "{{#request.pathSegments}}{{#request.pathSegments}}0123456789{{/request.pathSegments}}{{/request.pathSegments}}",
            request, budget: budget)
        #expect(exceeded == .bytes(limit: 1_000))
        #expect(output.count <= 1_000 + 10)
    }

    @Test("A body larger than the bytes left is not copied")
    func bodyBound() throws {
        let request = HTTPRequest.make(method: "POST", target: "/", body: String(repeating: "b", count: 5_000))
        let (output, exceeded) = try render("<{{request.body}}>", request, budget: TemplateBudget(maximumBytes: 4_096))
        #expect(exceeded == .bytes(limit: 4_096))
        #expect(output.count < 4_096)
    }

    @Test("A render within budget is complete and reports nothing")
    func withinBudget() throws {
        let request = HTTPRequest.make(target: Self.longPath(10))
        let (output, exceeded) = try render(Self.nested, request, budget: TemplateBudget())
        #expect(exceeded == nil)
        #expect(output.count == 1_000)
    }

    @Test("A response over budget is a 500 that says which bound, without the partial output")
    func overBudgetResponse() throws {
        let stub = try StubText.decodeOne(
            """
            request: { method: GET, pathPattern: "/.*" }
            response:
              template: true
              headers: { X-Seen: "{{request.path}}" }
              body: "\(Self.nested)"
            """)
        let dynamic = try #require(stub.response.dynamic)
        let response = dynamic.render(HTTPRequest.make(target: Self.longPath(2_000)))
        #expect(response.status == 500)
        #expect(response.bodyText.contains("template over budget"))
        #expect(response.bodyText.contains("steps"))
        #expect(response.headers.first(named: "X-Seen") == nil)
        let small = dynamic.render(HTTPRequest.make(target: Self.longPath(3)), budget: TemplateBudget(maximumBytes: 8))
        #expect(small.status == 500)
        #expect(small.bodyText.contains("--template-max-bytes"))
        #expect(dynamic.render(HTTPRequest.make(target: Self.longPath(3))).bodyText == String(repeating: "x", count: 27))
    }
}
