import Foundation
import Glibc
import Testing

/// "Staying up, second round" (DESIGN.md) against the real binary: template budgets, alias bombs, body file caps,
/// the folder watcher, journal queries and dashboard viewers, with memory, CPU and descriptors read from `/proc`.
@Suite("Staying up: bounded per request, whatever the input")
struct StayingUpTests {
    static let okStub = HostileInputTests.okStub

    /// A figure of `/proc/PID/status` (`VmRSS`, `VmHWM`) in KiB; 0 when it cannot be read.
    static func status(_ pid: Int32, _ field: String) -> Int {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).filter(\.isNumber)) ?? 0
        }
        return 0
    }

    /// The clock ticks (user + system) the process has used, from `/proc/PID/stat`.
    static func cpuTicks(_ pid: Int32) -> Int {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        // The command name, in parentheses, may hold spaces: fields are counted after its closing one.
        guard let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12 else { return 0 }
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    /// The descriptors the process has open.
    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    @Test("Three nested sections over the segments of a 4 KB path: a prompt 500, journaled; others go on; RSS bounded; SIGTERM in time")
    func templateBomb() throws {
        let nested = "{{#request.pathSegments}}{{#request.pathSegments}}{{#request.pathSegments}}x{{/request.pathSegments}}"
            + "{{/request.pathSegments}}{{/request.pathSegments}}"
        let scratch = try Scratch([
            "stubs/bomb.yaml": "request: { method: GET, pathPattern: '/bomb/.*' }\nresponse:\n  template: true\n  body: '\(nested)'\n",
            "stubs/ok.json": Self.okStub,
        ])
        let (orrery, port) = try HostileInputTests.serve(scratch, ["--threads", "2"])
        let pid = orrery.process.processIdentifier
        let before = Self.status(pid, "VmRSS")
        let path = "/bomb" + String(repeating: "/a", count: 2_000)
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        let hostile = HostileClients(port: port, request: request, count: 2)
        defer { hostile.stop() }
        for _ in 0..<5 {
            #expect(RawClient.get(port: port, "/ok") == "ok")
        }
        let answer = RawClient.exchange(port: port, request, timeout: 10)
        #expect(answer.hasPrefix("HTTP/1.1 500 "), "\(answer.prefix(300))")
        #expect(answer.contains("template over budget"))
        #expect(OrreryProcess.waitFor(seconds: 20) { hostile.answered >= 4 })
        let peak = Self.status(pid, "VmHWM")
        // Each render stops at a million steps: a few megabytes, never the gigabytes it would reach.
        #expect(peak - before < 200 * 1024, "RSS grew from \(before) KiB to a peak of \(peak) KiB")
        let journal = RawClient.get(port: port, "/__admin/requests?limit=1")
        #expect(journal.contains("\"status\":500") || journal.contains("\"status\": 500"), "\(journal.prefix(500))")
        let start = ContinuousClock.now
        #expect(orrery.stop(SIGTERM) == 0)
        #expect(ContinuousClock.now - start < .seconds(5), "SIGTERM took \(ContinuousClock.now - start)")
    }

    /// A 100 KB text and `count` aliases to it: 20,000 of them stand for 2 GB.
    static func aliasBomb(aliases count: Int) -> String {
        "- request: { path: /bomb }\n  response: { body: &big " + String(repeating: "x", count: 100_000) + " }\n"
            + String(repeating: "- request: { path: /bomb }\n  response: { body: *big }\n", count: count)
    }

    @Test("An alias bomb fails validate at its file and line, promptly")
    func aliasBombValidate() throws {
        let scratch = try Scratch(["stubs/bomb.yaml": Self.aliasBomb(aliases: 20_000), "stubs/ok.json": Self.okStub])
        let start = ContinuousClock.now
        let result = try OrreryProcess.run(["validate", "--stubs", scratch.path("stubs"), "--config", scratch.path("config")])
        #expect(result.status == 1)
        #expect(result.errors.contains("bomb.yaml:"), "\(result.errors.prefix(500))")
        #expect(result.errors.contains("aliases expand to more than"))
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    @Test("An alias bomb written into a running daemon's folder: the reload fails, the stubs stay, RSS stays put")
    func aliasBombReload() throws {
        let scratch = try Scratch(["stubs/ok.json": Self.okStub])
        let (orrery, port) = try HostileInputTests.serve(scratch, ["--threads", "1", "--watch-interval", "0"])
        let pid = orrery.process.processIdentifier
        #expect(RawClient.get(port: port, "/ok") == "ok")
        let before = Self.status(pid, "VmRSS")
        try scratch.write("stubs/bomb.yaml", Self.aliasBomb(aliases: 20_000))
        let answer = RawClient.exchange(
            port: port, "POST /__admin/stubs/reload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            timeout: 30)
        #expect(!answer.hasPrefix("HTTP/1.1 200 "), "\(answer.prefix(300))")
        #expect(answer.contains("aliases expand to more than"), "\(answer.prefix(500))")
        #expect(RawClient.get(port: port, "/ok") == "ok")
        let peak = Self.status(pid, "VmHWM")
        #expect(peak - before < 200 * 1024, "RSS grew from \(before) KiB to a peak of \(peak) KiB")
        #expect(orrery.stop(SIGTERM) == 0)
    }

    @Test("A body file over --max-body-file is refused at load with its file and line")
    func bodyFileCap() throws {
        let scratch = try Scratch([
            "stubs/big.yaml": "request: { path: /big }\nresponse:\n  bodyFile: bodies/big.bin\n",
            "stubs/bodies/big.bin": String(repeating: "b", count: 4_096),
        ])
        let arguments = ["--stubs", scratch.path("stubs"), "--config", scratch.path("config")]
        let refused = try OrreryProcess.run(["validate", "--max-body-file", "4095"] + arguments)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("big.yaml:3: bodyFile 'bodies/big.bin' is 4096 bytes, over --max-body-file"), "\(refused.errors)")
        let serve = try OrreryProcess.run(["serve", "--port", "0", "--max-body-file", "4095"] + arguments)
        #expect(serve.status == 1)
        #expect(serve.errors.contains("big.yaml:3:"))
        #expect(try OrreryProcess.run(["validate", "--max-body-file", "4096"] + arguments).status == 0)
    }

    @Test("A file name with a line break or an escape cannot fake a line of validate's output")
    func escapedFileNames() throws {
        let name = "stubs/x.yaml\nstubs/fake.yaml:1: all is well\u{1B}[2K.yaml"
        let scratch = try Scratch([name: "request: { path: /a }\nresponse: { status: 700 }\n"])
        let result = try OrreryProcess.run(["validate", "--stubs", scratch.path("stubs"), "--config", scratch.path("config")])
        #expect(result.status == 1)
        let lines = result.errors.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("stubs/fake.yaml") }, "\(result.errors)")
        #expect(!result.errors.contains("\u{1B}"))
        #expect(result.errors.contains(#"x.yaml\nstubs/fake.yaml:1: all is well\u{1B}[2K.yaml:2: "#), "\(result.errors)")
    }

    @Test("A dashboard viewer that leaves frees its descriptor within a second")
    func viewerLeaves() throws {
        let scratch = try Scratch(["stubs/ok.json": Self.okStub])
        let (orrery, port) = try HostileInputTests.serve(scratch, ["--threads", "1"])
        let pid = orrery.process.processIdentifier
        // No client yet (the start-up line says it listens): what is open now stays open.
        let idle = Self.openDescriptors(pid)
        for _ in 0..<3 {
            var viewer = RawClient(port: port, timeout: 5)
            viewer?.send("GET /__admin/requests/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            let head = viewer?.read(until: "retry: 2000\n\n\r\n") ?? ""
            #expect(head.contains("text/event-stream"), "\(head)")
            #expect(Self.openDescriptors(pid) == idle + 1)
            viewer = nil
            let start = ContinuousClock.now
            #expect(OrreryProcess.waitFor(seconds: 5) { Self.openDescriptors(pid) == idle })
            #expect(ContinuousClock.now - start < .seconds(1), "the descriptor stayed \(ContinuousClock.now - start)")
        }
        // A viewer that stays gets what is journaled meanwhile.
        let viewer = try #require(RawClient(port: port, timeout: 5))
        viewer.send("GET /__admin/requests/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        _ = viewer.read(until: "retry: 2000\n\n\r\n")
        #expect(RawClient.get(port: port, "/ok") == "ok")
        #expect(viewer.read(until: "\n\n\r\n").contains("event: exchange"))
        #expect(orrery.stop(SIGTERM) == 0)
    }

    /// A POST of JSON to the admin API on a new connection; the whole answer.
    static func post(port: Int, _ path: String, _ json: String, timeout: Int = 60) -> String {
        RawClient.exchange(
            port: port,
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)",
            timeout: timeout)
    }

    @Test("A heavy regex count over the journal runs a slice per loop turn: other requests on the loop go on")
    func journalQueryYields() throws {
        let scratch = try Scratch(["stubs/ok.json": Self.okStub])
        let (orrery, port) = try HostileInputTests.serve(scratch, ["--threads", "1", "--max-uri-length", "65536"])
        let long = "/" + String(repeating: "a", count: 20_000)
        for _ in 0..<30 {
            #expect(RawClient.exchange(port: port, "GET \(long) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 404"))
        }
        #expect(Self.post(port: port, "/__admin/requests/count", #"{"urlPattern": "/a+"}"#).contains(#""count" : 30"#)
            || Self.post(port: port, "/__admin/requests/count", #"{"urlPattern": "/a+"}"#).contains(#""count": 30"#))
        // Starts at every letter and keeps up to 1000 threads alive per byte: each entry uses up the regex budget.
        let heavy = #"{"urlPattern": "[a-z][a-z]{0,999}0"}"#
        let answer = AnswerBox()
        let clock = ContinuousClock()
        let start = clock.now
        Thread.detachNewThread {
            let text = Self.post(port: port, "/__admin/requests/count", heavy)
            answer.set(text)
        }
        var slowest = Duration.zero
        var probes = 0
        while answer.value == nil, clock.now - start < .seconds(120) {
            let probe = clock.now
            #expect(RawClient.get(port: port, "/ok") == "ok")
            slowest = max(slowest, clock.now - probe)
            probes += 1
        }
        let total = clock.now - start
        let text = answer.value ?? ""
        #expect(text.hasPrefix("HTTP/1.1 200"), "\(text.prefix(300))")
        #expect(text.contains("count"))
        // Held whole, the loop would keep each probe waiting for most of the query; a slice at a time, for one entry.
        #expect(probes >= 3, "\(probes) probes in \(total)")
        #expect(slowest < total / 3, "a request waited \(slowest) while the query took \(total)")
        #expect(orrery.stop(SIGTERM) == 0)
    }

    @Test("The stubs folder is watched: a new file, a changed one and a file in a new subfolder are picked up")
    func watchPicksUpChanges() throws {
        let scratch = try Scratch(["stubs/ok.json": Self.okStub])
        let (orrery, port) = try HostileInputTests.serve(scratch, ["--threads", "1", "--watch-interval", "100"])
        #expect(RawClient.get(port: port, "/ok") == "ok")
        try scratch.write("stubs/new.yaml", "request: { path: /new }\nresponse: { body: first }\n")
        #expect(OrreryProcess.waitFor(seconds: 10) { RawClient.get(port: port, "/new") == "first" })
        try scratch.write("stubs/new.yaml", "request: { path: /new }\nresponse: { body: second }\n")
        #expect(OrreryProcess.waitFor(seconds: 10) { RawClient.get(port: port, "/new") == "second" })
        try FileManager.default.createDirectory(atPath: scratch.path("stubs/a/b"), withIntermediateDirectories: true)
        try scratch.write("stubs/a/b/deep.yaml", "request: { path: /deep }\nresponse: { body: deep }\n")
        #expect(OrreryProcess.waitFor(seconds: 10) { RawClient.get(port: port, "/deep") == "deep" })
        // A folder made after the first was: its own watch is added when its creation is read.
        try FileManager.default.createDirectory(atPath: scratch.path("stubs/a/b/c"), withIntermediateDirectories: true)
        #expect(OrreryProcess.waitFor(seconds: 10) { orrery.standardError.components(separatedBy: "stubs reloaded").count >= 5 })
        try scratch.write("stubs/a/b/c/deeper.yaml", "request: { path: /deeper }\nresponse: { body: deeper }\n")
        #expect(OrreryProcess.waitFor(seconds: 10) { RawClient.get(port: port, "/deeper") == "deeper" })
        try FileManager.default.removeItem(atPath: scratch.path("stubs/new.yaml"))
        #expect(OrreryProcess.waitFor(seconds: 10) { !RawClient.exchange(port: port, "GET /new HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200") })
        #expect(orrery.stop(SIGTERM) == 0)
    }

    @Test("An idle daemon watching 20,000 files uses no CPU")
    func idleWatchCPU() throws {
        let scratch = try Scratch(["stubs/ok.json": Self.okStub])
        // 100 folders of 200 body files, made by the shell's builtins (a loop of open(2) here took 20 s).
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = [
            "-c",
            #"mkdir -p "$0" && cd "$0" && for d in $(seq 0 99); do mkdir f$d; for i in $(seq 0 199); do : > f$d/b$i.json; done; done"#,
            scratch.path("stubs/bodies"),
        ]
        try shell.run()
        shell.waitUntilExit()
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("stubs/bodies/f99")).count == 200)
        let (orrery, port) = try HostileInputTests.serve(scratch, ["--threads", "1", "--watch-interval", "200"])
        let pid = orrery.process.processIdentifier
        #expect(RawClient.get(port: port, "/ok") == "ok")
        let before = Self.cpuTicks(pid)
        let start = ContinuousClock.now
        // Not waiting for the server: measuring what it does while nothing happens, over five watch intervals and more.
        Thread.sleep(forTimeInterval: 3)
        let used = Self.cpuTicks(pid) - before
        let elapsed = ContinuousClock.now - start
        // Clock ticks are hundredths of a second: a walk of the files every 200 ms took most of a core.
        #expect(used <= 10, "\(used) ticks of CPU in \(elapsed) while idle")
        try scratch.write("stubs/bodies/f7/b7.json", "[1]")
        #expect(OrreryProcess.waitFor(seconds: 10) { orrery.standardError.contains("stubs reloaded") })
        #expect(orrery.stop(SIGTERM) == 0)
    }

    @Test("Inside an intercepted tunnel, a client that never starts its TLS handshake is closed after --header-timeout")
    func silentTLSInTunnel() throws {
        let scratch = try Scratch(["stubs/ok.json": Self.okStub])
        let (orrery, port) = try HostileInputTests.serve(
            scratch, ["--threads", "1", "--mitm", "--ca-dir", scratch.path("ca"), "--header-timeout", "1s", "--offline"])
        let client = try #require(RawClient(port: port, timeout: 20))
        client.send("CONNECT api.example.test:443 HTTP/1.1\r\nHost: api.example.test:443\r\n\r\n")
        let head = client.read(until: "\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
        let start = ContinuousClock.now
        let rest = client.readToEnd()
        let held = ContinuousClock.now - start
        #expect(rest.isClosed)
        #expect(held < .seconds(4), "a silent TLS client was held \(held)")
        #expect(orrery.stop(SIGTERM) == 0)
    }
}

/// An answer another thread sets once.
final class AnswerBox: @unchecked Sendable {
    // Unchecked: `lock` guards `stored`, the only state.
    private let lock = NSLock()
    private var stored: String?

    var value: String? { lock.withLock { stored } }

    func set(_ text: String) { lock.withLock { stored = text } }
}
