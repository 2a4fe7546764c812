import Foundation
import Testing
@testable import OrreryCore

@Suite("Loading: bounds on what a stub file may cost")
struct LoadBoundsTests {
    /// A 100 KB text anchored once, and `count` aliases to it.
    static func aliasBomb(aliases count: Int) -> String {
        "big: &big " + String(repeating: "x", count: 100_000) + "\nmany:\n"
            + String(repeating: "  - *big\n", count: count)
    }

    @Test("Aliases that expand past 100 times the file's size fail at their line, before the bytes are made")
    func aliasBytes() {
        do {
            _ = try StubLoader.parse(Array(Self.aliasBomb(aliases: 10_000).utf8), isJSON: false)
            Issue.record("an alias bomb parsed")
        } catch {
            #expect(error.message.contains("aliases expand to more than"))
            #expect(error.line >= 2)
        }
    }

    @Test("A few aliases to a large text load: the bound is the file's size times 100, up to 64 MiB")
    func fewAliases() throws {
        let node = try StubLoader.parse(Array(Self.aliasBomb(aliases: 50).utf8), isJSON: false)
        guard case .array(let items) = node["many"]?.value else {
            Issue.record("no list")
            return
        }
        #expect(items.count == 50)
        #expect(YAMLSourceParser.maximumBytes(forFileOf: 1_000) == 100_000)
        #expect(YAMLSourceParser.maximumBytes(forFileOf: 10_000_000) == 64 * 1024 * 1024)
    }

    @Test("Statuses 100 to 199 are refused at load, 101 with a word on WebSocket stubs; 200 to 599 load")
    func informationalStatuses() {
        for status in ["100", "103", "Code102Processing"] {
            let errors = StubText.errors("request: { path: /a }\nresponse: { status: \(status) }\n", as: .yaml)
            #expect(errors.first?.message.contains("informational (1xx)") == true, "\(errors)")
            #expect(errors.first?.line == 2)
        }
        let switching = StubText.errors("request: { path: /a }\nresponse: { status: 101 }\n", as: .yaml)
        #expect(switching.first?.message.contains("WebSocket") == true)
        #expect((try? StubText.decodeOne("request: { path: /a }\nresponse: { status: 200 }\n"))?.response.status == 200)
    }

    @Test("A body file over the limit is refused at its file and line, without being read")
    func bodyFileCap() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-bounds-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("bodies"), withIntermediateDirectories: true)
        try Data(repeating: 0x61, count: 2_000).write(to: root.appendingPathComponent("bodies/big.txt"))
        try Data("- request: { path: /a }\n  response: { body: small }\n- request: { path: /big }\n  response: { bodyFile: bodies/big.txt }\n".utf8)
            .write(to: root.appendingPathComponent("big.yaml"))
        var loader = StubLoader(root: root.path)
        loader.maximumBodyFileBytes = 1_000
        do {
            _ = try loader.load()
            Issue.record("a body file over the limit loaded")
        } catch {
            let error = try #require(error.errors.first)
            #expect(error.line == 4)
            #expect(error.file.hasSuffix("big.yaml"))
            #expect(error.message.contains("2000 bytes, over --max-body-file (1000 bytes)"), "\(error.message)")
        }
        loader.maximumBodyFileBytes = 2_000
        #expect(try loader.load().count == 2)
    }

    @Test("A file name with a line break or a terminal escape prints as one line")
    func escapedNames() {
        let error = SourceError(file: "stubs/a.yaml\nstubs/ok.yaml:1: fine\u{1B}[2K", line: 3, message: "bad\rvalue")
        #expect(!error.description.contains("\n") && !error.description.contains("\r"))
        #expect(!error.description.contains("\u{1B}"))
        #expect(error.description == #"stubs/a.yaml\nstubs/ok.yaml:1: fine\u{1B}[2K:3: bad\rvalue"#)
        #expect(SourceError(file: "stubs/é.yaml", line: 1, message: "m").description == "stubs/é.yaml:1: m")
        #expect(EscapedText.escaped("a\u{202E}b") == #"a\u{202E}b"#)
    }

    @Test("Every template error of a body is reported, sorted by line, not only the first")
    func everyTemplateError() {
        let json = StubText.errors(
            """
            request: { path: /a }
            response:
              template: true
              json:
                b: "{{request.nope}}"
                a: [ "{{requst.path}}", "{{request.path}}" ]
                c: "{{params.id}} {{now}} {{uuid.x}}"
            """, as: .yaml)
        #expect(json.map(\.line) == [5, 6, 7, 7], "\(json)")
        #expect(json.allSatisfy { $0.message.hasPrefix("template: ") })
        let text = StubText.errors(
            """
            request: { path: /a }
            response:
              template: true
              body: |
                {{request.methd}}
                fine {{request.path}}
                {{#request.pathSegments}}{{.}}{{/request.pathSegments}} {{reqest.path}}
            """, as: .yaml)
        #expect(text.map(\.line) == [5, 7], "\(text)")
        let structural = StubText.errors(
            "request: { path: /a }\nresponse:\n  template: true\n  body: \"{{nope}} {{#request.path}}\"\n", as: .yaml)
        #expect(structural.count == 2, "\(structural)")
    }
}
