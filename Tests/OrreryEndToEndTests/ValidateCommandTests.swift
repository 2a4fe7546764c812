import Foundation
import Testing

@Suite("orrery validate and --help")
struct ValidateCommandTests {
    @Test("the repository's examples are valid")
    func examplesAreValid() throws {
        let result = try OrreryProcess.run(["validate"])
        #expect(result.status == 0)
        #expect(result.output.contains("OK: 9 stub(s) in 4 file(s)"))
    }

    @Test("every problem is reported as FILE:LINE: message, JSON and YAML alike, and the exit status is 1")
    func reportsProblems() throws {
        let scratch = try Scratch([
            "stubs/one.json": "{\n  \"request\": {\n    \"method\": \"GET\",\n    \"urlPatern\": \"^/x\"\n  },\n  \"response\": {\"status\": 200}\n}",
            "stubs/two.yml": "- request: { path: /a }\n  response:\n    json: {}\n    body: text\n",
            "stubs/three.yaml": "request:\n  path: [oops\n",
            "stubs/bodies/ignored.json": "not a stub at all",
            "stubs/.partial.json": "{",
            "config/hosts.json": "{\"configurations\": [\n {\"canonical_host\": \"a.example.com\",\n  \"hosts\": [{\"key\": \"PROD\"}]}]}",
        ])
        let result = try OrreryProcess.run(["validate", "--stubs", scratch.path("stubs"), "--config", scratch.path("config")])
        #expect(result.status == 1)
        #expect(result.errors.contains("one.json:4: unknown key 'urlPatern' in 'request'; did you mean 'urlPattern'?"))
        #expect(result.errors.contains("two.yml:4: use only one of 'json', 'body'"))
        #expect(result.errors.contains("three.yaml:3: YAML"))
        #expect(result.errors.contains("hosts.json:3: 'host' is required"))
        #expect(!result.errors.contains("ignored.json"))
        #expect(!result.errors.contains("partial"))
    }

    @Test("--help explains every option of serve")
    func help() throws {
        let result = try OrreryProcess.run(["serve", "--help"])
        #expect(result.status == 0)
        for option in ["--host", "--port", "--stubs", "--config", "--threads", "--log-level", "--watch-interval", "--admin-token"] {
            #expect(result.output.contains(option), "missing \(option)")
        }
        let top = try OrreryProcess.run(["--help"])
        #expect(top.output.contains("serve"))
        #expect(top.output.contains("validate"))
    }
}

@Suite("Stub files guide")
struct StubFilesGuideTests {
    @Test("the stub example in docs/stub-files.md is the example file the daemon serves")
    func stubExampleIsServed() throws {
        let guide = try String(
            contentsOf: OrreryProcess.packageRoot.appendingPathComponent("docs/stub-files.md"), encoding: .utf8)
        let example = try String(
            contentsOf: OrreryProcess.packageRoot.appendingPathComponent("stubs/auth.yaml"), encoding: .utf8)
        #expect(guide.contains("```yaml\n" + example + "```"))
    }
}
