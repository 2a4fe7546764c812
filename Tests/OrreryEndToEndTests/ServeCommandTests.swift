import Foundation
import Testing

@Suite("orrery serve")
struct ServeCommandTests {
    @Test("serves the repository's example stubs as the README shows")
    func examples() throws {
        // --no-proxy: the example host map points at real hosts, and tests stay on loopback.
        let orrery = try OrreryProcess(["serve", "--port", "0", "--threads", "2", "--no-proxy"])
        let base = try orrery.waitUntilListening()
        #expect(orrery.standardOutput.contains("(9 stubs from 4 files in stubs, 2 threads)"))

        let token = try Curl.run([
            "-X", "POST", "\(base)/api/v1/token", "-H", "Content-Type: application/json",
            "-d", #"{"username": "ada", "password": "lovelace"}"#,
        ])
        #expect(token == #"{"token":"demo-token-ada","expiresIn":3600}"#)
        let users = try Curl.run(["\(base)/api/v1/users", "-H", "Authorization: Bearer demo-token-ada"])
        #expect(users.contains("Charles Babbage"))
        let refused = try Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/api/v1/users"])
        #expect(refused == "401")
        let order = try Curl.run([
            "-X", "POST", "\(base)/api/v1/orders", "-H", "Content-Type: application/json",
            "-d", #"{"quantity": 1, "sku": "ORRERY-1"}"#, "-w", " %{http_code}",
        ])
        #expect(order.hasSuffix(" 201"))
        let miss = try Curl.run(["\(base)/api/v1/user/1"])
        #expect(miss.contains("\"closestStubs\""))
        #expect(orrery.stop() == 0)
    }

