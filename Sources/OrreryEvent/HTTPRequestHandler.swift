import OrreryCore

/// Answers requests on one event loop. Each loop gets its own handler, so a handler keeps per-loop state
/// without locks.
public protocol HTTPRequestHandler: AnyObject {
    /// Called on the loop's thread; the responder must be used exactly once, before this returns.
    func handle(_ request: HTTPRequest, responder: Responder)
}
