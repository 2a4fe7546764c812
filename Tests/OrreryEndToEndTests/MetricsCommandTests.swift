import Foundation
import Testing

/// `orrery serve`'s operations side against the real binary: the metrics (checked by promtool), the JSON log,
/// session ids chosen by their creator, and health for probes.
@Suite("Metrics, JSON logs and chosen session ids")
struct MetricsCommandTests {
    static let stubs = """
        - request: {method: GET, path: /hello}
          response: {status: 200, body: hi}
        - request: {method: GET, path: /broken}
          response: {fault: emptyResponse}
        """

    /// A daemon on free ports with the stubs above, its ready file read.
    struct Daemon {
        let process: OrreryProcess
        let scratch: Scratch
        let url: String
        let ready: [String: Any]

        init(_ extra: [String] = []) throws {
            scratch = try Scratch(["stubs/a.yaml": MetricsCommandTests.stubs])
            let readyFile = scratch.path("ready.json")
            process = try OrreryProcess(
                [
                    "serve", "--port", "0", "--threads", "2", "--stubs", scratch.path("stubs"), "--config",
                    scratch.path("config"),
                    "--ready-file", readyFile,
                ] + extra)
            url = try process.waitUntilListening()
            // Written just after the start-up line.
            _ = OrreryProcess.waitFor { FileManager.default.fileExists(atPath: readyFile) }
            let data = try Data(contentsOf: URL(fileURLWithPath: readyFile))
            ready = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }
    }

    /// Status and body of a curl call.
    static func call(_ arguments: [String]) throws -> (status: Int, body: String) {
        let output = try Curl.run(["-w", "\n%{http_code}"] + arguments)
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// promtool's verdict on a metrics text: its exit status and what it printed.
    static func promtool(_ text: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["promtool", "check", "metrics"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: printed, as: UTF8.self))
    }

