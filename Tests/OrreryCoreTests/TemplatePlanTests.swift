import Foundation
import Testing

@testable import OrreryCore

/// The flat plan of a template of literals and request text writes what the node tree writes, byte for byte, with
/// the same budget; templates with anything else have no plan.
@Suite("Template plans")
struct TemplatePlanTests {
    static let requests = [
        HTTPRequest(
            method: "GET", target: "/users/7/posts?q=caf%C3%A9+au+lait&q=2&tag=a%22b&empty=",
            headers: [
                "User-Agent": "curl/8 \"quoted\" <tag> & more", "Cookie": "a=1; session=s%20x; b=2",
                "X-Multi": "one", "x-multi": "two",
            ]),
        HTTPRequest(method: "POST", target: "/users/%C3%A9t%C3%A9/posts", headers: ["Host": "api.example.test"]),
        HTTPRequest(method: "GET", target: "/users/a\\b/posts?q=line%0Abreak\ttab", headers: [:]),
    ]

    static let mustache = [
        #"{"id":"{{params.id}}","name":"user {{params.id}}","path":"{{request.path}}","q":"{{request.query.q}}"}"#,
        "{{request.method}} {{request.headers.user-agent}} {{request.query.missing}}|{{request.query.empty}}|",
        "{{request.pathSegments.0}}/{{request.pathSegments.2}}/{{request.pathSegments.9}} {{request.query.tag}}",
        "plain text only",
    ]

    static let handlebars = [
        "{{request.path.[1]}} {{request.query.q.[1]}} {{request.headers.X-Multi.[1]}} {{request.cookies.session}}",
        "{{{request.headers.User-Agent}}} {{request.headers.User-Agent}} {{request.url}} {{request.method}}",
        "{{request.query.tag}}{{request.query.nothing}}{{request.path.[7]}}",
    ]

    static let withoutPlan = [
        "{{#request.query.q}}x{{/request.query.q}}", "{{request.body}}", "{{now}}", "{{request.json.a}}",
    ]

    /// Renders through the plan (as `render` does) and through the tree.
    static func both(_ template: Template, _ request: HTTPRequest, parameters: PathParameters) -> ([UInt8], [UInt8]) {
        var planned = TemplateContext(request: request, parameters: parameters, generator: SeededGenerator(state: 1))
        let viaPlan = template.render(&planned)
        var treeContext = TemplateContext(
            request: request, parameters: parameters, generator: SeededGenerator(state: 1))
        var viaTree: [UInt8] = []
        var stack: [TemplateValue] = []
        TemplateRenderer.render(
            template.nodes, mode: template.mode, into: &viaTree, context: &treeContext, stack: &stack)
        return (viaPlan, viaTree)
    }

    @Test("Mustache and Handlebars templates of request text: the plan writes what the tree writes")
    func sameOutput() throws {
        let pattern = try #require(try PathTemplate.parse("/users/{id}/posts"))
        var templates: [Template] = []
        var written = 0
        for text in Self.mustache {
            let compiler = TemplateCompiler(scope: TemplateScope(parameterNames: ["id"]))
            templates.append(try compiler.compile(text, mode: .text))
            templates.append(try compiler.compile(text, mode: .jsonString))
        }
        for text in Self.handlebars {
            templates.append(try HandlebarsCompiler(parameterNames: ["id"]).compile(text))
        }
        for template in templates {
            #expect(template.plan != nil, "\(template.source)")
            for request in Self.requests {
                let parameters = pattern.match(request.path) ?? PathParameters()
                let (viaPlan, viaTree) = Self.both(template, request, parameters: parameters)
                #expect(viaPlan == viaTree, "\(template.source) for \(request.target)")
                written += viaPlan.count
            }
        }
        #expect(written > 1_000)
    }

    @Test("Sections, the body, JSON and now keep the tree")
    func noPlan() throws {
        for text in Self.withoutPlan {
            #expect(try TemplateCompiler().compile(text).plan == nil, "\(text)")
        }
    }

    @Test("The plan spends the budget as the tree does: one step per node")
    func sameBudget() throws {
        let template = try TemplateCompiler().compile("a{{request.method}}b{{request.path}}c{{request.query.q}}")
        #expect(template.plan != nil)
        for steps in 0...7 {
            let budget = TemplateBudget(maximumSteps: steps)
            var planned = TemplateContext(request: Self.requests[0], budget: budget)
            let viaPlan = template.render(&planned)
            var treeContext = TemplateContext(request: Self.requests[0], budget: budget)
            var viaTree: [UInt8] = []
            var stack: [TemplateValue] = []
            TemplateRenderer.render(template.nodes, mode: .text, into: &viaTree, context: &treeContext, stack: &stack)
            _ = treeContext.spend(0, outputBytes: viaTree.count)
            #expect(viaPlan == viaTree && planned.exceeded == treeContext.exceeded, "\(steps) steps")
        }
    }
}
