import CoreMetrics
import Foundation
import OrreryCore
import OrreryEvent
import Prometheus
import Synchronization

/// The daemon's metrics in the Prometheus text format (`GET /__admin/metrics`, `/metrics` on `--metrics-port`).
///
/// The request path never touches the registry: each event loop counts into its own `LoopMetrics`, and a scrape
/// folds those blocks into swift-prometheus counters (adding what grew since the last scrape), sets the gauges from
/// the daemon's state, emits the registry and appends the histograms, which it renders from the summed blocks
/// itself (a Prometheus histogram takes one observation at a time and cannot be added to in bulk).
final class DaemonMetrics: Sendable {
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// What the daemon's gauges and its server's counters are read from, once the daemon is built.
    struct Sources: Sendable {
        var server: [ServerCounters]
        var openSessions: @Sendable () -> Int
        var stubs: @Sendable () -> Int
        var journal: @Sendable () -> (entries: Int, bytes: Int)
        var reloads: @Sendable () -> (published: Int, failed: Int)
        var trafficLogDrops: @Sendable () -> Int
    }

    let layout: MetricsLayout
    /// swift-prometheus's registry: Orrery's families, and those of any library that records through swift-metrics.
    let registry: PrometheusCollectorRegistry
    /// One per event loop; nil when requests are not counted (`--no-metrics`).
    let loops: [LoopMetrics]
    private let sources = Mutex<Sources?>(nil)
    private let state: Mutex<FoldState>

    /// The registry's handles, and what was folded into each counter so far (counters only ever add the growth).
    private struct FoldState: @unchecked Sendable {
        // @unchecked: used only under `state`'s lock; the handles are Sendable, the arrays of them are plain values.
        var requests: [Prometheus.Counter?]
        var requestsFolded: [Int]
        var counters: [String: (counter: Prometheus.Counter, folded: Int)] = [:]
        var gauges: [String: Prometheus.Gauge] = [:]
    }

    init(environments: [String], loops loopCount: Int, isCountingRequests: Bool = true) {
        let layout = MetricsLayout(environments: environments)
        self.layout = layout
        registry = PrometheusCollectorRegistry()
        loops = isCountingRequests ? (0..<max(1, loopCount)).map { _ in LoopMetrics(layout: layout) } : []
        state = Mutex(
            FoldState(
                requests: Array(repeating: nil, count: MetricsLayout.requestSeries),
                requestsFolded: Array(repeating: 0, count: MetricsLayout.requestSeries)))
    }

    /// The block a loop counts into, nil when requests are not counted.
    func loop(_ index: Int) -> LoopMetrics? {
        loops.isEmpty ? nil : loops[index % loops.count]
    }

    func attach(_ sources: Sources) {
        self.sources.withLock { $0 = sources }
    }

    // MARK: - Scrape

    /// The text a scraper gets: every family with its HELP and TYPE lines.
    func scrape() -> String {
        let sources = self.sources.withLock { $0 }
        return state.withLock { state in
            foldRequests(&state, server: sources?.server ?? [])
            if let sources { fold(sources, into: &state) }
            var text = registry.emitToString()
            text += histogramText(name: "orrery_request_duration_seconds", upstream: false, help: Self.durationHelp)
            text += histogramText(name: "orrery_upstream_duration_seconds", upstream: true, help: Self.upstreamHelp)
            return text
        }
    }

    private static let durationHelp =
        "Time from a request's arrival to its answer being handed to the connection, by environment (none: no upstream)."
    private static let upstreamHelp =
        "Time from a request's arrival to its upstream's answer (or failure), for forwarded requests, by environment."

    /// The request counters: each loop's slots summed, plus the requests the server refused before any handler saw
    /// them (outcome `rejected`, the daemon's own session).
    private func foldRequests(_ state: inout FoldState, server: [ServerCounters]) {
        var totals = [Int](repeating: 0, count: MetricsLayout.requestSeries)
        for loop in loops {
            for slot in totals.indices { totals[slot] &+= loop.value(at: slot) }
        }
        for counters in server {
            let rejected = counters.rejected
            totals[MetricsLayout.requestSlot(.rejected, .clientError, .main)] &+= rejected.clientErrors
            totals[MetricsLayout.requestSlot(.rejected, .serverError, .main)] &+= rejected.serverErrors
        }
        for outcome in MetricOutcome.allCases {
            for statusClass in StatusClass.allCases {
                for kind in SessionKind.allCases {
                    let slot = MetricsLayout.requestSlot(outcome, statusClass, kind)
                    let delta = totals[slot] - state.requestsFolded[slot]
                    guard delta > 0 else { continue }
                    let counter =
                        state.requests[slot]
                        ?? registry.makeCounter(
                            descriptor: MetricNameDescriptor(
                                namespace: "orrery", metricName: "requests", unitName: "total",
                                helpText:
                                    "Requests answered, by who answered them, status class and how the session was reached."
                            ),
                            // One fixed order: the same pairs in another order would be another series.
                            labels: [
                                ("outcome", outcome.label), ("status_class", statusClass.label),
                                ("session_kind", kind.label),
                            ])
                    state.requests[slot] = counter
                    counter.increment(by: Int64(delta))
                    state.requestsFolded[slot] = totals[slot]
                }
            }
        }
    }

