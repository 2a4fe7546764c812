import Foundation
import Testing

@Suite("orrery import har")
struct ImportCommandTests {
    static let browserHAR = OrreryProcess.packageRoot.appendingPathComponent("Tests/Fixtures/browser-export.har").path

    @Test("a HAR file saved by a browser becomes fixtures that replay it offline, secrets redacted")
    func browserExport() throws {
        let scratch = try Scratch([:])
        let imported = try OrreryProcess.run(["import", "har", Self.browserHAR, "--out", scratch.path("fixtures")])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("Imported 8 of 9 entries into 7 file(s)"))
        #expect(imported.errors.contains("entry 6: GET https://tracker.example.net/pixel.gif: no response was recorded; skipped"))
        #expect(FileManager.default.fileExists(atPath: scratch.path("fixtures/api.example.com/api/v1/users.GET.yaml")))

        // Nothing written holds a secret of the capture.
        let files = FileManager.default.enumerator(atPath: scratch.path("fixtures"))?.allObjects as? [String] ?? []
        for file in files {
            let bytes = FileManager.default.contents(atPath: scratch.path("fixtures/" + file)) ?? Data()
            for secret in ["har-secret-token-31337", "har-cookie-secret-42", "har-cart-secret-77"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file) holds \(secret)")
            }
        }

        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("fixtures"), "--config", scratch.path("none"), "--offline",
        ])
        let base = try orrery.waitUntilListening()
        let host = ["-H", "Host: api.example.com"]
        let users = try Curl.run(host + ["\(base)/api/v1/users?sort=name&page=2"])
        #expect(users == #"{"users":[{"id":1,"name":"Ada Lovelace"},{"id":2,"name":"Charles Babbage"}],"page":2}"#)
        // The capture's gzip is applied again for a client that accepts it.
        let gzipHeaders = try Curl.run(host + ["--compressed", "-D", "-", "-o", "/dev/null", "\(base)/api/v1/users?page=2&sort=name"])
        #expect(gzipHeaders.lowercased().contains("content-encoding: gzip"))
        // Another host is not the captured API's.
        #expect(try Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/api/v1/users?page=2&sort=name"]) == "404")
        let order = try Curl.run(host + ["-X", "POST", "-d", #"{"quantity": 1, "sku": "ORRERY-1"}"#, "-w", " %{http_code}", "\(base)/api/v1/orders"])
        #expect(order == #"{"id":981,"status":"new"} 201"#)
        let logo = try Curl.run(host + ["-o", scratch.path("logo.png"), "-w", "%{http_code}", "\(base)/static/logo.png"])
        #expect(logo == "200")
        let png = FileManager.default.contents(atPath: scratch.path("logo.png")) ?? Data()
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(png.count == 264)
        let search = try Curl.run(host + ["-X", "POST", "-d", "q=orrery+model&lang=en", "\(base)/api/v1/search"])
        #expect(search == "2 results, café")
        // Repeats with new answers replay in order.
        #expect(try Curl.run(host + ["\(base)/api/v1/notifications"]) == #"{"unread":3}"#)
        #expect(try Curl.run(host + ["\(base)/api/v1/notifications"]) == #"{"unread":0}"#)
        #expect(try Curl.run(host + ["-o", "/dev/null", "-w", "%{http_code}", "\(base)/api/v1/profile"]) == "304")
        #expect(orrery.stop() == 0)
    }

    @Test("a file that is not a HAR says so, with the line for broken JSON")
    func badFiles() throws {
        let scratch = try Scratch(["broken.har": "{\n  \"log\": [\n", "other.json": #"{"hello": 1}"#])
        let broken = try OrreryProcess.run(["import", "har", scratch.path("broken.har"), "--out", scratch.path("out")])
        #expect(broken.status == 1)
        #expect(broken.errors.contains("broken.har:3:"))
        let other = try OrreryProcess.run(["import", "har", scratch.path("other.json"), "--out", scratch.path("out")])
        #expect(other.status == 1)
        #expect(other.errors.contains("not a HAR file: there is no log.entries list"))
        let missing = try OrreryProcess.run(["import", "har", scratch.path("missing.har"), "--out", scratch.path("out")])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("cannot read"))
    }
}

extension ImportCommandTests {
    @Test("a HAR file written by mitmproxy, binary body and gzip included, replays what mitmproxy saw")
    func mitmproxyExport() throws {
        let scratch = try Scratch([:])
        let har = OrreryProcess.packageRoot.appendingPathComponent("Tests/Fixtures/mitmproxy-export.har").path
        let imported = try OrreryProcess.run(["import", "har", har, "--out", scratch.path("fixtures")])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("Imported 13 of 13 entries into 12 file(s)"))
        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("fixtures"), "--config", scratch.path("none"), "--offline",
        ])
        let base = try orrery.waitUntilListening()
        // The capture was made through mitmproxy in front of Tests/Fixtures/upstream.py on that address.
        let host = ["-H", "Host: 127.0.0.1:39795"]
        _ = try Curl.run(host + ["-o", scratch.path("image.png"), "\(base)/rec/image.png"])
        let expected = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: Array(0...255), count: 8).flatMap { $0 }
        #expect(FileManager.default.contents(atPath: scratch.path("image.png")) == Data(expected.map { UInt8($0) }))
        let gzipped = try Curl.run(host + ["--compressed", "-D", "-", "\(base)/gzip"])
        #expect(gzipped.lowercased().contains("content-encoding: gzip"))
        #expect(gzipped.contains(#"{"compressed": true, "items": [0, 1, 2"#))
        #expect(try Curl.run(host + ["\(base)/rec/json?a=1&b=2"]).contains(#""name": "Ada""#))
        #expect(try Curl.run(host + ["\(base)/rec/counter"]) == "count 1")
        #expect(try Curl.run(host + ["\(base)/rec/counter"]) == "count 2")
        let whoami = try Curl.run(host + ["-H", "Authorization: Bearer someone-else", "\(base)/rec/whoami"])
        #expect(whoami == #"{"authorization": "[REDACTED]", "method": "GET"}"#)
        let cookies = try Curl.run(host + ["-D", "-", "-o", "/dev/null", "\(base)/rec/cookies"])
        #expect(cookies.components(separatedBy: "Set-Cookie: [REDACTED]").count == 3)
        #expect(!cookies.contains("cookie-secret-4567"))
        #expect(orrery.stop() == 0)
    }

    @Test("Orrery's own HAR export imports back, a gzip body kept as it came decoded once")
    func ownExport() throws {
        let gzipBody = [UInt8](Data(base64Encoded: "H4sIAAAAAAACA6tWSs7PLShKLS5OTVGyKikqTa0FAPHqOZUTAAAA") ?? Data())
        #expect(gzipBody.count > 10)
        let scratch = try Scratch([
            "export.har": #"""
                {"log": {"version": "1.2", "creator": {"name": "Orrery", "version": "0.1.0"}, "entries": [
                  {"request": {"method": "GET", "url": "http://api.example.com/g", "headers": []},
                   "response": {"status": 200, "headers": [{"name": "Content-Encoding", "value": "gzip"}, {"name": "Content-Type", "value": "application/json"}],
                                "content": {"size": \#(gzipBody.count), "text": "\#(Data(gzipBody).base64EncodedString())", "encoding": "base64"}}},
                  {"request": {"method": "GET", "url": "http://api.example.com/cut", "headers": []},
                   "response": {"status": 200, "headers": [], "content": {"size": 100000, "text": "only the start", "comment": "cut at the journal's body limit"}}}
                ]}}
                """#,
        ])
        let imported = try OrreryProcess.run(["import", "har", scratch.path("export.har"), "--out", scratch.path("fixtures")])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.errors.contains("GET http://api.example.com/cut: the body is incomplete (14 of 100000 bytes); skipped"))
        let fixture = (try? String(contentsOfFile: scratch.path("fixtures/api.example.com/g.GET.yaml"), encoding: .utf8)) ?? ""
        #expect(fixture.contains("encoding: gzip"))
        // Compact JSON is written as a json: tree (the loader writes it back as the same bytes).
        #expect(fixture.contains("json:\n      compressed: true\n"), "\(fixture)")
    }
}
