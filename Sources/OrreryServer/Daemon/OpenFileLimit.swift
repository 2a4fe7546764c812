import Foundation

/// The process's open-file limit: raised from its soft value to the hard one at start-up (a default container gives
/// 1,024 soft against a far higher hard limit), and compared with what the configuration needs.
enum OpenFileLimit {
    /// Descriptors the daemon holds besides connections: listeners, the event loops' own, the watcher, log files.
    static let reserve = 64

    /// Sets the soft limit to the hard one; returns the limits in force after.
    @discardableResult
    static func raise() -> (soft: Int, hard: Int) {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (0, 0) }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return (clamp(limit.rlim_cur), clamp(limit.rlim_max))
    }

    /// The soft limit in force.
    static var current: Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        return clamp(limit.rlim_cur)
    }

    /// What the configuration may open at once: every loop's connections, and the reserve.
    static func needed(maxConnectionsPerLoop: Int, threads: Int) -> Int {
        maxConnectionsPerLoop.multipliedReportingOverflow(by: max(1, threads)).partialValue + reserve
    }

    /// The warning for a limit below what is needed, or nil when it is enough.
    static func warning(limit: Int, maxConnectionsPerLoop: Int, threads: Int) -> String? {
        let needed = needed(maxConnectionsPerLoop: maxConnectionsPerLoop, threads: threads)
        guard limit > 0, limit < needed else { return nil }
        return "the open-file limit is \(limit) (raised to the hard limit), below the \(needed) that --max-connections "
            + "\(maxConnectionsPerLoop) on \(threads) event loop(s) may need (each session takes \(threads) more): past it "
            + "new connections wait to be accepted and new sessions get 503; raise the hard limit (ulimit -Hn) or lower --max-connections"
    }

    private static func clamp(_ value: rlim_t) -> Int {
        value > rlim_t(Int.max) ? Int.max : Int(value)
    }
}
