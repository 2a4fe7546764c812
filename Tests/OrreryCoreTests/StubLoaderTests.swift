import Foundation
import Testing
@testable import OrreryCore

@Suite("StubLoader")
struct StubLoaderTests {
    @Test("Stub files in nested folders are all loaded, in any of the three syntaxes")
    func nestedFolders() throws {
        let loaded = try loadStubFolder([
            "a.json": stubJSON(name: "a"),
            "api/b.yaml": "name: b\nresponse: {}",
            "api/v1/deep/c.yml": "name: c\nresponse: {}",
        ])
        #expect(loaded.messages == [])
        #expect(loaded.names == ["a", "b", "c"])
    }

    @Test("Only .json, .yaml and .yml files are stub files")
    func extensions() throws {
        try withStubFiles([
            "stubs/a.json": stubJSON(name: "a"),
            "stubs/b.yaml": "name: b\nresponse: {}",
            "stubs/c.yml": "name: c\nresponse: {}",
            "stubs/D.JSON": stubJSON(name: "d"),
            "stubs/notes.txt": "not a stub",
            "stubs/README.md": "# not a stub",
            "stubs/e.json5": "{",
            "stubs/yaml": "not: a stub",
        ]) { folder in
            let files = try StubLoader(source: folder.source()).stubFiles()
            #expect(files == ["D.JSON", "a.json", "b.yaml", "c.yml"])
        }
    }

    @Test("Files under a bodies/ folder at any depth are never read as stubs")
    func bodiesFolders() throws {
        let loaded = try loadStubFolder([
            "a.json": stubJSON(name: "a"),
            "bodies/broken.json": "{ not json",
            "api/bodies/users.json": #"[{"id": 1}]"#,
            "api/v1/bodies/more/deep.yaml": "- not: a stub",
            "api/b.json": stubJSON(name: "b"),
        ])
        #expect(loaded.messages == [])
        #expect(loaded.names == ["a", "b"])
    }

    @Test("A folder merely containing 'bodies' in its name is read")
    func bodiesLikeNames() throws {
        let loaded = try loadStubFolder([
            "bodies-v2/a.json": stubJSON(name: "a"),
            "nobodies/b.json": stubJSON(name: "b"),
        ])
        #expect(loaded.names == ["a", "b"])
    }

    @Test("Temporary and hidden files and folders are skipped")
    func temporaryFiles() throws {
        let loaded = try loadStubFolder([
            "a.json": stubJSON(name: "a"),
            ".a.json": "{ broken",
            "a.json.tmp": "{ broken",
            "a.json~": "{ broken",
            ".git/config.json": "{ broken",
            "api/.#b.yaml": "broken: [",
        ])
        #expect(loaded.messages == [])
        #expect(loaded.names == ["a"])
    }

    @Test("isTemporary", arguments: [
        (".x.json", true), ("x.json.tmp", true), ("x.json~", true), ("x.json", false), ("tmp.json", false),
    ])
    func isTemporary(name: String, expected: Bool) {
        #expect(StubLoader.isTemporary(name) == expected)
    }

    @Test("Files load in order of their relative path, so ties break the same way every time")
    func sortedByRelativePath() throws {
        try withStubFiles([
            "stubs/b.json": stubJSON(name: "b"),
            "stubs/a/z.json": stubJSON(name: "a/z"),
            "stubs/a.json": stubJSON(name: "a"),
            "stubs/a/b/c.yaml": "name: a/b/c\nresponse: {}",
            "stubs/A.json": stubJSON(name: "A"),
        ]) { folder in
            let loaded = folder.loadStubs()
            #expect(loaded.messages == [])
            #expect(loaded.names == ["A", "a", "a/b/c", "a/z", "b"])
            let files = try StubLoader(source: folder.source()).stubFiles()
            #expect(files == ["A.json", "a.json", "a/b/c.yaml", "a/z.json", "b.json"])
        }
    }

    @Test("Stubs keep their order within a file")
    func orderWithinFile() throws {
        let loaded = try loadStubFolder([
            "list.yaml": """
                - { name: one, response: {} }
                - { name: two, response: {} }
                - { name: three, response: {} }
                """
        ])
        #expect(loaded.names == ["one", "two", "three"])
    }

