import OrreryCore

/// Who answered a request, as the metrics count it (`outcome` label).
enum MetricOutcome: Int, CaseIterable, Sendable {
    case stub, proxied, miss, fault, rejected, spec

    var label: String {
        switch self {
        case .stub: "stub"
        case .proxied: "proxied"
        case .miss: "miss"
        case .fault: "fault"
        case .rejected: "rejected"
        case .spec: "spec"
        }
    }

    /// The outcome of a journaled exchange; a fault carried out counts as `fault` whoever chose it.
    init(_ outcome: borrowing JournalEntry.Outcome, fault: String?) {
        // Borrowed: an initializer takes its arguments owned, which copied the outcome (its strings retained) for
        // every answer counted.
        if fault != nil {
            self = .fault
            return
        }
        switch outcome {
        case .stub: self = .stub
        case .proxied: self = .proxied
        case .unmatched: self = .miss
        case .rejected: self = .rejected
        case .spec: self = .spec
        }
    }
}

/// A status's class (`status_class` label): `1xx` to `5xx`, or `none` when no answer went out (a fault).
enum StatusClass: Int, CaseIterable, Sendable {
    case none, informational, success, redirection, clientError, serverError

    init(status: Int) {
        self = (1...5).contains(status / 100) ? StatusClass(rawValue: status / 100) ?? .none : .none
    }

    var label: String { self == .none ? "none" : "\(rawValue)xx" }
}

/// How a request reached its session (`session_kind` label): the daemon's own (`main`), a session named by
/// `X-Orrery-Session` (`header`), or a session's own port (`port`).
enum SessionKind: Int, CaseIterable, Sendable {
    case main, header, port

    init(sessionID: String?, listenerTag: Int) {
        self = listenerTag != 0 ? .port : sessionID == nil ? .main : .header
    }

    var label: String {
        switch self {
        case .main: "main"
        case .header: "header"
        case .port: "port"
        }
    }
}
