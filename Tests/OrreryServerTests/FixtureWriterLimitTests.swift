import Foundation
import Testing

@testable import OrreryCore
@testable import OrreryServer

/// A writer keeps only the route files written last; one it let go of and meets again is read back from disk, and
/// the recording stays what it would have been: the same answer again changes nothing, and in mode `all` what this
/// writer wrote is kept.
@Suite("Fixture writer: a bounded number of open files")
struct FixtureWriterLimitTests {
    static func exchange(_ target: String, body: String) -> RecordedExchange {
        RecordedExchange(
            request: HTTPRequest(method: "GET", target: target, headers: HTTPHeaders(), body: []), host: nil,
            folder: "api.example.com", matchHeaders: [], status: 200,
            responseHeaders: HTTPHeaders([("Content-Type", "text/plain")]), decodedBody: Array(body.utf8),
            encoding: nil)
    }

    static func folder() throws -> String {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("orrery-writer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes one exchange to each of more routes than stay open, so that the first is let go of.
    static func writeOthers(_ writer: inout FixtureWriter) throws {
        for number in 1...(FixtureWriter.openFileLimit + 10) {
            try writer.write(exchange("/other/\(number)", body: "other \(number)"))
        }
    }

    @Test("A route let go of and recorded again with the same answer: nothing written, the file as it was")
    func sameAnswerAfterLetGo() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var writer = FixtureWriter(folder: folder, isReplacing: false, origin: "a recording")
        let path = try #require(try writer.write(Self.exchange("/first?page=1", body: "first")))
        let written = try String(contentsOfFile: folder + "/" + path, encoding: .utf8)
        try Self.writeOthers(&writer)
        #expect(try writer.write(Self.exchange("/first?page=1", body: "first")) == nil)
        #expect(try String(contentsOfFile: folder + "/" + path, encoding: .utf8) == written)
        // A new request of the route is appended after what was there.
        #expect(try writer.write(Self.exchange("/first?page=2", body: "second")) == path)
        let appended = try String(contentsOfFile: folder + "/" + path, encoding: .utf8)
        #expect(appended.hasPrefix(written))
        #expect(appended.contains("page=2"))
    }

    @Test("Mode all: a route let go of and recorded again keeps what this writer wrote for it")
    func replacingAfterLetGo() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var writer = FixtureWriter(folder: folder, isReplacing: true, origin: "a recording")
        let path = try #require(try writer.write(Self.exchange("/first?page=1", body: "first")))
        try Self.writeOthers(&writer)
        #expect(try writer.write(Self.exchange("/first?page=2", body: "second")) == path)
        let text = try String(contentsOfFile: folder + "/" + path, encoding: .utf8)
        #expect(text.contains("page=1") && text.contains("page=2"), "\(text)")
    }
}
