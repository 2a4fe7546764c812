import OrreryCore
import OrreryOpenAPI

extension Reply {
    /// A spec's answer, journaled with the operation that gave it and, in `report` mode, the request's violations.
    static func openAPI(_ answer: OpenAPIAnswer) -> Reply {
        // Made in place in the answer: a record built first and then handed over was copied, every field retained.
        .answer(
            Answer(
                answer.encoded,
                record: JournalRecord(
                    status: HTTPStatus(answer.status), headers: answer.headers, body: answer.body,
                    outcome: .spec(operationId: answer.operationId, source: answer.source),
                    contractViolations: answer.violations.isEmpty ? nil : .array(answer.violations.map(\.json)))))
    }
}
