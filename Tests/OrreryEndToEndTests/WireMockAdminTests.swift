import Foundation
import Testing

/// `--wiremock-port` and `{"wiremock": true}` sessions, driven by WireMock's own clients: its Java client (compiled
/// with `javac` against the standalone jar the PyPI package `wiremock` ships) and that package's Python client.
@Suite("WireMock's admin API, with WireMock's own clients")
struct WireMockAdminTests {
    /// A daemon with `--wiremock-port 0`, and the ports its ready file names.
    final class Daemon {
        let process: OrreryProcess
        let scratch: Scratch
        let port: Int
        let wireMockPort: Int

        init() throws {
            let scratch = try Scratch([:])
            let process = try OrreryProcess([
                "serve", "--port", "0", "--wiremock-port", "0", "--stubs", scratch.path("stubs"), "--offline",
                "--watch-interval", "0", "--ready-file", scratch.path("ready.json"),
            ])
            self.scratch = scratch
            self.process = process
            let ready = scratch.path("ready.json")
            _ = OrreryProcess.waitFor { FileManager.default.fileExists(atPath: ready) || !process.process.isRunning }
            let data = try Data(contentsOf: URL(fileURLWithPath: ready))
            let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "ready file")
            port = try #require(json["port"] as? Int)
            wireMockPort = try #require(json["wiremockPort"] as? Int, "the ready file names the WireMock port")
        }

        /// Opens a session whose port speaks WireMock's dialect; returns its id and port.
        func openWireMockSession() throws -> (id: String, port: Int) {
            let text = try Curl.run([
                "-X", "POST", "http://127.0.0.1:\(port)/__admin/sessions", "-d", #"{"wiremock": true}"#,
            ])
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
            #expect(json["wiremock"] as? Bool == true, "\(text)")
            return (try #require(json["id"] as? String), try #require(json["port"] as? Int))
        }

        deinit {
            _ = process.stop()
        }
    }

    /// Runs a tool to completion, at most `seconds`: its exit status and everything it printed.
    static func run(_ arguments: [String], seconds: Double = 120) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["no_proxy"] = "127.0.0.1,localhost"
        environment["NO_PROXY"] = "127.0.0.1,localhost"
        process.environment = environment
        let log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "wiremock-admin-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        if !OrreryProcess.waitFor(seconds: seconds, { !process.isRunning }) {
            process.terminate()
            process.waitUntilExit()
        }
        try handle.close()
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// The standalone jar of the PyPI package `wiremock` (scripts/install-dependencies.sh --with-test-tools).
    static func jar() throws -> String {
        let found = try run([
            "python3", "-c",
            "import glob, os, wiremock; print(sorted(glob.glob(os.path.join(os.path.dirname(wiremock.__file__), 'server', 'wiremock-standalone-*.jar')))[-1])",
        ])
        #expect(found.status == 0, "\(found.output)")
        return found.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let fixtures = OrreryProcess.packageRoot.appendingPathComponent("Tests/Fixtures/wiremock-clients")

    @Test("WireMock's Java client: the static API on --wiremock-port, then eight sessions at once, each on its own")
    func javaClient() throws {
        let daemon = try Daemon()
        let jar = try Self.jar()
        let classes = daemon.scratch.path("classes")
        let compiled = try Self.run([
            "javac", "-nowarn", "-cp", jar, "-d", classes,
            Self.fixtures.appendingPathComponent("WireMockClientCheck.java").path,
        ])
        try #require(compiled.status == 0, "\(compiled.output)")
        let classPath = jar + ":" + classes
        let single = try Self.run(["java", "-cp", classPath, "WireMockClientCheck", "static", "\(daemon.wireMockPort)"])
        #expect(single.status == 0 && single.output.contains("OK"), "\(single.output)")

        let sessions = try (0..<8).map { _ in try daemon.openWireMockSession() }
        let parallel = try Self.run(
            ["java", "-cp", classPath, "WireMockClientCheck", "parallel"] + sessions.map { "\($0.port)" })
        #expect(parallel.status == 0 && parallel.output.contains("OK"), "\(parallel.output)")
    }

    @Test("The Python wiremock client: --wiremock-port and eight sessions at once, each seeing only its own")
    func pythonClient() throws {
        let daemon = try Daemon()
        let sessions = try (0..<8).map { _ in try daemon.openWireMockSession() }
        let ports = ["\(daemon.wireMockPort)"] + sessions.map { "\($0.port)" }
        let checked = try Self.run(
            ["python3", Self.fixtures.appendingPathComponent("python_client_check.py").path] + ports)
        #expect(checked.status == 0 && checked.output.contains("OK"), "\(checked.output)")
    }

    @Test("The same admin calls to WireMock 2.35 and to --wiremock-port answer in the same JSON shapes")
    func shapesAgainstWireMock() throws {
        let compared = try Self.run([
            "python3", OrreryProcess.packageRoot.appendingPathComponent("scripts/wiremock-admin-compare.py").path,
            "--orrery",
            OrreryProcess.binary.path,
        ])
        #expect(compared.status == 0, "\(compared.output)")
        #expect(compared.output.contains("0 differences"), "\(compared.output)")
    }

    @Test(
        "On the daemon's port a WireMock session is an ordinary session: Orrery's admin API, its posted mapping as a stub"
    )
    func orreryAPIUnchanged() throws {
        let daemon = try Daemon()
        let session = try daemon.openWireMockSession()
        let mapping = #"{"request": {"method": "GET", "url": "/hello"}, "response": {"status": 200, "body": "hi"}}"#
        let created = try Curl.run(["-X", "POST", "http://127.0.0.1:\(session.port)/__admin/mappings", "-d", mapping])
        #expect(created.contains(#""uuid""#), "\(created)")
        #expect(try Curl.run(["http://127.0.0.1:\(session.port)/hello"]) == "hi")
        // The daemon's port answers Orrery's shapes for the same session, and the main session has none of it.
        let stubs = try Curl.run([
            "-H", "X-Orrery-Session: \(session.id)", "http://127.0.0.1:\(daemon.port)/__admin/stubs",
        ])
        #expect(stubs.contains(#""count": 1"#) && stubs.contains(#""stubs""#), "\(stubs)")
        let own = try Curl.run(["http://127.0.0.1:\(daemon.port)/__admin/stubs"])
        #expect(own.contains(#""count": 0"#), "\(own)")
        let miss = try Curl.run(["http://127.0.0.1:\(daemon.port)/hello"])
        #expect(miss.contains("No stub matches"), "the main port answers Orrery's miss: \(miss)")
        // WireMock's shutdown ends the session it is sent to, and only that.
        _ = try Curl.run(["-X", "POST", "http://127.0.0.1:\(session.port)/__admin/shutdown"])
        let gone = OrreryProcess.waitFor {
            (try? Curl.run(["http://127.0.0.1:\(daemon.port)/__admin/sessions/\(session.id)"]))?.contains(
                "There is no session") == true
        }
        #expect(gone, "the session ended")
        #expect(try Curl.run(["http://127.0.0.1:\(daemon.port)/__admin/health"]).contains(#""status": "ok""#))
    }
}
