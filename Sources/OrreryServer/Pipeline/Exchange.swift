import Foundation
import OrreryCore
import OrreryEvent

/// One request being answered: what the executor needs to answer it and to journal it.
struct Exchange {
    let request: HTTPRequest
    let responder: Responder
    /// When the request arrived (`.distantPast` when nothing captures exchanges).
    let startedAt: Date
    let session: Session
    /// When the request arrived by `MetricsLayout.now()`, for its duration in the metrics (0 when not counted).
    var arrivedAt = 0

    /// How the client reached Orrery: `http`, or `https` (the TLS port, an intercepted tunnel).
    var scheme: String { responder.scheme }
}
