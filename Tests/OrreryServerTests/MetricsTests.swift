import Foundation
import Logging
import OrreryCore
import Testing

@testable import OrreryServer

/// The metrics as values: labels, buckets, per-loop blocks folded into the text a scrape gives, and the JSON log
/// line; and, on a live daemon, the answers that are not one HTTP answer (WebSockets, event streams) counted as one.
/// The end-to-end tests scrape a real daemon and run promtool.
@Suite("Metrics")
struct MetricsTests {
    @Test("status classes, session kinds and outcomes as their labels")
    func labels() {
        #expect(StatusClass(status: 200).label == "2xx")
        #expect(StatusClass(status: 404).label == "4xx")
        #expect(StatusClass(status: 503).label == "5xx")
        #expect(StatusClass(status: 0).label == "none")
        #expect(StatusClass(status: 999).label == "none")
        #expect(SessionKind(sessionID: nil, listenerTag: 0) == .main)
        #expect(SessionKind(sessionID: "a", listenerTag: 0) == .header)
        #expect(SessionKind(sessionID: "a", listenerTag: 3) == .port)
        #expect(MetricOutcome(.unmatched(closestStubs: .array([])), fault: nil) == .miss)
        #expect(MetricOutcome(.proxied(environment: "QA", upstream: "x", error: nil), fault: nil) == .proxied)
        #expect(MetricOutcome(.stub(id: "a", name: nil, location: nil), fault: "connectionReset") == .fault)
        #expect(MetricOutcome(.rejected(reason: "x"), fault: nil) == .rejected)
    }

    @Test("a duration falls in the first bucket whose bound is at or above it, else the overflow bucket")
    func buckets() {
        #expect(MetricsLayout.bucket(nanoseconds: 0) == 0)
        #expect(MetricsLayout.bucket(nanoseconds: 50_000) == 0)
        #expect(MetricsLayout.bucket(nanoseconds: 50_001) == 1)
        #expect(MetricsLayout.bucket(nanoseconds: 10_000_000_000) == MetricsLayout.bucketBounds.count - 1)
        #expect(MetricsLayout.bucket(nanoseconds: 10_000_000_001) == MetricsLayout.bucketBounds.count)
    }

    @Test("environments: none first, the map's keys once each, other last; an unknown key counts as other")
    func environments() {
        let layout = MetricsLayout(environments: ["PROD", "QA", "PROD"])
        #expect(layout.environments == ["none", "PROD", "QA", "other"])
        #expect(layout.environmentIndex(nil) == 0)
        #expect(layout.environmentIndex("QA") == 2)
        #expect(layout.environmentIndex("USER") == 3)
    }