    private func fold(_ sources: Sources, into state: inout FoldState) {
        let server = sources.server
        set(&state, "connections", "Client connections open.", server.reduce(0) { $0 + $1.connectionsOpen })
        set(&state, "sessions", "Sessions open (the daemon's own not counted).", sources.openSessions())
        set(&state, "stubs", "Stubs loaded from files and fixtures, shared by every session.", sources.stubs())
        let journal = sources.journal()
        set(&state, "journal_entries", "Exchanges the journals of every session hold.", journal.entries)
        set(&state, "journal", "Bytes the journals of every session hold.", journal.bytes, unit: "bytes")
        add(
            &state, "connections_accepted", "Client connections accepted.",
            server.reduce(0) { $0 + $1.connectionsOpened })
        add(&state, "tls_handshakes", "TLS handshakes completed.", server.reduce(0) { $0 + $1.tlsHandshakes })
        add(
            &state, "tls_handshake_failures", "TLS connections that ended before their handshake completed.",
            server.reduce(0) { $0 + $1.tlsHandshakeFailures })
        let reloads = sources.reloads()
        add(
            &state, "reloads", "Loads of the stub files that published a new set, the first included.",
            reloads.published)
        add(&state, "reload_failures", "Loads of the stub files that failed; the running set stayed.", reloads.failed)
        add(
            &state, "traffic_log_drops", "Exchanges left out of the traffic log because its disk fell behind.",
            sources.trafficLogDrops())
    }

    /// A gauge `orrery_<name>[_<unit>]`, made on first use.
    private func set(_ state: inout FoldState, _ name: String, _ help: String, _ value: Int, unit: String = "") {
        let gauge =
            state.gauges[name]
            ?? registry.makeGauge(
                descriptor: MetricNameDescriptor(namespace: "orrery", metricName: name, unitName: unit, helpText: help))
        state.gauges[name] = gauge
        gauge.set(Int64(value))
    }

    /// A counter `orrery_<name>_total` brought up to `total`, made on first use.
    private func add(_ state: inout FoldState, _ name: String, _ help: String, _ total: Int) {
        let entry =
            state.counters[name]
            ?? (
                registry.makeCounter(
                    descriptor: MetricNameDescriptor(
                        namespace: "orrery", metricName: name, unitName: "total", helpText: help)),
                0
            )
        if total > entry.folded { entry.counter.increment(by: Int64(total - entry.folded)) }
        state.counters[name] = (entry.counter, max(entry.folded, total))
    }

    /// A histogram family rendered from the loops' blocks summed: cumulative buckets, the sum in seconds, the count.
    /// The `none` environment always appears; others once they have an observation.
    func histogramText(name: String, upstream: Bool, help: String) -> String {
        let bounds = MetricsLayout.bucketBounds
        var text = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        for (environment, label) in layout.environments.enumerated() {
            let base = layout.histogramBase(environment: environment, upstream: upstream)
            var counts = [Int](repeating: 0, count: bounds.count + 3)
            for loop in loops {
                for index in counts.indices { counts[index] &+= loop.value(at: base + index) }
            }
            let count = counts[bounds.count + 2]
            guard count > 0 || environment == 0 else { continue }
            let escaped = Self.escape(label)
            var cumulative = 0
            for (index, bound) in bounds.enumerated() {
                cumulative += counts[index]
                text += "\(name)_bucket{environment=\"\(escaped)\",le=\"\(Self.seconds(bound))\"} \(cumulative)\n"
            }
            text += "\(name)_bucket{environment=\"\(escaped)\",le=\"+Inf\"} \(count)\n"
            text += "\(name)_sum{environment=\"\(escaped)\"} \(Self.seconds(counts[bounds.count + 1]))\n"
            text += "\(name)_count{environment=\"\(escaped)\"} \(count)\n"
        }
        return text
    }

    /// Nanoseconds as seconds, as Prometheus reads a float.
    static func seconds(_ nanoseconds: Int) -> String {
        "\(Double(nanoseconds) / 1_000_000_000)"
    }

    /// A label value as the text format escapes it: backslash, double quote and newline.
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
