import Foundation
import Testing

@testable import OrreryCore

@Suite("MemoryStubSource")
struct MemoryStubSourceTests {
    static let source = MemoryStubSource(texts: [
        "a.yaml": "a", "api/b.yaml": "b", "api/bodies/c.json": "c", ".git/d.yaml": "d", "../secret.txt": "s",
    ])

    @Test("Lists the files under the root, not those outside it or in the folders it is told to skip")
    func listing() throws {
        let all = try Self.source.files(skippingFolders: { _ in false }).sorted()
        #expect(all == [".git/d.yaml", "a.yaml", "api/b.yaml", "api/bodies/c.json"])
        let some = try Self.source.files(skippingFolders: { $0 == "api/bodies" || $0.hasPrefix(".") }).sorted()
        #expect(some == ["a.yaml", "api/b.yaml"])
    }

    @Test(
        "Body files resolve against the stub file's folder and stay inside the root",
        arguments: [
            ("api", "bodies/c.json", "c"), ("api", "../a.yaml", "a"), ("", "./api/./b.yaml", "b"),
            ("api", "bodies/../../a.yaml", "a"),
        ])
    func bodyFiles(folder: String, reference: String, text: String) throws {
        #expect(try Self.source.bodyFile(reference, from: folder, maximumBytes: .max) == Array(text.utf8))
    }

    @Test(
        "A body file outside the root is refused, however it is written",
        arguments: [
            ("", "../secret.txt"), ("api", "../../secret.txt"), ("api", "bodies/../../../secret.txt"),
            ("", "/etc/passwd"),
        ])
    func outside(folder: String, reference: String) {
        #expect(throws: StubSourceFailure.outsideRoot) { try Self.source.bodyFile(reference, from: folder, maximumBytes: .max) }
    }

    @Test("A missing file is unreadable, with the reason a file system gives")
    func missing() {
        #expect(throws: StubSourceFailure.unreadable(reason: "no such file or directory")) {
            try Self.source.bodyFile("nothing.json", from: "api", maximumBytes: .max)
        }
    }
}

@Suite("ByteSearch")
struct ByteSearchTests {
    @Test("Finds the first byte as a plain scan does, at every length, offset and position")
    func sameAsAScan() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<40 {
            for _ in 0..<20 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...3, using: &generator) }
                bytes.withUnsafeBufferPointer { buffer in
                    for start in 0...length {
                        for byte: UInt8 in [0, 1, 0x0A, 0x80] {
                            let expected = bytes[start...].firstIndex(of: byte)
                            #expect(ByteSearch.firstIndex(of: byte, in: buffer, from: start) == expected)
                        }
                    }
                }
            }
        }
    }
}

@Suite("OrreryCore stays pure")
struct CorePurityTests {
    static let core = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/OrreryCore")

    /// Every line of the core's sources, with its file.
    static func lines() throws -> [(file: String, line: String)] {
        let files = FileManager.default.enumerator(atPath: core.path)?.compactMap { $0 as? String } ?? []
        return try files.filter { $0.hasSuffix(".swift") }.flatMap { file in
            try String(contentsOf: core.appendingPathComponent(file), encoding: .utf8)
                .split(separator: "\n").map { (file, String($0)) }
        }
    }

    @Test("The core imports no C module and none of the layers above it")
    func imports() throws {
        let lines = try Self.lines()
        #expect(!lines.isEmpty)
        let forbidden = ["Glibc", "Darwin", "Musl", "CLibevent", "CZlib", "OrreryEvent", "OrreryServer", "Logging"]
        let found = lines.filter { entry in
            let words = entry.line.split(separator: " ")
            guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { return false }
            return forbidden.contains(String(words[index + 1]))
        }
        #expect(found.isEmpty, "\(found.map { "\($0.file): \($0.line)" })")
    }

    @Test("The core reads no files: stubs, body files and the host map come through a source or as bytes")
    func noFiles() throws {
        let forbidden = [
            "FileManager", "FileHandle", "Data(contentsOf", "String(contentsOf", "contentsOfFile", "fopen(",
        ]
        let found = try Self.lines().filter { entry in forbidden.contains { entry.line.contains($0) } }
        #expect(found.isEmpty, "\(found.map { "\($0.file): \($0.line)" })")
    }
}

@Suite("ByteSearch: two bytes at once")
struct ByteSearchEitherTests {
    @Test("Says whether either byte is there, as a plain scan does, at every length")
    func sameAsAScan() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<40 {
            for _ in 0..<20 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...15, using: &generator) }
                bytes.withUnsafeBufferPointer { buffer in
                    #expect(ByteSearch.contains(0x0D, or: 0x00, in: buffer) == bytes.contains { $0 == 0x0D || $0 == 0 })
                }
            }
        }
    }
}
