import Foundation
import OrreryCore
import OrreryEvent

/// One request being answered: what the executor needs to answer it and to journal it.
struct Exchange {
    /// The request as the pipeline read it, with how and from where it came; moved in, not copied.
    let incoming: PipelineRequest
    let responder: Responder
    /// When the request arrived (`.distantPast` when nothing captures exchanges).
    let startedAt: Date
    let session: Session

    init(_ incoming: consuming PipelineRequest, responder: Responder, startedAt: Date, session: Session) {
        self.incoming = incoming
        self.responder = responder
        self.startedAt = startedAt
        self.session = session
    }

    var request: HTTPRequest { incoming.head }

    /// How the client reached Orrery: `http`, or `https` (the TLS port, an intercepted tunnel).
    var scheme: String { incoming.scheme }
}
