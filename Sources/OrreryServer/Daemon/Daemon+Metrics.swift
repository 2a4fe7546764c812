import CoreMetrics
import OrreryCore
import OrreryEvent
import Prometheus

extension Daemon {
    /// The host map's environment keys, each once, in the map's order: the `environment` label's values.
    static func environmentKeys(_ map: HostMap?) -> [String] {
        var keys: [String] = []
        for configuration in map?.configurations ?? [] {
            for host in configuration.hosts where !keys.contains(host.key) { keys.append(host.key) }
        }
        return keys
    }

    /// Where the scrape reads the daemon's gauges and its server's counters.
    static func metricSources(
        server: HTTPServer, sessions: SessionRegistry, registry: StubRegistry, serviceLogger: NetworkServiceLogger
    ) -> DaemonMetrics.Sources {
        let main = sessions.main.journal
        return DaemonMetrics.Sources(
            server: server.counters,
            openSessions: { sessions.count },
            stubs: { registry.index.count },
            journal: {
                // Once a session has joined, the shared budget holds every journal's count; before, the main one.
                if let budget = main.budget, budget.counts.entries > 0 { return budget.counts }
                let counts = main.counts
                return (counts.kept, counts.bytes)
            },
            reloads: { registry.reloadCounts },
            trafficLogDrops: { serviceLogger.currentTrafficLog?.status.dropped ?? 0 })
    }
}

extension Daemon {
    /// Makes swift-metrics record into this daemon's registry, so that a library recording through it appears in
    /// the scrape too. Once per process (`orrery serve`), before anything records.
    public func bootstrapMetricsSystem() {
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics.registry))
    }
}