    /// The value of the sample whose line starts with `series` (name and labels as written), or nil.
    static func sample(_ text: String, _ series: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test("requests are counted by outcome, status class and session kind; both endpoints pass promtool")
    func metricsCountAndPassPromtool() throws {
        let daemon = try Daemon(["--metrics-port", "0"])
        for _ in 0..<3 { #expect(try Self.call([daemon.url + "/hello"]).status == 200) }
        #expect(try Self.call([daemon.url + "/nowhere"]).status == 404)
        _ = try Self.call([daemon.url + "/broken"])  // closed with nothing sent
        #expect(
            try Self.call(["-X", "POST", "-d", #"{"id": "metrics-1"}"#, daemon.url + "/__admin/sessions"]).status == 201
        )
        #expect(try Self.call(["-H", "X-Orrery-Session: metrics-1", daemon.url + "/hello"]).status == 200)
        // A request the server refuses before any stub sees it: a header name with a space.
        #expect(try Self.call(["-H", "Bad Name: x", daemon.url + "/hello"]).status == 400)

        let admin = try Self.call([daemon.url + "/__admin/metrics"])
        #expect(admin.status == 200)
        let metricsPort = try #require(daemon.ready["metricsPort"] as? Int)
        let scraped = try Self.call([
            "-H", "Host: prometheus.monitoring.svc", "http://127.0.0.1:\(metricsPort)/metrics",
        ])
        #expect(scraped.status == 200)
        for text in [admin.body, scraped.body] {
            let verdict = try Self.promtool(text)
            #expect(verdict.status == 0, "promtool check metrics: \(verdict.output)\n\(text)")
        }
        let text = scraped.body
        #expect(
            Self.sample(text, #"orrery_requests_total{outcome="stub",status_class="2xx",session_kind="main"}"#) == 3)
        #expect(
            Self.sample(text, #"orrery_requests_total{outcome="stub",status_class="2xx",session_kind="header"}"#) == 1)
        #expect(
            Self.sample(text, #"orrery_requests_total{outcome="miss",status_class="4xx",session_kind="main"}"#) == 1)
        #expect(
            Self.sample(text, #"orrery_requests_total{outcome="fault",status_class="none",session_kind="main"}"#) == 1)
        #expect(
            Self.sample(text, #"orrery_requests_total{outcome="rejected",status_class="4xx",session_kind="main"}"#) == 1
        )
        #expect(Self.sample(text, #"orrery_request_duration_seconds_count{environment="none"}"#) == 6)
        #expect(Self.sample(text, #"orrery_request_duration_seconds_bucket{environment="none",le="+Inf"}"#) == 6)
        #expect(Self.sample(text, "orrery_sessions") == 1)
        #expect(Self.sample(text, "orrery_stubs") == 2)
        #expect(Self.sample(text, "orrery_reloads_total") == 1)
        #expect((Self.sample(text, "orrery_connections_accepted_total") ?? 0) >= 8)
        #expect((Self.sample(text, "orrery_journal_entries") ?? 0) >= 5)
        #expect(text.contains("# TYPE orrery_upstream_duration_seconds histogram"))

        // The metrics port answers health to anyone, and nothing of the admin API.
        #expect(try Self.call(["http://127.0.0.1:\(metricsPort)/__admin/health"]).status == 200)
        #expect(try Self.call(["http://127.0.0.1:\(metricsPort)/__admin/stubs"]).status == 404)
        #expect(daemon.process.stop() == 0)
    }

    @Test("with --no-metrics the gauges stay and no request is counted")
    func noMetrics() throws {
        let daemon = try Daemon(["--no-metrics"])
        #expect(try Self.call([daemon.url + "/hello"]).status == 200)
        let text = try Self.call([daemon.url + "/__admin/metrics"]).body
        #expect(!text.contains("orrery_requests_total{"))
        #expect(Self.sample(text, "orrery_stubs") == 2)
        #expect(try Self.promtool(text).status == 0)
    }

    @Test("a session id chosen by its creator: 201, 400 for a bad one, 409 when taken, and the header may name it")
    func chosenSessionIDs() throws {
        let daemon = try Daemon()
        let sessions = daemon.url + "/__admin/sessions"
        let made = try Self.call(["-X", "POST", "-d", #"{"id": "ci-42.checkout_1", "name": "checkout"}"#, sessions])
        #expect(made.status == 201, "\(made.body)")
        #expect(made.body.contains(#""id" : "ci-42.checkout_1""#) || made.body.contains(#""id": "ci-42.checkout_1""#))
        #expect(try Self.call(["-X", "POST", "-d", #"{"id": "ci-42.checkout_1"}"#, sessions]).status == 409)
        for bad in ["", "has space", "slash/no", String(repeating: "a", count: 65), "é"] {
            let body = String(decoding: try JSONSerialization.data(withJSONObject: ["id": bad]), as: UTF8.self)
            let refused = try Self.call(["-X", "POST", "-d", body, sessions])
            #expect(refused.status == 400, "id '\(bad)': \(refused.body)")
        }
        #expect(try Self.call(["-X", "POST", "-d", #"{"id": 7}"#, sessions]).status == 400)
        #expect(
            try Self.call(["-X", "POST", "-d", "{\"id\": \"\(String(repeating: "b", count: 64))\"}", sessions]).status
                == 201)

        // Opened through the header that later requests carry: what a proxy routing by the header needs.
        let byHeader = try Self.call(["-X", "POST", "-H", "X-Orrery-Session: from-header", sessions])
        #expect(byHeader.status == 201, "\(byHeader.body)")
        #expect(byHeader.body.contains("from-header"))
        let differing = try Self.call(["-X", "POST", "-H", "X-Orrery-Session: one", "-d", #"{"id": "two"}"#, sessions])
        #expect(differing.status == 400)
        #expect(try Self.call(["-X", "POST", "-H", "X-Orrery-Session: from-header", sessions]).status == 409)
        // Any other request naming a session the daemon does not have is a 404 naming it.
        let missing = try Self.call(["-H", "X-Orrery-Session: never-made", daemon.url + "/hello"])
        #expect(missing.status == 404)
        #expect(missing.body.contains("never-made"))
    }

    @Test("health answers whatever the Host; the rest of the admin API still refuses a foreign one")
    func healthForProbes() throws {
        let daemon = try Daemon(["--admin-token", "secret"])
        #expect(try Self.call(["-H", "Host: 10.1.2.3:8080", daemon.url + "/__admin/health"]).status == 200)
        #expect(try Self.call(["-H", "Host: 10.1.2.3:8080", daemon.url + "/__admin/stubs"]).status == 403)
    }

    @Test("--log-format json: one JSON object per line with time, level, message and source")
    func jsonLog() throws {
        let daemon = try Daemon(["--log-format", "json"])
        #expect(try Self.call([daemon.url + "/nowhere"]).status == 404)
        #expect(daemon.process.stop() == 0)
        let lines = daemon.process.standardError.split(separator: "\n")
        #expect(lines.count >= 2, "\(daemon.process.standardError)")
        for line in lines {
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
            #expect(object["time"] is String && object["level"] is String && object["source"] is String)
            #expect(object["message"] is String)
        }
        #expect(lines.contains { $0.contains("GET /nowhere -> 404: no stub matches") })
    }
}
