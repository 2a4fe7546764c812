import OrreryCore
import OrreryOpenAPI

extension Reply {
    /// A spec's answer, journaled with the operation that gave it and, in `report` mode, the request's violations.
    static func openAPI(_ answer: OpenAPIAnswer) -> Reply {
        var record = JournalRecord(
            status: HTTPStatus(answer.status), headers: answer.headers, body: answer.body,
            outcome: .spec(operationId: answer.operationId, source: answer.source))
        if !answer.violations.isEmpty { record.contractViolations = .array(answer.violations.map(\.json)) }
        return .answer(Answer(answer.encoded, record: record))
    }
}
