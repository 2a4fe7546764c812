import OrreryCore

/// Answers requests on one event loop. Each loop gets its own handler, so a handler keeps per-loop state
/// without locks.
public protocol HTTPRequestHandler: AnyObject {
    /// Called on the loop's thread with a whole request; answer it through `responder` once, now or later on
    /// this loop. The request is handed over, not lent: the handler keeps it without copying its fields.
    func handle(_ request: consuming HTTPRequest, responder: Responder)
}
