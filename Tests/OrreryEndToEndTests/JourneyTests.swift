import Foundation
import Testing

/// The journeys of a first hour with Orrery, walked the way the guides in docs/ tell them, with the commands as they
/// write them (`--port 0` added where a test cannot take port 8080), read from the guides where they are whole. Serving the examples is `ServeCommandTests`;
/// intercepting HTTPS is `HTTPSLiveTests`; writing Swift tests with the kit is `OrreryTestingTests` and the example
/// app (`Examples/WeatherApp`); the dashboard is `DashboardBrowserTests`.
@Suite("First-hour journeys")
struct JourneyTests {
    /// The first fenced block of `language` after the heading `heading` (nil: from the top) in a documentation file
    /// of the repository.
    static func codeBlock(_ file: String, after heading: String? = nil, language: String) throws -> String {
        let text = try String(contentsOf: OrreryProcess.packageRoot.appendingPathComponent(file), encoding: .utf8)
        var from = text.startIndex
        if let heading {
            from = try #require(text.range(of: "\n" + heading + "\n"), "\(file) has no section '\(heading)'").upperBound
        }
        let start = try #require(text.range(of: "```" + language + "\n", range: from..<text.endIndex))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// A copy of the repository's `stubs/` and `config/` (the example host map included), as a new user has them.
    static func repositoryCopy() throws -> Scratch {
        let scratch = try Scratch([:])
        try FileManager.default.removeItem(atPath: scratch.path("stubs"))
        for folder in ["stubs", "config"] {
            try FileManager.default.copyItem(
                at: OrreryProcess.packageRoot.appendingPathComponent(folder), to: scratch.url.appendingPathComponent(folder))
        }
        return scratch
    }

    /// curl through Orrery as its HTTP proxy (what `http_proxy=...` does), whatever `no_proxy` says.
    static func throughProxy(_ proxy: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "--proxy", proxy, "--noproxy", "", "--max-time", "20", "-s"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Every file under `folder`, relative path → contents.
    static func files(_ folder: String) -> [String: Data] {
        var found: [String: Data] = [:]
        for relative in RecordCommandTests.files(folder) {
            found[relative] = FileManager.default.contents(atPath: folder + "/" + relative)
        }
        return found
    }

    @Test("Recording and replay: serve --record with the example config, a client using Orrery as its proxy, then offline")
    func recordThenReplay() throws {
        // The guide's commands (docs/recording.md, at its top), run as written but on port 0.
        let commands = try Self.codeBlock("docs/recording.md", language: "sh")
        for command in [
            "orrery serve --record recordings", "curl -s -X POST http://127.0.0.1:8080/__admin/recordings/stop",
            "orrery serve --stubs recordings --offline",
        ] {
            #expect(commands.contains(command), "docs/recording.md no longer says \(command)")
        }
        let scratch = try Self.repositoryCopy()
        // The local API: a second Orrery on loopback, answering compact JSON as APIs do.
        try scratch.write(
            "api/stubs/profile.yaml",
            """
            - request: { method: GET, path: /api/v1/profile }
              response: { headers: { Content-Type: application/json }, body: '{"id":7,"name":"Ada","roles":["admin"]}' }
            """)
        let api = try OrreryProcess(
            ["serve", "--port", "0", "--stubs", scratch.path("api/stubs"), "--config", scratch.path("api/config"), "--threads", "1"])
        let apiBase = try api.waitUntilListening()
        let url = apiBase + "/api/v1/profile"

        let recorder = try OrreryProcess(["serve", "--port", "0", "--record", "recordings"], workingDirectory: scratch.url)
        let proxy = try recorder.waitUntilListening()
        #expect(recorder.standardError.contains("forwarding what clients send through Orrery as their HTTP proxy"))
        let live = try Self.throughProxy(proxy, [url])
        #expect(live == #"{"id":7,"name":"Ada","roles":["admin"]}"#)
        let stopped = try Curl.run(["-X", "POST", proxy + "/__admin/recordings/stop"])
        #expect(stopped.contains(#""exchangesRecorded": 1"#), "\(stopped)")
        #expect(recorder.stop() == 0)
        #expect(api.stop() == 0)

        let recorded = Self.files(scratch.path("recordings"))
        let fixture = try #require(recorded.first { $0.key.hasSuffix("api/v1/profile.GET.yaml") })
        let text = String(decoding: fixture.value, as: UTF8.self)
        #expect(text.contains("json:\n"), "a JSON answer is written as a tree: \(text)")
        #expect(!recorded.keys.contains { ($0 as NSString).lastPathComponent.hasPrefix(".") })

        // Later, with the API gone: replay only.
        let replay = try OrreryProcess(["serve", "--port", "0", "--stubs", "recordings", "--offline"], workingDirectory: scratch.url)
        let replayProxy = try replay.waitUntilListening()
        #expect(try Self.throughProxy(replayProxy, [url]) == live)
        #expect(replay.stop() == 0)
    }

    @Test("Writing a stub set: the guide's stub file validates on its own, by path or --stubs, and answers")
    func stubSet() throws {
        // docs/stub-files.md opens with stubs/auth.yaml of the examples.
        let stubFile = try Self.codeBlock("docs/stub-files.md", language: "yaml")
        let scratch = try Scratch(["stubs/auth.yaml": stubFile])
        for arguments in [["validate", "stubs/auth.yaml"], ["validate", "--stubs", "stubs/auth.yaml"], ["validate"]] {
            let result = try OrreryProcess.run(arguments, workingDirectory: scratch.url)
            #expect(result.status == 0, "\(arguments): \(result.errors)")
            #expect(result.output.contains("OK: 2 stub(s) in 1 file(s)"), "\(arguments): \(result.output)")
        }
        let serving = try OrreryProcess(["serve", "-p", "0", "--stubs", "stubs/auth.yaml"], workingDirectory: scratch.url)
        #expect(serving.waitForExit() == 1)
        #expect(serving.standardError.contains("give the folder that holds it"), "\(serving.standardError)")

        let orrery = try OrreryProcess(["serve", "-p", "0"], workingDirectory: scratch.url)
        let base = try orrery.waitUntilListening()
        let token = try Curl.run([
            "-X", "POST", base + "/api/v1/token", "-H", "Content-Type: application/json",
            "-d", #"{"username": "ada", "password": "lovelace"}"#,
        ])
        #expect(token == #"{"token":"demo-token-ada","expiresIn":3600}"#)
        #expect(orrery.stop() == 0)
    }

    @Test("Intercepting HTTPS: --mitm-host, the CA exported with 'orrery ca export', a stub with base.host answers over the tunnel")
    func interceptHTTPS() throws {
        // docs/https.md: "A stub with `base: { host: api.example.com }` answers `https://api.example.com/...`", and
        // "curl --cacert ca.pem" trusts the CA that 'orrery ca export' writes.
        let scratch = try Scratch([
            "stubs/api.yaml": """
                base: { host: api.example.com }
                stubs:
                  - request: { method: GET, path: /v1/me }
                    response: { json: { name: Ada } }
                """
        ])
        let orrery = try OrreryProcess(
            ["serve", "-p", "0", "--mitm-host", "api.example.com", "--ca-dir", scratch.path("ca"), "--offline"],
            workingDirectory: scratch.url)
        let base = try orrery.waitUntilListening()
        let exported = try OrreryProcess.run(["ca", "export", "--ca-dir", scratch.path("ca"), "--out", scratch.path("ca.pem")])
        #expect(exported.status == 0, "\(exported.errors)")
        let answer = try Self.throughProxy(base, ["--cacert", scratch.path("ca.pem"), "https://api.example.com/v1/me"])
        #expect(answer == #"{"name":"Ada"}"#)
        let journal = try Curl.run([base + "/__admin/requests"])
        #expect(journal.contains("https://api.example.com/v1/me"), "\(journal)")
        #expect(orrery.stop() == 0)
    }

    @Test("At the default level a miss prints its line; a browser's /favicon.ico is no miss; -v logs every request")
    func logLinesAndFavicon() throws {
        let scratch = try Scratch(["stubs/hello.yaml": "- request: { path: /hello }\n  response: { body: hi }\n"])
        let orrery = try OrreryProcess(["serve", "-p", "0"], workingDirectory: scratch.url)
        let base = try orrery.waitUntilListening()
        #expect(try Curl.run([base + "/hello"]) == "hi")
        #expect(try Curl.run(["-o", "/dev/null", "-w", "%{http_code}", base + "/nothing-here"]) == "404")
        #expect(try Curl.run(["-o", "/dev/null", "-w", "%{http_code} %{size_download}", base + "/favicon.ico"]) == "204 0")
        let journal = try Curl.run([base + "/__admin/requests/unmatched"])
        #expect(journal.contains("/nothing-here") && !journal.contains("favicon"), "\(journal)")
        #expect(orrery.stop() == 0)
        #expect(orrery.standardError.contains("GET /nothing-here -> 404"), "\(orrery.standardError)")
        #expect(!orrery.standardError.contains("GET /hello"), "a stub's answer is quiet at the default level")

        let verbose = try OrreryProcess(["serve", "-p", "0", "-v"], workingDirectory: scratch.url)
        let verboseBase = try verbose.waitUntilListening()
        #expect(try Curl.run([verboseBase + "/hello"]) == "hi")
        #expect(verbose.stop() == 0)
        #expect(verbose.standardError.contains("GET /hello -> 200"), "\(verbose.standardError)")
    }

    @Test("serve --help: no stray spaces inside a description, every line at the column of its kind")
    func helpText() throws {
        let help = try OrreryProcess.run(["serve", "--help"]).output
        #expect(help.contains("-p, --port <port>"))
        #expect(help.contains("-v, --verbose"))
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        // Options start at 2 and their descriptions at 26; the usage and headings at 0.
        for line in lines where !line.isEmpty {
            let indent = line.prefix { $0 == " " }.count
            #expect([0, 2, 26].contains(indent), "indented \(indent): \(line)")
            let description = indent == 26 ? line.dropFirst(26) : line.count > 26 && indent == 2 ? line.dropFirst(26) : ""
            #expect(!description.contains("  "), "stray spaces: \(line)")
        }
    }
}
