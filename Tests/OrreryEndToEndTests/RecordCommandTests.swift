import Foundation
import Testing

/// `orrery serve --record` as a process: what a kill or a full disk leaves behind. The upstream is a second orrery
/// serving stubs: a real server on loopback.
@Suite("orrery serve --record")
struct RecordCommandTests {
    /// An upstream whose every /item/N answers 40 KB of text (so each fixture has a body file), /small a few bytes
    /// and /big 300 KB.
    static let upstreamStubs = """
        - request: { pathPattern: "^/item/" }
          response: { headers: { Content-Type: text/plain }, body: "\(String(repeating: "0123456789abcdef", count: 2560))" }
        - request: { path: /small }
          response: { headers: { Content-Type: text/plain }, body: small }
        - request: { path: /big }
          response: { headers: { Content-Type: text/plain }, body: "\(String(repeating: "x", count: 300_000))" }
        """

    /// Starts the upstream and writes the recorder's host map pointing at it.
    static func upstream(_ scratch: Scratch) throws -> OrreryProcess {
        try scratch.write("up/stubs/items.yaml", upstreamStubs)
        let upstream = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("up/stubs"), "--config", scratch.path("up/config"),
            "--threads", "1", "--log-level", "warning",
        ])
        let address = try upstream.waitUntilListening().dropFirst("http://".count)
        try scratch.write(
            "config/hosts.json",
            #"{"configurations": [{"canonical_host": "api.example.com", "canonical_protocol": "http", "hosts": [{"key": "PROD", "host": "\#(address)"}]}]}"#)
        return upstream
    }

    /// Every file under `folder`, relative paths.
    static func files(_ folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { relative in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + relative, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }

    @Test("a recording killed with SIGKILL leaves only whole fixtures, and the next session clears its leftovers")
    func killMidRecording() throws {
        let scratch = try Scratch([:])
        let upstream = try Self.upstream(scratch)
        let recorder = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config"), "--record",
            scratch.path("rec"), "--log-level", "warning",
        ])
        let base = try recorder.waitUntilListening()
        // Traffic that keeps the recorder writing: 1,000 routes, 8 at a time, far more than it has written when killed.
        let traffic = Process()
        traffic.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        traffic.arguments = ["curl", "--noproxy", "*", "-s", "--parallel", "--parallel-max", "8", "--max-time", "30"]
            + (1...1000).flatMap { ["-o", "/dev/null", "\(base)/item/\($0)"] }
        try traffic.run()
        defer { if traffic.isRunning { traffic.terminate() } }
        let isRecording = OrreryProcess.waitFor { Self.files(scratch.path("rec")).filter { $0.hasSuffix(".yaml") }.count >= 20 }
        #expect(isRecording)
        #expect(recorder.stop(SIGKILL) != nil)
        traffic.waitUntilExit()

        let afterKill = Self.files(scratch.path("rec"))
        let fixtures = afterKill.filter { $0.hasSuffix(".yaml") && !($0 as NSString).lastPathComponent.hasPrefix(".") }
        // The kill came mid-recording: some routes were recorded, not all.
        #expect(fixtures.count >= 20 && fixtures.count < 1000, "\(fixtures.count) fixtures")
        // Every fixture loads, and every body file it names is there, whole.
        let validation = try OrreryProcess.run(["validate", "--stubs", scratch.path("rec"), "--config", scratch.path("none")])
        #expect(validation.status == 0, "\(validation.errors)")
        for body in afterKill where body.contains("/bodies/") && !(body as NSString).lastPathComponent.hasPrefix(".") {
            let size = try FileManager.default.attributesOfItem(atPath: scratch.path("rec/" + body))[.size] as? Int
            #expect(size == 40_960, "\(body)")
        }

        // A new session on the folder removes what the killed one left half-written, and replays what it finished.
        // The kill may have come between two files: one more leftover, named as the killed process would name it,
        // makes sure the clearing is seen.
        let killedPID = recorder.process.processIdentifier
        let planted = scratch.path("rec/api.example.com/.item.GET.yaml.\(killedPID).12345.tmp")
        #expect(FileManager.default.createFile(atPath: planted, contents: Data("half".utf8)))
        let replay = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config"), "--record",
            scratch.path("rec"), "--record-mode", "none", "--offline",
        ])
        let replayBase = try replay.waitUntilListening()
        #expect(!FileManager.default.fileExists(atPath: planted))
        #expect(!Self.files(scratch.path("rec")).contains { ($0 as NSString).lastPathComponent.hasPrefix(".") })
        let recorded = try #require(fixtures.first.map { "/" + $0.dropFirst("api.example.com/".count).dropLast(".GET.yaml".count) })
        #expect(try Curl.run(["-o", "/dev/null", "-w", "%{http_code} %{size_download}", replayBase + recorded]) == "200 40960")
        #expect(replay.stop() == 0)
        #expect(upstream.stop() == 0)
    }

    @Test("a full disk stops the recording with a clear error; serving goes on, and what was written stays whole")
    func fullDisk() throws {
        let scratch = try Scratch([:])
        let upstream = try Self.upstream(scratch)
        let folder = scratch.path("rec")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let arguments = [
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config"), "--record", folder,
        ]
        // A real full disk where the machine lets a test mount a small tmpfs (in its own user and mount namespace);
        // elsewhere a file size limit, which fails the same writes with EFBIG.
        let canMount = (try? Process.run(URL(fileURLWithPath: "/usr/bin/env"), arguments: ["unshare", "-rm", "true"]))
            .map { process in
                process.waitUntilExit()
                return process.terminationStatus == 0
            } ?? false
        let recorder: OrreryProcess
        let expectedReason: String
        if canMount {
            recorder = try OrreryProcess(
                ["-rm", "/bin/sh", "-c", #"mount -t tmpfs -o size=128k tmpfs "$0" && exec "$@""#, folder, OrreryProcess.binary.path] + arguments,
                executable: "/usr/bin/unshare")
            expectedReason = "No space left on device"
        } else {
            recorder = try OrreryProcess(arguments, shell: "ulimit -f 128;")
            expectedReason = "File too large"
        }
        let base = try recorder.waitUntilListening()
        #expect(try Curl.run(["\(base)/small"]) == "small")
        #expect(try Curl.run(["-o", "/dev/null", "-w", "%{http_code} %{size_download}", "\(base)/big"]) == "200 300000")
        let stopped = OrreryProcess.waitFor {
            let status = (try? Curl.run(["\(base)/__admin/recordings"])) ?? ""
            return status.contains(#""recording" : false"#) || status.contains(#""recording": false"#)
        }
        #expect(stopped)
        let status = try Curl.run(["\(base)/__admin/recordings"])
        #expect(status.contains(expectedReason), "\(status)")
        #expect(recorder.standardError.contains("recording stopped"))
        // Serving goes on; the proxy still answers, unrecorded.
        let item = try Curl.run(["-w", "\\n%{http_code}", "\(base)/item/1"])
        #expect(item.count == 40_960 + 4, "\(item.suffix(400))")
        #expect(try Curl.run(["\(base)/__admin/health"]).contains(#""ok""#))
        #expect(recorder.stop() == 0)
        #expect(upstream.stop() == 0)
        if !canMount {
            // The fixture written before the failure is whole and loads (a tmpfs goes with its namespace).
            let validation = try OrreryProcess.run(["validate", "--stubs", folder, "--config", scratch.path("none")])
            #expect(validation.status == 0, "\(validation.errors)")
            #expect(Self.files(folder).contains("api.example.com/small.GET.yaml"))
        }
    }

    @Test("--record needs the proxy unless it only replays; a bad mode is refused")
    func flags() throws {
        let scratch = try Scratch([:])
        let offline = try OrreryProcess.run(["serve", "--offline", "--record", scratch.path("rec"), "--stubs", scratch.path("stubs")])
        #expect(offline.status == 64)
        #expect(offline.errors.contains("--record needs the proxy"))
        let mode = try OrreryProcess.run(["serve", "--record", scratch.path("rec"), "--record-mode", "sometimes"])
        #expect(mode.status == 64)
        #expect(mode.errors.contains("'once', 'new_episodes', 'all' or 'none'"))
        let help = try OrreryProcess.run(["serve", "--help"])
        #expect(help.output.contains("--record <folder>"))
        #expect(help.output.contains("--record-mode <mode>"))
    }
}
