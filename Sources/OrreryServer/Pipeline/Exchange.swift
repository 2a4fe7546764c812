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
    /// When the request arrived by `MetricsLayout.now()`, for its duration in the metrics (0 when not counted).
    let arrivedAt: Int

    init(
        _ incoming: consuming PipelineRequest, responder: Responder, startedAt: Date, session: Session,
        arrivedAt: Int = 0
    ) {
        self.incoming = incoming
        self.responder = responder
        self.startedAt = startedAt
        self.session = session
        self.arrivedAt = arrivedAt
    }

    /// Lent in place (`_read`): a plain getter returned a copy, a dozen references retained and released, for
    /// every read of one field through it.
    var request: HTTPRequest { _read { yield incoming.head } }

    /// How the client reached Orrery: `http`, or `https` (the TLS port, an intercepted tunnel).
    var scheme: String { _read { yield incoming.scheme } }
}
