import Foundation
import Testing

@testable import OrreryCore

/// A templated answer's body written straight into a payload (`DynamicResponse.renderAnswer`) is the answer
/// `render` makes, byte for byte, whether the template has a plan or renders as a tree, and over budget too.
@Suite("Templates: the answer rendered into a payload")
struct RenderAnswerTests {
    static let stubs = """
        - request: { path: "/users/{id}" }
          response:
            template: true
            headers: { X-User: "{{params.id}}", Content-Type: application/json }
            json: { id: "{{params.id}}", q: "{{request.query.q}}", agent: "{{request.headers.user-agent}}", method: "{{request.method}}" }
        - request: { path: /text }
          response: { template: true, body: "{{request.path}} {{request.query.q}} {{request.pathSegments.0}}" }
        - request: { path: /tree }
          response: { template: true, body: "{{#request.query.q}}q={{request.query.q}}{{/request.query.q}}|{{request.body}}" }
        - request: { path: /headers-only }
          response: { template: true, headers: { X-Path: "{{request.path}}" } }
        - request: { path: /page }
          response: { paginate: { perPage: 2, items: [1, 2, 3] } }
        """

    static let requests = [
        HTTPRequest(method: "GET", target: "/users/7?q=caf%C3%A9+%22au%22", headers: ["User-Agent": "curl \"8\""]),
        HTTPRequest(method: "GET", target: "/text?q=\(String(repeating: "long", count: 200))"),
        HTTPRequest(method: "POST", target: "/tree?q=a%0Ab", headers: [:], body: Array("body".utf8)),
        HTTPRequest(method: "GET", target: "/headers-only"),
        HTTPRequest(method: "GET", target: "/page?page=2"),
    ]

    static func dynamic(_ index: Int) throws -> (DynamicResponse, PathParameters) {
        let stub = try StubText.decode(stubs, as: .yaml)[index]
        let dynamic = try #require(PreparedResponse(stub.response, compress: nil).dynamic)
        return (dynamic, stub.request.pathParameters(requests[index]))
    }

    @Test("the same status, fields and bytes as render, for a plan, a tree, no body and a page", arguments: 0..<5)
    func sameAsRender(index: Int) throws {
        let (dynamic, parameters) = try Self.dynamic(index)
        let request = Self.requests[index]
        let answer = dynamic.renderAnswer(request, parameters: parameters, scheme: "http", budget: TemplateBudget())
        let rendered = dynamic.render(request, parameters: parameters, budget: TemplateBudget())
        #expect(answer.status == rendered.status)
        #expect(answer.headers == rendered.headers)
        #expect(answer.body.bytes == rendered.body)
        #expect(!rendered.body.isEmpty || index == 3)
    }

    @Test("over budget, a plan's answer is the same 500 as render's", arguments: [0, 1])
    func overBudget(index: Int) throws {
        let (dynamic, parameters) = try Self.dynamic(index)
        let budget = TemplateBudget(maximumBytes: 40)
        let answer = dynamic.renderAnswer(Self.requests[index], parameters: parameters, scheme: "http", budget: budget)
        let rendered = dynamic.render(Self.requests[index], parameters: parameters, budget: budget)
        #expect(answer.status == 500 && rendered.status == 500)
        #expect(answer.body.bytes == rendered.body && answer.headers == rendered.headers)
    }

    @Test("a payload writer keeps every byte in order as it grows past its capacity")
    func writerGrows() {
        var writer = PayloadWriter(capacity: 3)
        var expected: [UInt8] = []
        for round in 0..<200 {
            let bytes = (0..<(round % 7)).map { UInt8(truncatingIfNeeded: round &* 31 &+ $0) }
            bytes.withUnsafeBufferPointer { writer.append(contentsOf: $0) }
            writer.append(UInt8(truncatingIfNeeded: round))
            expected += bytes + [UInt8(truncatingIfNeeded: round)]
        }
        let payload = writer.payload()
        #expect(payload.count == expected.count && payload.bytes == expected)
    }
}
