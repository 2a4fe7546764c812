import OrreryCore
import Testing

@testable import OrreryServer

/// GraphQL batches through the pipeline as values: each operation looked up as a request of its own, the answers
/// joined in order, sequences moved on only when every operation is answered.
@Suite("Pipeline: GraphQL batches")
struct GraphQLBatchTests {
    static let files = [
        "graphql.yaml": """
        - request: { method: POST, path: /graphql, body: { graphql: { operationName: A } } }
          response: { status: 200, json: { data: { a: 1 } } }
        - request: { method: POST, path: /graphql, body: { graphql: { operationName: B } } }
          responses:
            - { status: 200, json: { data: { b: first } }, delay: 40 }
            - { status: 200, json: { data: { b: second } } }
        - request: { method: POST, path: /graphql, body: { graphql: { operationName: Slow } } }
          response: { status: 202, body: "", delay: 90 }
        - request: { method: POST, path: /graphql, body: { graphql: { operationName: Templated } } }
          response: { template: true, json: { echo: "{{graphql.variables.word}}" } }
        - request: { method: POST, path: /graphql, body: { json: [{ operationName: A }] } }
          response: { body: the whole list }
        """
    ]

    func batch(_ harness: PipelineHarness, _ json: String) -> Pipeline.Decision {
        harness.decide("POST", "/graphql", headers: ["Content-Type": "application/json"], body: json)
    }

    @Test("the answers in order, in one JSON list; statuses agreeing or 200, the longest delay")
    func answersInOrder() throws {
        let harness = try PipelineHarness(files: Self.files)
        let decision = batch(
            harness,
            #"[{"operationName":"B"},{"operationName":"A"},{"operationName":"Templated","variables":{"word":"hi"}},{"operationName":"B"}]"#
        )
        guard case .answer(let answer) = decision.reply else { Issue.record("\(decision.reply)"); return }
        #expect(
            answer.record?.body.text
                == #"[{"data":{"b":"first"}},{"data":{"a":1}},{"echo":"hi"},{"data":{"b":"second"}}]"#)
        #expect(
            answer.record?.status.code == 200
                && answer.record?.headers.first(named: "Content-Type") == "application/json")
        #expect(answer.delayMilliseconds == 40)
        let mixed = batch(harness, #"[{"operationName":"A"},{"operationName":"Slow"}]"#)
        guard case .answer(let other) = mixed.reply else { Issue.record("\(mixed.reply)"); return }
        #expect(other.record?.body.text == #"[{"data":{"a":1}},null]"#)
        #expect(other.record?.status.code == 200 && other.delayMilliseconds == 90)
    }

    @Test("a stub that takes the list whole answers it; a batch with an unanswered operation moves nothing on")
    func wholeAndMissed() throws {
        let harness = try PipelineHarness(files: Self.files)
        #expect(harness.answer("POST", "/graphql", body: #"[{"operationName":"A"}]"#).text == "the whole list")
        let missed = batch(harness, #"[{"operationName":"B"},{"operationName":"C"}]"#)
        guard case .answer(let answer) = missed.reply else { Issue.record("\(missed.reply)"); return }
        #expect(answer.record?.status.code == 404)
        #expect(answer.record?.body.text.contains(#"GraphQL operationName \"A\""#) == true)
        // B's sequence did not move: the next batch still gets its first answer.
        let next = batch(harness, #"[{"operationName":"B"}]"#)
        guard case .answer(let again) = next.reply else { Issue.record("\(next.reply)"); return }
        #expect(again.record?.body.text == #"[{"data":{"b":"first"}}]"#)
    }

    @Test("a list that is not GraphQL is no batch")
    func notABatch() throws {
        let harness = try PipelineHarness(files: Self.files)
        #expect(harness.answer("POST", "/graphql", body: "[1, 2]").status == 404)
        #expect(harness.answer("POST", "/graphql", body: "[]").status == 404)
    }
}
