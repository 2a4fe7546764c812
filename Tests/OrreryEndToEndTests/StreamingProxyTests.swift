import Foundation
import Glibc
import Testing

/// "Staying up, second round" for the proxy, against the real binary and a real upstream on loopback: an answer is
/// relayed as it arrives with a few buffers per exchange (the daemon's memory and descriptors read from /proc),
/// `--upstream-timeout` bounds silence and not a flowing body, and no request loops through the daemon itself.
@Suite("Streaming proxy: bounded per exchange")
struct StreamingProxyTests {
    static let hosts = """
        { "configurations": [ { "canonical_host": "api.example.com", "canonical_protocol": "http", "release_key": "PROD",
          "hosts": [ { "key": "PROD", "host": "127.0.0.1:PORT", "protocol": "http" } ] } ] }
        """

    /// A daemon forwarding to a fresh upstream (Tests/Fixtures/upstream.py), with `options`.
    static func serve(_ options: [String]) throws -> (OrreryProcess, Int, Upstream) {
        let upstream = try Upstream()
        let scratch = try Scratch(["config/hosts.json": hosts.replacingOccurrences(of: "PORT", with: String(upstream.port))])
        let (orrery, port) = try HostileInputTests.serve(scratch, options)
        return (orrery, port, upstream)
    }

    @Test("An upstream that streams fast for 4 s reaches the client whole, past a 1 s --upstream-timeout, with RSS flat")
    func fastStream() throws {
        let (orrery, port, upstream) = try Self.serve(["--upstream-timeout", "1000"])
        defer { upstream.stop() }
        let pid = orrery.process.processIdentifier
        let before = try #require(ProcessFigures(pid: pid))
        let sampler = RSSSampler(pid: pid)
        let result = try Curl.download(port: port, "/stream?seconds=4")
        let peak = sampler.stop()
        #expect(result.exitCode == 0, "curl: \(result.exitCode)")
        #expect(result.bytes > 100_000_000, "only \(result.bytes) bytes arrived")
        // The answer was far larger than the growth: it was never held.
        #expect(peak - before.rssKilobytes < 64 * 1024, "RSS grew from \(before.rssKilobytes) KB to \(peak) KB for \(result.bytes) bytes")
        let journal = RawClient.get(port: port, "/__admin/requests?limit=1")
        // The journal kept the start of the body and its size.
        #expect(journal.contains("bodyTruncated"), "\(journal.prefix(600))")
        #expect(orrery.stop() == 0)
    }

    @Test("A client that reads slowly pauses the upstream: RSS stays flat; when it leaves, the upstream is let go")
    func slowReader() throws {
        let (orrery, port, upstream) = try Self.serve([])
        defer { upstream.stop() }
        let pid = orrery.process.processIdentifier
        let before = try #require(ProcessFigures(pid: pid))
        let sampler = RSSSampler(pid: pid)
        // 2 MB/s for 3 s, from an upstream that could send ten times that: most would wait in the daemon.
        let result = try Curl.download(port: port, "/stream?seconds=10&length=1", ["--limit-rate", "2M", "--max-time", "3"])
        let peak = sampler.stop()
        #expect(result.exitCode == 28, "curl: \(result.exitCode)")  // its own --max-time
        #expect(peak - before.rssKilobytes < 32 * 1024, "RSS grew from \(before.rssKilobytes) KB to \(peak) KB")
        // The client left: its connection and the upstream's are closed, back to where the daemon started.
        let settled = OrreryProcess.waitFor(seconds: 5) {
            (ProcessFigures(pid: pid)?.openDescriptors ?? .max) <= before.openDescriptors
        }
        #expect(settled, "descriptors: \(before.openDescriptors) before, \(ProcessFigures(pid: pid)?.openDescriptors ?? -1) after")
        #expect(orrery.stop() == 0)
    }

