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
