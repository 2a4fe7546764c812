import OrreryCore

// GraphQL batches: a POST of a JSON list of operations, answered with the list of the operations' answers.
extension Pipeline {
    /// What a batch came to: every operation answered by a stub, or the first operation no stub answers (the one
    /// a 404 explains).
    enum GraphQLBatchOutcome {
        case answered(Reply)
        case missed(operation: HTTPRequest)
    }

    /// Each operation of a batch looked up as a request of its own (the same method, URL and headers, its object as
    /// the body), then the answers' bodies joined into one JSON list in order; nil when the request is not a batch.
    ///
    /// Nothing moves on (sequences, scenarios) unless every operation is answered. The list's status is the
    /// operations' own when they all agree, else 200; its delay is the longest of theirs. A fault of any operation's
    /// stub is the batch's.
    static func graphQLBatch(
        _ request: HTTPRequest, scheme: String, in session: Session, index: StubIndex, budget: TemplateBudget
    ) -> GraphQLBatchOutcome? {
        guard let items = GraphQLRequest.batchItems(request) else { return nil }
        var found: [(HTTPRequest, IndexedStub)] = []
        for item in items {
            let operation = HTTPRequest(
                method: request.method, target: request.target, headers: request.headers, body: item.encodedBytes)
            guard let entry = session.lookup(operation, shared: index) else { return .missed(operation: operation) }
            found.append((operation, entry))
        }
        var bodies: [Payload] = []
        var statuses: [Int] = []
        var delay = 0
        for (operation, entry) in found {
            let reply = answer(
                operation, scheme: scheme, from: entry, prepared: session.nextResponse(of: entry), budget: budget)
            switch reply {
            case .stub(_, let prepared):
                bodies.append(prepared.body)
                statuses.append(prepared.status)
                delay = max(delay, prepared.delayMilliseconds)
            case .rendered(_, let encoded, _, let body, let delayMilliseconds):
                bodies.append(body)
                statuses.append(encoded.status)
                delay = max(delay, delayMilliseconds)
            case .answer(let answer):
                guard let record = answer.record else { return .answered(reply) }
                bodies.append(record.body)
                statuses.append(record.status.code)
                delay = max(delay, answer.delayMilliseconds)
            default:
                return .answered(reply)
            }
        }
        var joined: [UInt8] = [UInt8(ascii: "[")]
        for (position, body) in bodies.enumerated() {
            if position > 0 { joined.append(UInt8(ascii: ",")) }
            // An empty answer still holds its place in the list.
            if body.count == 0 { joined += Array("null".utf8) } else { body.withUnsafeBytes { joined += $0 } }
        }
        joined.append(UInt8(ascii: "]"))
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        let status = statuses.allSatisfy { $0 == statuses.first } ? statuses.first ?? 200 : 200
        let response = Response(status: HTTPStatus(status), headers: headers, body: Payload(joined))
        let stubs = found.map(\.1.stub)
        let outcome = JournalEntry.Outcome.stub(
            id: stubs.first?.id ?? "", name: "batch: " + stubs.map(\.label).joined(separator: ", "),
            location: stubs.first?.location)
        let made = Answer(response, outcome: outcome)
        made.delayMilliseconds = delay
        return .answered(.answer(made))
    }
}