    @Test("Errors from every broken file are reported at once, each with its file and line")
    func errorsFromSeveralFiles() throws {
        let loaded = try loadStubFolder([
            "a.json": stubJSON(name: "fine"),
            "b.json": """
                {
                  "request": { "path": "/b" }
                  "response": {}
                }
                """,
            "c/d.yaml": """
                request:
                  path: /d
                response:
                  status: Code404NotFund
                """,
            "e.yml": """
                request: { path: /e }
                respons: {}
                """,
        ])
        #expect(loaded.stubs.isEmpty)
        #expect(
            loaded.messages == [
                "b.json:3: expected ',' or '}' after the value of 'request'",
                "c/d.yaml:4: unknown status 'Code404NotFund'; did you mean 'Code404NotFound'?",
                "e.yml:2: unknown key 'respons' in a stub; did you mean 'response'?",
                "e.yml:1: the stub has no 'response'",
            ])
    }

    @Test("A YAML file that is not UTF-8 is an error")
    func notUTF8() throws {
        try withStubFiles { folder in
            folder.write("stubs/bad.yaml", bytes: [0x6E, 0x61, 0x6D, 0x65, 0x3A, 0x20, 0xFF, 0xFE])
            let loaded = folder.loadStubs()
            #expect(loaded.messages.count == 1)
            #expect(loaded.messages.first?.hasPrefix("bad.yaml") == true)
        }
    }

    @Test("Error file names start with the stubs folder as the user named it", arguments: ["stubs", "stubs/"])
    func errorDisplayPath(root: String) throws {
        let loaded = try withStubFiles(["stubs/api/bad.json": "[1]"]) { folder in folder.loadStubs(root: root) }
        #expect(loaded.errors.map(\.file) == ["stubs/api/bad.json"])
        #expect(loaded.errors.map(\.line) == [1])
    }

    @Test("A stub file the source cannot read is an error naming it, with the source's reason")
    func unreadableFile() {
        struct Unreadable: StubSource {
            let root = "stubs"
            func files(skippingFolders skipFolder: (String) -> Bool) throws(SourceErrors) -> [String] { ["a.yaml"] }
            func contents(of path: String) throws(StubSourceFailure) -> [UInt8] {
                throw .unreadable(reason: "permission denied")
            }
            func bodyFile(_ reference: String, from folder: String, maximumBytes: Int) throws(StubSourceFailure) -> [UInt8] { [] }
        }
        do throws(SourceErrors) {
            _ = try StubLoader(source: Unreadable()).load()
            Issue.record("an unreadable file loaded")
        } catch {
            #expect(error.errors.map(\.description) == ["stubs/a.yaml: cannot be read: permission denied"])
        }
    }

    // MARK: - bodyFile

    @Test("bodyFile is relative to the stub file, and may reach anywhere inside the stubs folder")
    func bodyFileRelative() throws {
        let loaded = try loadStubFolder([
            "api/users.yaml": """
                - name: list
                  response: { bodyFile: bodies/users.json }
                - name: shared
                  response: { bodyFile: ../shared/bodies/hello.txt }
                """,
            "api/bodies/users.json": #"[{"id": 1}]"#,
            "shared/bodies/hello.txt": "hello\n",
        ])
        #expect(loaded.messages == [])
        try #require(loaded.stubs.count == 2)
        #expect(String(decoding: loaded.stubs[0].response.body, as: UTF8.self) == #"[{"id": 1}]"#)
        #expect(loaded.stubs[0].response.headers["Content-Type"] == "application/json")
        #expect(String(decoding: loaded.stubs[1].response.body, as: UTF8.self) == "hello\n")
        #expect(loaded.stubs[1].response.headers["Content-Type"] == "text/plain; charset=utf-8")
    }

    @Test("A bodyFile that does not exist is an error with file and line")
    func bodyFileMissing() throws {
        let loaded = try loadStubFolder([
            "a.json": """
                {
                  "response": {
                    "bodyFile": "bodies/missing.json"
                  }
                }
                """
        ])
        #expect(loaded.messages == ["a.json:3: bodyFile 'bodies/missing.json' cannot be read"])
    }

    @Test("A bodyFile outside the stubs folder is refused", arguments: ["../secret.txt", "bodies/../../secret.txt"])
    func bodyFileEscaping(relative: String) throws {
        let loaded = try loadStubFolder(
            [
                "a.yaml": """
                    request: { path: /a }
                    response:
                      status: 200
                      bodyFile: \(relative)
                    """
            ],
            outside: ["secret.txt": "top secret"])
        #expect(loaded.stubs.isEmpty)
        #expect(loaded.messages == ["a.yaml:4: bodyFile '\(relative)' is outside the stubs folder"])
    }

    @Test("A folder whose name starts like the stubs folder's is still outside it")
    func bodyFileSiblingPrefix() throws {
        let loaded = try loadStubFolder(
            ["a.yaml": "response:\n  bodyFile: ../stubs-other/x.txt"],
            outside: ["stubs-other/x.txt": "not yours"])
        #expect(loaded.messages == ["a.yaml:2: bodyFile '../stubs-other/x.txt' is outside the stubs folder"])
    }

    // MARK: - ids

    @Test("Stub ids are stable across loads and distinct between stubs")
    func stableIDs() throws {
        try withStubFiles([
            "stubs/a.json": stubJSON(name: "a"),
            "stubs/api/b.yaml": "- { name: b1, response: {} }\n- { name: b2, response: {} }",
        ]) { folder in
            let first = folder.loadStubs()
            let second = folder.loadStubs()
            #expect(first.messages == [])
            #expect(first.stubs.count == 3)
            #expect(first.stubs.map(\.id) == second.stubs.map(\.id))
            #expect(Set(first.stubs.map(\.id)).count == 3)
            #expect(first.stubs.map(\.id) == [
                StubID.make(file: "a.json", index: 0), StubID.make(file: "api/b.yaml", index: 0),
                StubID.make(file: "api/b.yaml", index: 1),
            ])
        }
    }

    @Test("Stub ids look like UUIDs and depend on file and position")
    func idShape() {
        let id = StubID.make(file: "a.json", index: 0)
        #expect(id.count == 36)
        #expect(id.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(id == StubID.make(file: "a.json", index: 0))
        #expect(id != StubID.make(file: "a.json", index: 1))
        #expect(id != StubID.make(file: "b.json", index: 0))
        #expect(StubID.random() != StubID.random())
    }

    @Test("A stub's location is its file and line")
    func locations() throws {
        let loaded = try loadStubFolder(["api/list.yaml": "- { name: one, response: {} }\n\n- { name: two, response: {} }"])
        #expect(loaded.stubs.map { $0.location?.line } == [1, 3])
        #expect(loaded.stubs.map { $0.location?.file } == Array(repeating: loaded.root + "/api/list.yaml", count: 2))
    }
}
