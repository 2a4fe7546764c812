import OrreryCore
import OrreryEvent

extension AdminReply {
    /// The answer to a journal query, made once the query has run a slice per loop turn: the loop serves its
    /// other clients between slices, however heavy the pattern and however full the journal.
    static func answer(
        to query: JournalQuery, with make: @escaping @Sendable ([JournalEntry]) -> AdminReply
    ) -> AdminReply {
        .streamed { responder in
            JournalQueryRun(query: query, responder: responder, make: make).advance()
        }
    }
}

/// One query under way on one loop; it lives in the jobs it schedules for itself until it answers.
private final class JournalQueryRun {
    private var query: JournalQuery
    private let responder: Responder
    private let make: ([JournalEntry]) -> AdminReply

    init(query: JournalQuery, responder: Responder, make: @escaping ([JournalEntry]) -> AdminReply) {
        self.query = query
        self.responder = responder
        self.make = make
    }

    func advance() {
        // A client that left needs no answer: the rest of the journal is not searched for it.
        guard responder.isConnected else { return }
        guard query.advance() else {
            // Not 0: libevent runs a job due now in the same pass, before it polls the sockets again.
            responder.after(milliseconds: 1) { [self] in advance() }
            return
        }
        let reply = make(query.found)
        responder.send(reply.response.encoded)
    }
}
