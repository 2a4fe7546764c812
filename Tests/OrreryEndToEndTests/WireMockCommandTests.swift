import Foundation
import Testing

@Suite("WireMock roots: serve, validate, import")
struct WireMockCommandTests {
    static let mappings = #"""
        {"mappings": [
          {"name": "user", "request": {"method": "GET", "urlPathPattern": "/users/[0-9]+"},
           "response": {"status": 200, "headers": {"Content-Type": "application/json"},
             "body": "{\"id\": \"{{request.path.[1]}}\", \"q\": \"{{request.query.q}}\"}", "transformers": ["response-template"]}},
          {"name": "me", "priority": 1, "request": {"method": "GET", "urlPath": "/users/1"},
           "response": {"status": 200, "bodyFileName": "me.json"}},
          {"name": "login", "request": {"method": "POST", "url": "/login",
             "bodyPatterns": [{"equalToJson": {"user": "ada"}, "ignoreExtraElements": true}]},
           "response": {"status": 201, "jsonBody": {"token": "t-1"}, "headers": {"Content-Type": "application/json"}}}
        ]}
        """#

    static func root() throws -> Scratch {
        try Scratch(["wm/mappings/api.json": mappings, "wm/__files/me.json": #"{"me": true}"#])
    }

    @Test("serve --wiremock-root answers as WireMock: templates, priorities, no Content-Type it was not given; a change reloads")
    func serve() throws {
        let scratch = try Self.root()
        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--wiremock-root", scratch.path("wm"), "--offline",
            "--watch-interval", "50",
        ])
        let base = try orrery.waitUntilListening()
        #expect(try Curl.run(["\(base)/users/7?q=x"]) == #"{"id": "7", "q": "x"}"#)
        #expect(try Curl.run(["\(base)/users/1"]) == #"{"me": true}"#)
        let headers = try Curl.run(["-D", "-", "-o", "/dev/null", "\(base)/users/1"]).lowercased()
        #expect(!headers.contains("content-type"))
        #expect(try Curl.run(["-X", "POST", "-d", #"{"user": "ada", "extra": 1}"#, "-w", " %{http_code}", "\(base)/login"]) == #"{"token":"t-1"} 201"#)
        #expect(try Curl.run(["-X", "POST", "-d", #"{"user": "bob"}"#, "-o", "/dev/null", "-w", "%{http_code}", "\(base)/login"]) == "404")

        try scratch.write("wm/__files/me.json", #"{"me": "changed"}"#)
        #expect(try OrreryProcess.waitFor { try Curl.run(["\(base)/users/1"]) == #"{"me": "changed"}"# })
        #expect(orrery.stop() == 0)
    }

    @Test("What cannot be honoured is logged at start-up and by validate with file, line, JSON path and reason")
    func issues() throws {
        let scratch = try Self.root()
        try scratch.write("wm/mappings/xml.json", #"""
            {
              "request": {"urlPath": "/soap", "bodyPatterns": [{"matchesXPath": {"expression": "//order", "doesNotMatch": "x"}}]},
              "response": {"status": 200}
            }
            """#)
        let validated = try OrreryProcess.run(["validate", "--wiremock-root", scratch.path("wm")])
        #expect(validated.status == 1)
        #expect(validated.errors.contains(
                "wm/mappings/xml.json:2: $.request.bodyPatterns[0].matchesXPath.doesNotMatch: 'doesNotMatch' beside an XPath is not supported (mapping not served)"
            ))

        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--wiremock-root", scratch.path("wm"), "--offline",
        ])
        let base = try orrery.waitUntilListening()
        #expect(orrery.standardError.contains("WireMock: \(scratch.path("wm"))/mappings/xml.json:2: $.request.bodyPatterns[0].matchesXPath"))
        // Left out, not served differently: the request is a miss.
        #expect(try Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/soap"]) == "404")
        #expect(orrery.stop() == 0)
    }

    @Test("import wiremock writes native YAML that answers as the root does")
    func importRoot() throws {
        let scratch = try Self.root()
        let large = String(repeating: "0123456789", count: 500)
        try scratch.write("wm/mappings/big.json", #"{"request": {"urlPath": "/big"}, "response": {"body": "\#(large)"}}"#)
        let imported = try OrreryProcess.run(["import", "wiremock", scratch.path("wm"), "--out", scratch.path("native")])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("Imported 4 of 4 mapping(s) into 2 file(s)"))
        // A body over 4 KB written in the mapping becomes a body file.
        let big = (try? String(contentsOfFile: scratch.path("native/big.yaml"), encoding: .utf8)) ?? ""
        #expect(big.contains("bodyFile: bodies/inline/big-1.txt"))
        let yaml = (try? String(contentsOfFile: scratch.path("native/api.yaml"), encoding: .utf8)) ?? ""
        #expect(yaml.contains("- name: user\n"))
        #expect(yaml.contains("bodyFile: bodies/me.json"))
        #expect(try OrreryProcess.run(["validate", "--stubs", scratch.path("native")]).status == 0)

        let orrery = try OrreryProcess(["serve", "--port", "0", "--stubs", scratch.path("native"), "--offline"])
        let base = try orrery.waitUntilListening()
        #expect(try Curl.run(["\(base)/users/7?q=x"]) == #"{"id": "7", "q": "x"}"#)
        #expect(try Curl.run(["\(base)/users/1"]) == #"{"me": true}"#)
        #expect(try Curl.run(["-X", "POST", "-d", #"{"user": "ada"}"#, "\(base)/login"]) == #"{"token":"t-1"}"#)
        #expect(try Curl.run(["\(base)/big"]) == large)
        #expect(orrery.stop() == 0)
    }

    @Test("export wiremock writes a stubs folder, or a running daemon's stubs, as a WireMock root that answers alike")
    func exportRoot() throws {
        let scratch = try Scratch([
            "stubs/api.yaml": """
                - name: token
                  request: { method: POST, path: /token, body: { json: { user: ada } } }
                  response: { status: 201, json: { token: t-1 } }
                - name: by host
                  request: { host: example.com, path: /h }
                  response: { status: 200 }
                """,
        ])
        let exported = try OrreryProcess.run(["export", "wiremock", "--stubs", scratch.path("stubs"), "--out", scratch.path("wm")])
        #expect(exported.status == 0, "\(exported.errors)")
        #expect(exported.output.contains("Exported 1 of 2 stub(s)"))
        #expect(exported.errors.contains("orrery: not exported: by host"))
        let mapping = (try? String(contentsOfFile: scratch.path("wm/mappings/token.json"), encoding: .utf8)) ?? ""
        #expect(mapping.contains(#""equalToJson": {"#))

        let orrery = try OrreryProcess(["serve", "--port", "0", "--stubs", scratch.path("stubs"), "--offline"])
        let base = try orrery.waitUntilListening()
        let fromDaemon = try OrreryProcess.run(["export", "wiremock", "--url", base, "--out", scratch.path("wm2")])
        #expect(fromDaemon.status == 0, "\(fromDaemon.errors)")
        #expect(fromDaemon.output.contains("Exported 1 of 2 stub(s)"))
        #expect(orrery.stop() == 0)

        try scratch.write("empty/.keep", "")
        let served = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("empty"), "--wiremock-root", scratch.path("wm2"), "--offline",
        ])
        let servedBase = try served.waitUntilListening()
        #expect(try Curl.run(["-X", "POST", "-d", #"{"user": "ada"}"#, "-w", " %{http_code}", "\(servedBase)/token"]) == #"{"token":"t-1"} 201"#)
        #expect(served.stop() == 0)
    }
}

@Suite("WireMock itself, side by side")
struct WireMockComparisonTests {
    @Test("Corpus mappings answer as WireMock's own standalone jar answers them")
    func corpusSubset() throws {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-compare-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: report) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", OrreryProcess.packageRoot.appendingPathComponent("scripts/wiremock-compare.py").path,
            "--orrery", OrreryProcess.binary.path, "--json", report.path,
            "--only", "ministryofjustice__hmpps-tier-ui", "--only", "fdrolshagen__jetter", "--only", "DEFRA__",
            "--only", "wiremock-spring-boot_src_test_resources_response-templating", "--only", "orrery__handlebars",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        let data = (try? Data(contentsOf: report)) ?? Data()
        let counts = ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["counts"] as? [String: Int] ?? [:]
        #expect(counts["differs"] == nil, "\(text)")
        #expect((counts["same"] ?? 0) >= 72, "\(text)")
    }
}
