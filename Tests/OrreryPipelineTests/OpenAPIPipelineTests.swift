import Foundation
import OrreryCore
import OrreryOpenAPI
import Testing

@testable import OrreryServer

/// `--openapi` in the pipeline, with no port: stubs of every kind first, then the spec, its misses a problem.
@Suite("Pipeline: answers from an OpenAPI spec")
struct OpenAPIPipelineTests {
    static func harness() throws -> PipelineHarness {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/openapi/petstore-3.0.yaml").path
        let mock = OpenAPIMock(specs: [try OpenAPISpecLoader.load(path: path)])
        return try PipelineHarness(
            files: [
                "pets.yaml": #"- request: { method: GET, path: /v1/pets/1 }"# + "\n  response: { body: from a file }\n"
            ],
            openAPI: mock)
    }

    @Test("A file stub wins; other operations are the spec's, journaled with their operation")
    func stubsFirst() throws {
        let harness = try Self.harness()
        #expect(harness.answer("/v1/pets/1").text == "from a file")
        let decision = harness.decide("GET", "/v1/pets/2")
        guard case .spec(let answer) = decision.reply else {
            Issue.record("not a spec's answer: \(decision.reply)")
            return
        }
        #expect(answer.status == 200)
        #expect(answer.encoded.status == 200)
        #expect(answer.operationId == "showPetById")
        #expect(answer.source.hasSuffix("petstore-3.0.yaml"))
        #expect(harness.answer("/v1/pets?limit=x").status == 400)
        #expect(harness.answer("/nowhere").status == 404)
    }

    @Test("A session's own stub wins over the spec too")
    func sessionStubsFirst() throws {
        let harness = try Self.harness()
        let opened = harness.decide("POST", "/__admin/sessions", body: "{}")
        guard case .answer(let answer) = opened.reply,
            let id = (try? JSONValue.parse(answer.response.body.bytes))?["id"]?.stringValue
        else {
            Issue.record("no session: \(opened.reply)")
            return
        }
        let stub = #"{"request": {"method": "GET", "path": "/v1/pets/3"}, "response": {"body": "mine"}}"#
        #expect(harness.answer("POST", "/__admin/stubs", body: stub, session: id).status == 201)
        #expect(harness.answer("/v1/pets/3", session: id).text == "mine")
        #expect(harness.answer("/v1/pets/3").text.contains("\"name\""))
    }
}