    @Test("SIGTERM and SIGINT finish and exit 0", arguments: [SIGTERM, SIGINT])
    func gracefulStop(_ signal: Int32) throws {
        let scratch = try Scratch(["stubs/big.json": #"{"request": {"path": "/big"}, "response": {"body": "\#(String(repeating: "x", count: 4_000_000))"}}"#])
        let orrery = try OrreryProcess(["serve", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config")])
        let base = try orrery.waitUntilListening()
        // A client still downloading a 4 MB answer when the signal arrives still gets all of it.
        let download = Process()
        download.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        download.arguments = ["curl", "--noproxy", "*", "-s", "--limit-rate", "8M", "-o", scratch.path("big.out"), "\(base)/big"]
        try download.run()
        _ = OrreryProcess.waitFor { (try? FileManager.default.attributesOfItem(atPath: scratch.path("big.out"))[.size] as? Int) ?? 0 > 0 }
        #expect(orrery.stop(signal) == 0)
        download.waitUntilExit()
        let size = try FileManager.default.attributesOfItem(atPath: scratch.path("big.out"))[.size] as? Int
        #expect(size == 4_000_000)
        #expect(orrery.standardError.contains("finishing in-flight requests"))
    }

    @Test("a request still waiting on a delayed stub is answered before the daemon exits")
    func stopWaitsForDelayedReply() throws {
        let scratch = try Scratch(["stubs/slow.json": #"{"request": {"path": "/slow"}, "response": {"delay": 700, "body": "done"}}"#])
        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config"), "--log-level", "debug",
        ])
        let base = try orrery.waitUntilListening()
        let client = Process()
        client.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        client.arguments = ["curl", "--noproxy", "*", "-s", "-o", scratch.path("slow.out"), "\(base)/slow"]
        try client.run()
        // The debug line is written when the delayed reply is scheduled, so the daemon now holds the request.
        #expect(OrreryProcess.waitFor { orrery.standardError.contains("GET /slow -> 200") })
        #expect(orrery.stop() == 0)
        client.waitUntilExit()
        #expect(try String(contentsOfFile: scratch.path("slow.out"), encoding: .utf8) == "done")
    }

    @Test("SIGHUP reloads; a broken file keeps the running set and logs file and line")
    func sighupReload() throws {
        let scratch = try Scratch(["stubs/a.json": #"{"request": {"path": "/a"}, "response": {"body": "one"}}"#])
        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config"), "--watch-interval", "0",
        ])
        let base = try orrery.waitUntilListening()
        try scratch.write("stubs/a.json", #"{"request": {"path": "/a"}, "response": {"body": "two"}}"#)
        kill(orrery.process.processIdentifier, SIGHUP)
        #expect(OrreryProcess.waitFor { (try? Curl.run(["\(base)/a"])) == "two" })

        try scratch.write("stubs/a.json", "{\"request\": {\"path\": \"/a\"},\n \"respons\": {}}")
        kill(orrery.process.processIdentifier, SIGHUP)
        #expect(OrreryProcess.waitFor { orrery.standardError.contains("a.json:2: unknown key 'respons'") })
        #expect(try Curl.run(["\(base)/a"]) == "two")
        #expect(orrery.stop() == 0)
    }

    @Test("a changed file under stubs/ is picked up without a signal")
    func watchesFolder() throws {
        let scratch = try Scratch(["stubs/a.yaml": "request: { path: /a }\nresponse: { body: one }\n"])
        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config"), "--watch-interval", "100",
        ])
        let base = try orrery.waitUntilListening()
        try scratch.write("stubs/nested/b.yaml", "request: { path: /b }\nresponse: { body: added }\n")
        #expect(OrreryProcess.waitFor { (try? Curl.run(["\(base)/b"])) == "added" })
        #expect(orrery.stop() == 0)
    }

    @Test("refuses to start on broken stubs, with the same FILE:LINE messages as validate")
    func refusesBrokenStubs() throws {
        let scratch = try Scratch(["stubs/bad.yaml": "request:\n  path: /x\nresponse:\n  status: Code200Okay\n"])
        let result = try OrreryProcess.run(["serve", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config")])
        #expect(result.status == 1)
        #expect(result.errors.contains("bad.yaml:4: unknown status 'Code200Okay'; did you mean 'Code200OK'?"))
        #expect(!result.output.contains("listening"))
    }

    @Test("debug logging writes one line per request")
    func debugLog() throws {
        let scratch = try Scratch(["stubs/a.json": #"{"name": "alpha", "request": {"path": "/a"}, "response": {"body": "one"}}"#])
        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config"), "--log-level", "debug",
        ])
        let base = try orrery.waitUntilListening()
        _ = try Curl.run(["\(base)/a"])
        _ = try Curl.run(["\(base)/nothing"])
        #expect(OrreryProcess.waitFor { orrery.standardError.contains("GET /a -> 200 from stub alpha") })
        #expect(OrreryProcess.waitFor { orrery.standardError.contains("GET /nothing -> 404") })
        #expect(orrery.stop() == 0)
    }

    @Test("a port in use is a clear error")
    func portInUse() throws {
        let first = try OrreryProcess(["serve", "--port", "0"])
        let base = try first.waitUntilListening()
        let port = try #require(base.split(separator: ":").last.map(String.init))
        let second = try OrreryProcess.run(["serve", "--port", port])
        #expect(second.status == 1)
        #expect(second.errors.contains("cannot listen on 127.0.0.1:\(port)"))
        #expect(first.stop() == 0)
    }
}

@Suite("orrery export")
struct ExportCommandTests {
    @Test("export har saves a running daemon's journal to a file, and says so when it cannot reach one")
    func har() throws {
        let scratch = try Scratch(["stubs/a.json": #"{"request": {"path": "/a"}, "response": {"body": "one"}}"#])
        let orrery = try OrreryProcess(["serve", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config")])
        let base = try orrery.waitUntilListening()
        _ = try Curl.run(["\(base)/a"])
        let saved = try OrreryProcess.run(["export", "har", "--url", base, "--out", scratch.path("out.har")])
        #expect(saved.status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: scratch.path("out.har")))
        let log = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["log"] as? [String: Any])
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect((entries.first?["request"] as? [String: Any])?["url"] as? String == "\(base)/a")
        #expect(orrery.stop() == 0)

        // A port bound but never listened on refuses connections, and no other test can take it meanwhile (the
        // stopped daemon's port could be given to a parallel test's server).
        let closed = try ClosedPort()
        let unreachable = try OrreryProcess.run(["export", "har", "--url", "http://127.0.0.1:\(closed.port)", "--out", scratch.path("none.har")])
        #expect(unreachable.status == 1)
        #expect(unreachable.errors.contains("cannot reach"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("none.har")))
    }
}
