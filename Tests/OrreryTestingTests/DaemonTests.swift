import Foundation
import OrreryClient
import Testing

@testable import OrreryTesting

/// Starting and stopping the real binary: readiness, failures reported with the daemon's own words, no process left.
@Suite struct DaemonTests {
    @Test func startsAndAnswersOnThePortOfItsReadyFile() async throws {
        let daemon = try await OrreryDaemon.start(Support.privateOptions())
        defer { daemon.stop() }

        let folder = try #require(daemon.folder)
        let ready = try #require(ReadyFile.read(at: folder.appendingPathComponent("ready.json").path))
        #expect(ready.port == daemon.port)
        #expect(ready.pid == daemon.pid)
        #expect(daemon.url.absoluteString == "http://127.0.0.1:\(ready.port)")
        #expect(daemon.port != 0)

        let health = try await daemon.client.health()
        #expect(health.status == "ok")
        #expect(health.version == daemon.version)
        #expect(health.stubs == 1)
        let hello = try await Support.get("/hello", at: daemon.url)
        #expect(hello.status == 200)
        #expect(hello.body.contains("world"))
    }

    @Test func stopEndsTheProcessAndRemovesItsFolder() async throws {
        let daemon = try await OrreryDaemon.start(Support.privateOptions())
        let pid = try #require(daemon.pid)
        let folder = try #require(daemon.folder)

        #expect(await daemon.shutdown() == .exited(0))
        #expect(Support.isGone(pid))
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        #expect(!daemon.isRunning)
        #expect(daemon.stop() == .exited(0), "stopping again answers the same")
    }

    @Test func aBodyThatThrowsStillStopsTheDaemon() async throws {
        let pid = Locked<Int32?>(nil)
        await #expect(throws: DeliberateFailure.self) {
            try await Orrery.withDaemon(Support.privateOptions()) { daemon in
                let started = daemon.pid
                pid.update { $0 = started }
                throw DeliberateFailure()
            }
        }
        let stopped = try #require(pid.value)
        #expect(Support.isGone(stopped))
    }

    @Test func aTestThatFailsUnderTheTraitStillStopsTheDaemon() async throws {
        // The trait's own scope for a test, with a body that fails: the session ends, and the daemon, whose last user
        // that test was, stops.
        let options = Support.privateOptions()
        let trait = OrreryTrait(options: options)
        let test = try #require(Test.current)
        let seen = Locked<(pid: Int32?, session: String?)>((nil, nil))
        await #expect(throws: DeliberateFailure.self) {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                let session = try Orrery.session
                seen.update { $0 = (session.daemon.pid, session.id) }
                throw DeliberateFailure()
            }
        }
        let pid = try #require(seen.value.pid)
        #expect(Support.isGone(pid))
        #expect(await SharedDaemons.shared.users(of: options) == 0)
    }

    @Test func aDaemonThatExitsAtOnceIsReportedWithItsStandardError() async throws {
        let folder = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("- request: { method: GET, path: /x }\n  response: { stauts: 200 }\n".utf8)
            .write(to: folder.appendingPathComponent("bad.yaml"))

        let error = await #expect(throws: OrreryTestingError.self) {
            try await OrreryDaemon.start(Support.privateOptions(stubs: folder.path))
        }
        #expect(error?.kind == .exitedBeforeReady)
        #expect(error?.description.contains("exit status 1") == true)
        #expect(error?.standardError?.contains("bad.yaml:2") == true, "\(String(describing: error))")
    }

    @Test func aDaemonThatNeverGetsReadyIsKilledAtTheTimeout() async throws {
        let folder = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fake = folder.appendingPathComponent("orrery")
        let pidFile = folder.appendingPathComponent("pid")
        try Support.script("#!/bin/sh\necho $$ > '\(pidFile.path)'\necho 'starting slowly' >&2\nexec sleep 30\n", at: fake)

        let clock = ContinuousClock()
        let began = clock.now
        let error = await #expect(throws: OrreryTestingError.self) {
            try await OrreryDaemon.start(Support.privateOptions(binary: fake.path, readyTimeout: .milliseconds(500)))
        }
        // Well before the stand-in's own 30 s: the bound is loose because a busy machine running other suites in
        // parallel can hold the waiting task back for seconds.
        #expect(clock.now - began < .seconds(20))
        #expect(error?.kind == .readyTimeout)
        #expect(error?.standardError == "starting slowly")
        let pid = try #require(Int32(String(decoding: try Data(contentsOf: pidFile), as: UTF8.self).filter(\.isNumber)))
        #expect(Support.isGone(pid))
    }

    @Test func aDaemonThatIgnoresSIGTERMIsKilledAfterTheStopTimeout() async throws {
        // A stand-in that writes a ready file, then ignores SIGTERM and its closed input (sleep inherits the ignored
        // signal through exec).
        let folder = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let fake = folder.appendingPathComponent("orrery")
        try Support.script(
            """
            #!/bin/sh
            trap '' TERM
            while [ $# -gt 0 ]; do [ "$1" = --ready-file ] && ready="$2"; shift; done
            echo "{\\"url\\": \\"http://127.0.0.1:9\\", \\"port\\": 9, \\"pid\\": $$, \\"version\\": \\"0\\"}" > "$ready.tmp"
            mv "$ready.tmp" "$ready"
            exec sleep 30

            """, at: fake)

        let daemon = try await OrreryDaemon.start(
            Support.privateOptions(binary: fake.path, stopTimeout: .milliseconds(300)))
        let pid = try #require(daemon.pid)
        #expect(await daemon.shutdown() == .signalled(SIGKILL))
        #expect(Support.isGone(pid))
    }

    @Test func aMissingBinaryIsAClearError() async throws {
        let error = await #expect(throws: OrreryTestingError.self) {
            try await OrreryDaemon.start(Support.privateOptions(binary: "/nonexistent/orrery"))
        }
        #expect(error?.kind == .binaryNotFound)
        let text = error?.description ?? ""
        #expect(text.contains("/nonexistent/orrery"))
        #expect(text.contains("does not exist"))
        #expect(text.contains("ORRERY_BINARY"))
    }

    #if os(Linux)
        @Test func theDaemonStartsWithNoSignalBlockedWhenStartedFromAPoolThread() async throws {
            // Threads of the concurrency pool block SIGTERM, SIGINT and SIGCHLD; a child spawned from one would
            // start with them blocked.
            let daemon = try await Task.detached { try await OrreryDaemon.start(Support.privateOptions()) }.value
            defer { daemon.stop() }
            let pid = try #require(daemon.pid)
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            let blocked = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
            #expect(blocked?.split(separator: "\t").last == "0000000000000000")
        }
    #endif
}
