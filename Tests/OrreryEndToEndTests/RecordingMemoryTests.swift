import Foundation
import Glibc
import Testing

/// A recording's memory is bounded, against the real binary and a real upstream on loopback: many routes with
/// sizeable answers, recorded as fast as a client sends them, grow the daemon's RSS (read from /proc) by a bounded
/// amount, and what the recording could not keep up with is counted, not lost silently.
@Suite("Recording: bounded memory")
struct RecordingMemoryTests {
    /// Exchanges the client sends, each a route of its own with a 128 KB binary answer (a body file each): about
    /// 157 MB of answers, which a recorder that keeps every fixture, or queues without bound, holds.
    static let exchanges = 1_200
    static let answerSize = 131_072

    @Test("1,200 routes of 128 KB answers recorded: RSS grows by a bounded amount, and every exchange is accounted for")
    func manyRoutes() throws {
        let upstream = try Upstream()
        defer { upstream.stop() }
        let scratch = try Scratch([
            "config/hosts.json": StreamingProxyTests.hosts.replacingOccurrences(of: "PORT", with: String(upstream.port))
        ])
        let (orrery, port) = try HostileInputTests.serve(
            scratch, ["--record", scratch.path("rec"), "--log-level", "warning"])
        let pid = orrery.process.processIdentifier
        let before = try #require(ProcessFigures(pid: pid))
        let sampler = RSSSampler(pid: pid)
        let client = try Self.send(port: port, count: Self.exchanges, size: Self.answerSize)
        #expect(client.hasPrefix("ok \(Self.exchanges)"), "\(client)")
        // The status answers once what is queued is written.
        let request = "GET /__admin/recordings HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        let answer = RawClient.exchange(port: port, request, timeout: 120)
        let status = answer.range(of: "\r\n\r\n").map { String(answer[$0.upperBound...]) } ?? ""
        let after = try #require(ProcessFigures(pid: pid))
        let peak = sampler.stop()
        let growth = max(peak, after.rssKilobytes) - before.rssKilobytes
        #expect(
            growth < 128 * 1024,
            "RSS grew from \(before.rssKilobytes) KB to \(peak) KB at the peak, \(after.rssKilobytes) KB after")
        // Every exchange was recorded, or counted as not recorded.
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any], "\(status.prefix(400))")
        let recorded = json["exchangesRecorded"] as? Int ?? -1
        let notRecorded = (json["notRecorded"] as? [String: Any])?["writeQueueFull"] as? Int ?? -1
        #expect(recorded > 0)
        #expect(recorded + notRecorded == Self.exchanges, "recorded \(recorded), not recorded \(notRecorded)")
        #expect(orrery.stop() == 0)
        if notRecorded > 0 { #expect(orrery.standardError.contains("write queue is full")) }
    }

    /// GETs `/big/N?size=SIZE` for N below `count` through the daemon on two keep-alive connections (Python's
    /// http.client); "ok N" when every answer came whole.
    static func send(port: Int, count: Int, size: Int) throws -> String {
        let script = """
            import http.client, sys, threading
            port, count, size = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
            done, failures, lock = [0], [], threading.Lock()
            def run(start):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
                for n in range(start, count, 2):
                    connection.request("GET", "/big/%d?size=%d" % (n, size), headers={"Host": "api.example.com"})
                    answer = connection.getresponse()
                    body = answer.read()
                    with lock:
                        if answer.status == 200 and len(body) == size: done[0] += 1
                        elif len(failures) < 3: failures.append("%d: %d, %d bytes" % (n, answer.status, len(body)))
            threads = [threading.Thread(target=run, args=(start,)) for start in range(2)]
            for thread in threads: thread.start()
            for thread in threads: thread.join()
            print("ok %d" % done[0] if not failures else "failed %d: %s" % (done[0], "; ".join(failures)))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, String(port), String(count), String(size)]
        var environment = ProcessInfo.processInfo.environment
        environment["NO_PROXY"] = "127.0.0.1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
