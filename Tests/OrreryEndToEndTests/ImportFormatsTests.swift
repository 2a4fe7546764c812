import Foundation
import Testing

@Suite("orrery import hoverfly, postman, mockserver and export hoverfly")
struct ImportFormatsTests {
    /// A v5 simulation with one of each thing the importer converts.
    static let simulation = #"""
        {
          "data": {
            "pairs": [
              {
                "request": {
                  "method": [{"matcher": "exact", "value": "GET"}],
                  "destination": [{"matcher": "exact", "value": "shop.example.com"}],
                  "path": [{"matcher": "glob", "value": "/items/*"}],
                  "query": {"page": [{"matcher": "regex", "value": "^[0-9]+$"}]}
                },
                "response": {
                  "status": 200, "body": "{\"item\": \"{{ Request.Path.[1] }}\", \"page\": \"{{ Request.QueryParam.page }}\"}",
                  "templated": true, "headers": {"Content-Type": ["application/json"]}
                }
              },
              {
                "request": {
                  "method": [{"matcher": "exact", "value": "POST"}],
                  "path": [{"matcher": "exact", "value": "/orders"}],
                  "body": [{"matcher": "jsonPartial", "value": "{\"sku\": \"A-1\"}"}]
                },
                "response": {"status": 201, "body": "created", "fixedDelay": 10}
              },
              {
                "request": {
                  "method": [{"matcher": "exact", "value": "POST"}],
                  "path": [{"matcher": "exact", "value": "/soap"}],
                  "body": [{"matcher": "xpath", "value": "//order[@id='7']/item"}]
                },
                "response": {"status": 200, "body": "<ok/>"}
              },
              {
                "request": {"path": [{"matcher": "exact", "value": "/basket"}]},
                "response": {"status": 200, "body": "empty"}
              },
              {
                "request": {"path": [{"matcher": "exact", "value": "/basket"}], "requiresState": {"eggs": "present"}},
                "response": {"status": 200, "body": "eggs"}
              },
              {
                "request": {"path": [{"matcher": "exact", "value": "/add-eggs"}]},
                "response": {"status": 200, "body": "added", "transitionsState": {"eggs": "present"}}
              },
              {
                "request": {"path": [{"matcher": "exact", "value": "/add-eggs"}]},
                "response": {"status": 200, "body": "never: the same request as the pair before"}
              },
              {
                "request": {"path": [{"matcher": "exact", "value": "/state"}], "requiresState": {"a": "1", "b": "2"}},
                "response": {"status": 200, "body": "two keys"}
              },
              {
                "request": {"path": [{"matcher": "exact", "value": "/scheme"}]},
                "response": {"status": 200, "body": "{{ Request.Scheme }}", "templated": true}
              }
            ]
          },
          "meta": {"schemaVersion": "v5"}
        }
        """#

    func serve(_ folder: String, _ scratch: Scratch) throws -> (OrreryProcess, String) {
        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", folder, "--config", scratch.path("none"), "--offline",
        ])
        return (orrery, try orrery.waitUntilListening())
    }

    /// The answers the simulation's pairs must get, from a daemon serving `folder`.
    func checkAnswers(_ folder: String, _ scratch: Scratch) throws {
        let (orrery, base) = try serve(folder, scratch)
        let shop = ["-H", "Host: shop.example.com"]
        #expect(try Curl.run(shop + ["\(base)/items/42?page=3"]) == #"{"item": "42", "page": "3"}"#)
        #expect(try Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/items/42?page=3"]) == "404")
        #expect(try Curl.run(shop + ["-o", "/dev/null", "-w", "%{http_code}", "\(base)/items/42?page=x"]) == "404")
        let order = try Curl.run(["-X", "POST", "-d", #"{"sku": "A-1", "qty": 2}"#, "-w", " %{http_code}", "\(base)/orders"])
        #expect(order == "created 201")
        let soap = "<envelope><order id='7'><item>x</item></order></envelope>"
        #expect(try Curl.run(["-X", "POST", "-d", soap, "\(base)/soap"]) == "<ok/>")
        #expect(try Curl.run(["-X", "POST", "-d", "<order id='8'><item/></order>", "-o", "/dev/null", "-w", "%{http_code}", "\(base)/soap"]) == "404")
        #expect(try Curl.run(["\(base)/basket"]) == "empty")
        #expect(try Curl.run(["\(base)/add-eggs"]) == "added")
        #expect(try Curl.run(["\(base)/basket"]) == "eggs")
        #expect(orrery.stop() == 0)
    }

    @Test("a Hoverfly simulation answers as Hoverfly does; what cannot be converted is named with its place")
    func hoverfly() throws {
        let scratch = try Scratch(["sim.json": Self.simulation])
        let imported = try OrreryProcess.run(["import", "hoverfly", scratch.path("sim.json"), "--out", scratch.path("stubs/shop")])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("Imported 6 of 9 pairs into 1 file under"))
        #expect(imported.errors.contains("pair 7 (data.pairs[6]): the same request as pair 6, which Hoverfly answers first; skipped"))
        #expect(imported.errors.contains("pair 8 (data.pairs[7]): its state spans several keys (a, b)"))
        #expect(imported.errors.contains("pair 9 (data.pairs[8]): the template tag {{Request.Scheme}} cannot be converted"))
        let yaml = try String(contentsOfFile: scratch.path("stubs/shop/sim.yaml"), encoding: .utf8)
        #expect(yaml.contains("template: true"))
        #expect(yaml.contains(#"{"item": "{{request.pathSegments.1}}", "page": "{{request.query.page}}"}"#))
        #expect(yaml.contains("scenario: eggs"))
        try checkAnswers(scratch.path("stubs"), scratch)
    }

    @Test("export hoverfly, then import again: the same answers, from a folder and from a running daemon")
    func roundTrip() throws {
        let scratch = try Scratch(["sim.json": Self.simulation])
        _ = try OrreryProcess.run(["import", "hoverfly", scratch.path("sim.json"), "--out", scratch.path("first")])
        let exported = try OrreryProcess.run(["export", "hoverfly", "--stubs", scratch.path("first"), "--out", scratch.path("out.json")])
        #expect(exported.status == 0, "\(exported.errors)")
        #expect(exported.output.contains("Exported 6 of 6 stubs"))
        let again = try OrreryProcess.run(["import", "hoverfly", scratch.path("out.json"), "--out", scratch.path("second")])
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.output.contains("Imported 6 of 6 pairs"))
        try checkAnswers(scratch.path("second"), scratch)

        // The same from the daemon's admin API.
        let (orrery, base) = try serve(scratch.path("first"), scratch)
        let live = try OrreryProcess.run(["export", "hoverfly", "--url", base, "--out", scratch.path("live.json")])
        #expect(live.status == 0, "\(live.errors)")
        #expect(orrery.stop() == 0)
        let third = try OrreryProcess.run(["import", "hoverfly", scratch.path("live.json"), "--out", scratch.path("third")])
        #expect(third.output.contains("Imported 6 of 6 pairs"), "\(third.errors)")
        try checkAnswers(scratch.path("third"), scratch)
    }

    @Test("a Postman collection: each example answers its request; a second example of it by x-mock-response-name")
    func postman() throws {
        let collection = #"""
            {
              "info": {"name": "Shop API", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
              "variable": [{"key": "baseUrl", "value": "https://api.example.com/v1"}],
              "item": [
                {"name": "Users", "item": [
                  {"name": "Get user", "request": {"method": "GET", "url": {"raw": "{{baseUrl}}/users/:id", "host": ["{{baseUrl}}"], "path": ["users", ":id"]}},
                   "response": [
                     {"name": "found", "originalRequest": {"method": "GET", "url": {"raw": "{{baseUrl}}/users/:id"}}, "code": 200,
                      "header": [{"key": "Content-Type", "value": "application/json"}], "body": "{\"id\": 1}"},
                     {"name": "gone", "originalRequest": {"method": "GET", "url": {"raw": "{{baseUrl}}/users/:id"}}, "code": 410, "body": "gone"}
                   ]}
                ]},
                {"name": "Search", "request": {"method": "GET", "url": "{{host}}/search?q=moon"},
                 "response": [{"name": "results", "originalRequest": {"method": "GET", "url": "{{host}}/search?q=moon"}, "code": 200, "body": "1 result"}]}
              ]
            }
            """#
        let scratch = try Scratch(["shop.postman_collection.json": collection])
        let imported = try OrreryProcess.run(["import", "postman", scratch.path("shop.postman_collection.json"), "--out", scratch.path("stubs")])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("Imported 3 of 3 examples into 2 files"))
        #expect(imported.errors.contains("answered when the request carries x-mock-response-name: gone"))
        #expect(FileManager.default.fileExists(atPath: scratch.path("stubs/shop-api/users.yaml")))
        let (orrery, base) = try serve(scratch.path("stubs"), scratch)
        #expect(try Curl.run(["\(base)/v1/users/7"]) == #"{"id": 1}"#)
        #expect(try Curl.run(["-H", "x-mock-response-name: gone", "-w", " %{http_code}", "\(base)/v1/users/7"]) == "gone 410")
        #expect(try Curl.run(["\(base)/search?q=moon"]) == "1 result")
        #expect(orrery.stop() == 0)
    }

    @Test("MockServer expectations: regex paths, lenient JSON bodies, times, httpError and priority")
    func mockserver() throws {
        let expectations = #"""
            [
              {"httpRequest": {"method": "GET", "path": "/v1/gateways/[0-9]+"}, "httpResponse": {"statusCode": 200, "body": {"id": 1}}},
              {"httpRequest": {"method": "POST", "path": "/login", "body": {"user": "ada"}},
               "httpResponse": {"statusCode": 200, "body": "welcome", "delay": {"timeUnit": "MILLISECONDS", "value": 5}}},
              {"httpRequest": {"path": "/once"}, "httpResponse": {"body": "first"}, "times": {"remainingTimes": 2, "unlimited": false}},
              {"httpRequest": {"path": "/once"}, "httpResponse": {"body": "afterwards"}},
              {"httpRequest": {"path": "/broken"}, "httpError": {"dropConnection": true}},
              {"httpRequest": {"path": "/p"}, "httpResponse": {"body": "low"}},
              {"httpRequest": {"path": "/p"}, "httpResponse": {"body": "high"}, "priority": 10},
              {"httpRequest": {"path": "/forward"}, "httpForward": {"host": "example.com", "port": 80}}
            ]
            """#
        let scratch = try Scratch(["initializerJson.json": expectations])
        let imported = try OrreryProcess.run(["import", "mockserver", scratch.path("initializerJson.json"), "--out", scratch.path("stubs")])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("Imported 7 of 8 expectations"))
        #expect(imported.errors.contains("expectation 8: its action httpForward has no equivalent in a stub file; skipped"))
        let (orrery, base) = try serve(scratch.path("stubs"), scratch)
        #expect(try Curl.run(["\(base)/v1/gateways/12"]) == #"{"id":1}"#)
        #expect(try Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/v1/gateways/x"]) == "404")
        #expect(try Curl.run(["-X", "POST", "-d", #"{"user": "ada", "extra": true}"#, "\(base)/login"]) == "welcome")
        #expect(try Curl.run(["\(base)/once"]) == "first")
        #expect(try Curl.run(["\(base)/once"]) == "first")
        #expect(try Curl.run(["\(base)/once"]) == "afterwards")
        #expect(try Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/broken"]) == "000")
        #expect(try Curl.run(["\(base)/p"]) == "high")
        #expect(orrery.stop() == 0)
    }

    @Test("corpora of real files: every imported entry the script can send answers as its source says")
    func corpora() throws {
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        script.arguments = ["python3", OrreryProcess.packageRoot.appendingPathComponent("scripts/import-corpus.py").path,
            "--orrery", OrreryProcess.binary.path]
        let output = Pipe()
        script.standardOutput = output
        try script.run()
        let table = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        script.waitUntilExit()
        #expect(script.terminationStatus == 0, "\(table)")
        for format in ["hoverfly", "postman", "mockserver"] { #expect(table.contains("### \(format): ")) }
        #expect(table.components(separatedBy: "| imported, answered otherwise | 0 (0%) |").count == 4, "\(table)")
    }

    @Test("a simulation of 100,000 pairs imports whole; the time and peak memory are printed")
    func large() throws {
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        script.arguments = ["python3", OrreryProcess.packageRoot.appendingPathComponent("scripts/import-corpus.py").path,
            "--orrery", OrreryProcess.binary.path, "--large", "100000"]
        let output = Pipe()
        script.standardOutput = output
        try script.run()
        let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        script.waitUntilExit()
        print(report)
        #expect(script.terminationStatus == 0)
        #expect(report.contains("Imported 100000 of 100000 pairs into 1 file"))
        #expect(report.contains("exit 0"))
    }

    @Test("bad input: another format, a truncated file, nothing importable; nothing half-written, files never clobbered")
    func badInput() throws {
        let scratch = try Scratch([
            "har.json": #"{"log": {"entries": []}}"#,
            "truncated.json": String(Self.simulation.prefix(700)),
            "nothing.json": #"{"data": {"pairs": [{"request": {"path": [{"matcher": "jwt", "value": "x"}]}, "response": {}}]}}"#,
            "sim.json": Self.simulation,
        ])
        let har = try OrreryProcess.run(["import", "hoverfly", scratch.path("har.json"), "--out", scratch.path("out")])
        #expect(har.status == 1)
        #expect(har.errors.contains("not a Hoverfly simulation: there is no data.pairs list (it looks like a HAR file: orrery import har)"))
        let postman = try OrreryProcess.run(["import", "postman", scratch.path("sim.json"), "--out", scratch.path("out")])
        #expect(postman.errors.contains("not a Postman collection"))
        let mockserver = try OrreryProcess.run(["import", "mockserver", scratch.path("sim.json"), "--out", scratch.path("out")])
        #expect(mockserver.errors.contains("not MockServer expectations"))
        let truncated = try OrreryProcess.run(["import", "hoverfly", scratch.path("truncated.json"), "--out", scratch.path("out")])
        #expect(truncated.status == 1)
        #expect(truncated.errors.contains("truncated.json:"), "\(truncated.errors)")
        #expect(truncated.errors.contains("not a Hoverfly simulation file"))
        let nothing = try OrreryProcess.run(["import", "hoverfly", scratch.path("nothing.json"), "--out", scratch.path("out")])
        #expect(nothing.status == 1)
        #expect(nothing.errors.contains("pair 1 (data.pairs[0]): a jwt matcher on the path has no equivalent; skipped"))
        #expect(nothing.errors.contains("nothing imported"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")))

        // An existing file of the same name is left alone unless --overwrite; nothing else is written either.
        try scratch.write("out/sim.yaml", "# mine\n")
        let clash = try OrreryProcess.run(["import", "hoverfly", scratch.path("sim.json"), "--out", scratch.path("out")])
        #expect(clash.status == 1)
        #expect(clash.errors.contains("already has sim.yaml (--overwrite replaces them)"))
        #expect(try String(contentsOfFile: scratch.path("out/sim.yaml"), encoding: .utf8) == "# mine\n")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
        let replaced = try OrreryProcess.run(["import", "hoverfly", scratch.path("sim.json"), "--out", scratch.path("out"), "--overwrite"])
        #expect(replaced.status == 0)
        #expect(try String(contentsOfFile: scratch.path("out/sim.yaml"), encoding: .utf8).contains("Imported from the Hoverfly simulation"))
    }
}
