/// What an exchange (a request and the answer it got) was found to break in a spec: the operation it belongs to,
/// and every violation, the response's with a location that starts `response.` (`response.body`).
public struct ExchangeCheck: Sendable {
    public enum Target: Sendable, Equatable {
        /// The spec's operation: its spec and index, for the drift report.
        case operation(spec: Int, index: Int)
        /// No operation of the spec has this path, or this method on it.
        case undocumented
    }

    public var target: Target
    public var violations: [ContractViolation]
    /// The answer's status is not among the operation's responses (and there is no `default`).
    public var isStatusUndocumented: Bool
}