    @Test("two loops' blocks fold into one counter per label set, and again only by what grew")
    func folding() throws {
        let metrics = DaemonMetrics(environments: ["QA"], loops: 2)
        let start = MetricsLayout.now()
        for loop in 0..<2 {
            let block = try #require(metrics.loop(loop))
            block.answered(.stub, status: 200, kind: .main, startedAt: start)
            block.answered(.miss, status: 404, kind: .header, startedAt: start)
        }
        let qa = metrics.layout.environmentIndex("QA")
        try #require(metrics.loop(1)).answered(.proxied, status: 502, kind: .main, environment: qa, startedAt: start)
        try #require(metrics.loop(1)).upstreamAnswered(environment: qa, nanoseconds: 3_000_000)

        var text = metrics.scrape()
        #expect(
            Self.sample(text, #"orrery_requests_total{outcome="stub",status_class="2xx",session_kind="main"}"#) == 2)
        #expect(
            Self.sample(text, #"orrery_requests_total{outcome="miss",status_class="4xx",session_kind="header"}"#) == 2)
        #expect(
            Self.sample(text, #"orrery_requests_total{outcome="proxied",status_class="5xx",session_kind="main"}"#) == 1)
        #expect(Self.sample(text, #"orrery_request_duration_seconds_count{environment="none"}"#) == 4)
        #expect(Self.sample(text, #"orrery_request_duration_seconds_count{environment="QA"}"#) == 1)
        #expect(Self.sample(text, #"orrery_upstream_duration_seconds_bucket{environment="QA",le="0.0025"}"#) == 0)
        #expect(Self.sample(text, #"orrery_upstream_duration_seconds_bucket{environment="QA",le="0.005"}"#) == 1)
        #expect(Self.sample(text, #"orrery_upstream_duration_seconds_sum{environment="QA"}"#) == 0.003)
        #expect(!text.contains(#"environment="other""#), "an environment with no observation is left out")

        try #require(metrics.loop(0)).answered(.stub, status: 200, kind: .main, startedAt: start)
        text = metrics.scrape()
        #expect(
            Self.sample(text, #"orrery_requests_total{outcome="stub",status_class="2xx",session_kind="main"}"#) == 3)
        // Each series once: the same pairs are always written in one order.
        let series = text.split(separator: "\n").filter { $0.hasPrefix("orrery_requests_total{") }
        #expect(series.count == 3)
    }

    @Test("histogram buckets are cumulative and end with +Inf equal to the count")
    func histogramShape() throws {
        let metrics = DaemonMetrics(environments: [], loops: 1)
        let block = try #require(metrics.loop(0))
        for nanoseconds in [10_000, 70_000, 70_000, 20_000_000_000] {
            block.upstreamAnswered(environment: 0, nanoseconds: nanoseconds)
        }
        let text = metrics.histogramText(name: "h", upstream: true, help: "help")
        let counts = text.split(separator: "\n").filter { $0.hasPrefix("h_bucket") }.compactMap {
            Double($0.split(separator: " ").last ?? "")
        }
        #expect(counts.first == 1)
        #expect(counts == counts.sorted())
        #expect(counts.last == 4)
        #expect(counts[counts.count - 2] == 3, "20 s is past the last bound")
        #expect(text.hasPrefix("# HELP h help\n# TYPE h histogram\n"))
    }

    @Test("label values are escaped as the text format wants")
    func escaping() {
        #expect(DaemonMetrics.escape(#"a"b\c"# + "\nd") == #"a\"b\\c\nd"#)
        #expect(DaemonMetrics.seconds(1_500_000_000) == "1.5")
    }

    @Test("--no-metrics: no loop blocks, the scrape still answers with the families it has")
    func notCounting() {
        let metrics = DaemonMetrics(environments: [], loops: 2, isCountingRequests: false)
        #expect(metrics.loop(0) == nil)
        #expect(metrics.scrape().contains("# TYPE orrery_request_duration_seconds histogram"))
    }

    @Test("a JSON log line: fixed keys first, fields after, everything escaped onto one line")
    func jsonLogLine() throws {
        let event = LogEvent(
            level: .warning, message: "two\nlines \"quoted\"", metadata: ["loop": "3", "time": "shadowed"],
            source: "OrreryServer", file: #fileID, function: #function, line: #line)
        let line = JSONLogHandler.line(
            event, label: "orrery", metadata: ["pid": .stringConvertible(42)], at: Date(timeIntervalSince1970: 1.5))
        #expect(line.hasSuffix("}\n"))
        #expect(line.dropLast().contains("\n") == false)
        #expect(
            line.hasPrefix(
                #"{"time":"1970-01-01T00:00:01.500Z","level":"warning","message":"two\nlines \"quoted\"","source":"OrreryServer""#
            ))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "two\nlines \"quoted\"")
        #expect(object["loop"] as? String == "3")
        #expect(object["pid"] as? Int == 42)
        #expect(object["field.time"] as? String == "shadowed")
    }

    @Test(
        "WebSocket and event-stream answers are counted: stub 1xx and 2xx, a forwarded socket proxied 1xx, over HTTP/2 2xx",
        .enabled(if: RealtimeLiveTests.hasWebsockets && RealtimeLiveTests.hasH2))
    func realtimeAnswersCounted() async throws {
        let upstream = try FixtureProcess("websocket_upstream.py")
        defer { upstream.stop() }
        let files = [
            "stubs/chat.yaml": RealtimeLiveTests.chat,
            "config/hosts.json": hostMap([("PROD", "127.0.0.1:\(upstream.port)", "http")]),
        ]
        try await LiveServer.with(files: files) { server in
            _ = try RealtimeLiveTests.python("script", port: server.port)
            _ = try RealtimeLiveTests.python("forwarded", port: server.port)
            _ = try RealtimeLiveTests.http2("script", port: server.port)
            let events = try Curl.run(["-s", "--max-time", "10", "\(server.baseURL)/scores"])
            #expect(events.contains("data: third"))
            let text = try await server.request("/__admin/metrics").text
            func requests(_ outcome: String, _ status: String) -> Double? {
                Self.sample(
                    text,
                    #"orrery_requests_total{outcome=""# + outcome + #"",status_class=""# + status
                        + #"",session_kind="main"}"#)
            }
            // The 101 of the stub's socket, and of the upstream's.
            #expect(requests("stub", "1xx") == 1, "\(text)")
            #expect(requests("proxied", "1xx") == 1, "\(text)")
            // The event stream's 200, and the 200 that opened the socket over HTTP/2 (its health check beside it
            // is the daemon's own, not counted).
            #expect(requests("stub", "2xx") == 2, "\(text)")
            // A forwarded socket's time to the upstream's 101 is in the upstream histogram.
            #expect(Self.sample(text, #"orrery_upstream_duration_seconds_count{environment="PROD"}"#) == 1, "\(text)")
        }
    }

    static func sample(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }
}
