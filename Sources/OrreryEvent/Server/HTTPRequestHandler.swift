import OrreryCore

/// Answers requests on one event loop. Each loop gets its own handler, so a handler keeps per-loop state
/// without locks.
public protocol HTTPRequestHandler: AnyObject {
    /// Called on the loop's thread with a whole request; answer it through `responder` once, now or later on
    /// this loop.
    func handle(_ request: HTTPRequest, responder: Responder)
}
