import OrreryCore
import OrreryEvent
import OrreryOpenAPI

/// What the pipeline decided to answer a request with, as a value. `ReplyExecutor` carries it out and journals it,
/// so no path can forget the journal or answer twice.
enum Reply {
    /// A stub's answer as prepared when the stubs loaded (encoded, compressed), sent as it is: the request path's
    /// usual case, which makes and copies nothing.
    case stub(IndexedStub, PreparedResponse)
    /// A spec's answer (`--openapi`), sent as the spec prepared it and journaled from it: as a stub's, no answer
    /// object or journal record is made for it.
    case spec(OpenAPIAnswer)
    /// An answer to send once: a stub's dynamic one (rendered, delayed or cut for this request), or one made for it
    /// (a miss, an error, an admin answer).
    case answer(Answer)
    /// A stub's template or page rendered for this request, without a fault or a bandwidth limit: sent and
    /// journaled as a stub's prepared answer is (the journal keeps the fields and body as rendered, the body even
    /// where the status sends none), with no answer object or journal record made for it.
    case rendered(IndexedStub, EncodedResponse, headers: HTTPHeaders, body: Payload, delayMilliseconds: Int)
    /// A stub's fault in place of an answer: a reset, a close, bytes that are not HTTP, or silence.
    case fault(Fault, delayMilliseconds: Int, outcome: JournalEntry.Outcome)
    /// Sent on to an upstream; its answer, or the failure, is then sent and journaled as an `answer` is.
    case forward(ProxyForwarder.Plan)
    /// `CONNECT`: a byte-for-byte tunnel to the target.
    case tunnel(ConnectTarget)
    /// `CONNECT` to a host Orrery intercepts: answered here, and the requests inside come through the pipeline.
    case intercept(ConnectTarget, TLSServerContext)
    /// A WebSocket stub: the upgrade accepted and its script played on the socket.
    case webSocket(IndexedStub, WebSocketScript, TemplateBudget)
    /// A stub's server-sent events, each sent when it is due.
    case events(IndexedStub, PreparedResponse, EventStreamScript)
    /// An answer whose body is sent as it happens (the admin API's server-sent events), started on the responder.
    case stream(@Sendable (Responder) -> Void)
}

/// An answer ready to go, and what the journal keeps of it.
///
/// A class: the reply that carries it is handed from the pipeline to the executor and bound on the way, and as a
/// value each step copied the encoded response and the journal record, every field retained and then released.
final class Answer {
    /// What goes out, encoded.
    var response: EncodedResponse
    /// What the journal keeps (the body as the stub gives it, whichever encoding goes out); nil for answers that
    /// are not traffic (the admin API's, a session that does not exist).
    var record: JournalRecord?
    var delayMilliseconds = 0
    /// A bandwidth limit: a slice every 100 ms.
    var bytesPerSecond: Int?
    /// The `truncatedBody` fault: the head with the full length, then only this many bytes of the body.
    var truncatedBodyBytes: Int?

    init(
        _ response: EncodedResponse, record: JournalRecord?, delayMilliseconds: Int = 0, bytesPerSecond: Int? = nil,
        truncatedBodyBytes: Int? = nil
    ) {
        self.response = response
        self.record = record
        self.delayMilliseconds = delayMilliseconds
        self.bytesPerSecond = bytesPerSecond
        self.truncatedBodyBytes = truncatedBodyBytes
    }

    /// An answer made for this request, journaled with `outcome` when it has one.
    convenience init(_ made: Response, outcome: JournalEntry.Outcome?) {
        self.init(
            made.encoded,
            record: outcome.map {
                JournalRecord(
                    status: made.status, headers: made.headers, body: made.body, outcome: $0, trailers: made.trailers)
            })
    }
}

/// What the journal keeps of an answer: what went out, and who answered.
struct JournalRecord {
    var status: HTTPStatus
    var headers: HTTPHeaders
    var body: Payload
    var outcome: JournalEntry.Outcome
    /// The fault carried out, by name.
    var fault: String?
    /// What the exchange breaks in an OpenAPI spec, when it was checked.
    var contractViolations: JSONValue?
    /// Fields sent after the body (an HTTP/2 upstream's).
    var trailers: HTTPHeaders?
}

extension Reply {
    /// Whether this is the answer to a request no stub matched. Asked of every reply: it looks at the outcome in
    /// place, where binding the answer to read it copied the whole answer first.
    var isMiss: Bool {
        guard case .answer(let answer) = self, case .unmatched? = answer.record?.outcome else { return false }
        return true
    }

    /// An answer made for this request (a miss, an error, an upstream's relayed answer), journaled with `outcome`;
    /// nil for answers that are not traffic.
    static func made(_ response: Response, outcome: JournalEntry.Outcome?) -> Reply {
        .answer(Answer(response, outcome: outcome))
    }
}