    @Test("A client that never reads a relayed stream is closed after --idle-timeout, and the upstream with it")
    func clientThatNeverReads() throws {
        let (orrery, port, upstream) = try Self.serve(["--idle-timeout", "1s"])
        defer { upstream.stop() }
        let pid = orrery.process.processIdentifier
        let before = try #require(ProcessFigures(pid: pid))
        // A small window: the daemon's queue passes the relay's limit at once, and the upstream is paused.
        let client = try #require(RawClient(port: port, timeout: 5, receiveBuffer: 4_096))
        client.send("GET /stream?seconds=30 HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
        let opened = OrreryProcess.waitFor(seconds: 5) {
            (ProcessFigures(pid: pid)?.openDescriptors ?? 0) >= before.openDescriptors + 2
        }
        #expect(opened, "the client's and the upstream's connections never opened")
        // Long before the upstream's 30 s: both connections are closed by the send timeout.
        let settled = OrreryProcess.waitFor(seconds: 8) {
            (ProcessFigures(pid: pid)?.openDescriptors ?? .max) <= before.openDescriptors
        }
        let after = ProcessFigures(pid: pid)?.openDescriptors ?? -1
        #expect(settled, "descriptors: \(before.openDescriptors) before, \(after) after")
        let answer = client.readToEnd()
        #expect(answer.isClosed, "the connection is still open after \(answer.text.utf8.count) bytes")
        #expect(answer.text.hasPrefix("HTTP/1.1 200 "), "\(answer.text.prefix(200))")
        let journal = RawClient.get(port: port, "/__admin/requests?limit=1")
        #expect(journal.contains("clientClosed"), "\(journal.prefix(600))")
        #expect(orrery.stop() == 0)
    }

    @Test("A body that trickles on outlives --upstream-timeout; one that falls silent is cut by it and journaled so")
    func silenceBound() throws {
        let (orrery, port, upstream) = try Self.serve(["--upstream-timeout", "500"])
        defer { upstream.stop() }
        // 20 pieces 100 ms apart: 2 s in all, never 500 ms silent.
        let drip = try Curl.download(port: port, "/drip?ms=100&count=20")
        #expect(drip.exitCode == 0)
        #expect(drip.bytes == 40)
        let clock = ContinuousClock()
        let start = clock.now
        let stalled = try Curl.download(port: port, "/stall?ms=3000")
        #expect(stalled.exitCode == 18, "curl: \(stalled.exitCode)")  // partial transfer: the body was cut
        #expect(stalled.bytes == 5)
        #expect(clock.now - start < .milliseconds(2_500))
        let journal = RawClient.get(port: port, "/__admin/requests?limit=1")
        #expect(journal.contains("\"timeout\""), "\(journal.prefix(600))")
        #expect(orrery.stop() == 0)
    }

    @Test("A recording writes answers up to --record-body-limit and skips larger ones, streamed or not, saying why")
    func recordBodyLimit() throws {
        let upstream = try Upstream()
        defer { upstream.stop() }
        let scratch = try Scratch(["config/hosts.json": Self.hosts.replacingOccurrences(of: "PORT", with: String(upstream.port))])
        let (orrery, port) = try HostileInputTests.serve(
            scratch, ["--record", scratch.path("rec"), "--record-body-limit", "100000", "--log-level", "warning"])
        #expect(try Curl.download(port: port, "/big?size=50000").bytes == 50_000)
        #expect(try Curl.download(port: port, "/big?size=200000").bytes == 200_000)
        #expect(try Curl.download(port: port, "/stream?seconds=1").exitCode == 0)
        func recorded() -> String {
            RecordCommandTests.files(scratch.path("rec")).filter { $0.hasSuffix(".yaml") }
                .compactMap { try? String(contentsOfFile: scratch.path("rec/" + $0), encoding: .utf8) }.joined()
        }
        #expect(OrreryProcess.waitFor(seconds: 5) { recorded().contains("50000") })
        #expect(!recorded().contains("200000"))
        #expect(!recorded().contains("/stream"))
        #expect(orrery.stop() == 0)
        let skipped = orrery.standardError.components(separatedBy: "not recorded").count - 1
        #expect(skipped == 2, "\(orrery.standardError.suffix(800))")
        #expect(orrery.standardError.contains("--record-body-limit (100000 bytes)"))
    }
}

/// An upstream.py child on loopback.
final class Upstream {
    let process = Process()
    let port: Int
    private let output: URL

    init() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-upstream-\(UUID().uuidString).log")
        self.output = output
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = OrreryProcess.packageRoot.appendingPathComponent("Tests/Fixtures/upstream.py").path
        process.arguments = ["python3", script, "--name", "stream"]
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        var found: Int?
        _ = OrreryProcess.waitFor(seconds: 15) {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            found = text.split(separator: "\n").first { $0.hasPrefix("PORT ") }.flatMap { Int($0.dropFirst(5)) }
            return found != nil
        }
        guard let found else {
            kill(process.processIdentifier, SIGKILL)
            throw UpstreamError()
        }
        port = found
    }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: output)
    }

    deinit { stop() }

    struct UpstreamError: Error {}
}

/// A process's resident memory and open descriptors, from /proc.
struct ProcessFigures {
    let rssKilobytes: Int
    let openDescriptors: Int

    init?(pid: Int32) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }),
            let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        rssKilobytes = kilobytes
        openDescriptors = descriptors.count
    }
}

/// Samples a process's RSS every 100 ms on a thread of its own until stopped; returns the peak.
final class RSSSampler: @unchecked Sendable {
    // @unchecked: `peak` and `isStopped` are only touched under `lock`.
    private let lock = NSLock()
    private var peak = 0
    private var isStopped = false
    private let done = DispatchSemaphore(value: 0)

    init(pid: Int32) {
        Thread.detachNewThread { [self] in
            while !lock.withLock({ isStopped }) {
                if let figures = ProcessFigures(pid: pid) { lock.withLock { peak = max(peak, figures.rssKilobytes) } }
                usleep(100_000)
            }
            done.signal()
        }
    }

    func stop() -> Int {
        lock.withLock { isStopped = true }
        done.wait()
        return lock.withLock { peak }
    }
}

extension Curl {
    /// Downloads `path` through the daemon as a client of api.example.com would, counting the bytes.
    static func download(port: Int, _ path: String, _ options: [String] = []) throws -> (exitCode: Int32, bytes: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["curl", "--noproxy", "*", "--max-time", "20", "-s", "-o", "/dev/null", "-w", "%{size_download}", "-H", "Host: api.example.com"]
            + options + ["http://127.0.0.1:\(port)\(path)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, Int(String(decoding: data, as: UTF8.self)) ?? -1)
    }
}
