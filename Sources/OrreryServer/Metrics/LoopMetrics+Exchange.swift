import OrreryCore
import OrreryEvent

extension LoopMetrics {
    /// Counts a journaled exchange by its outcome; a forwarded one's time also goes to the upstream histogram.
    func count(_ outcome: JournalEntry.Outcome, fault: String?, status: Int, for exchange: Exchange) {
        var environment = 0
        if case .proxied(let name, _, _) = outcome {
            environment = layout.environmentIndex(name ?? "none")
            upstreamAnswered(environment: environment, nanoseconds: MetricsLayout.now() &- exchange.arrivedAt)
        }
        answered(
            MetricOutcome(outcome, fault: fault), status: status, kind: exchange.sessionKind, environment: environment,
            startedAt: exchange.arrivedAt)
    }
}

extension Exchange {
    /// How the request reached its session, for the `session_kind` label.
    var sessionKind: SessionKind { SessionKind(sessionID: session.id, listenerTag: responder.listenerTag) }
}
