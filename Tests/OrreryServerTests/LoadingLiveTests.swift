import Foundation
import Logging
import OrreryCore
import OrreryEvent
import OrreryServer
import Testing

@Suite("Starting on bad stub files")
struct LoadingLiveTests {
    @Test("a bodyFile outside the stubs folder stops the start with file and line")
    func bodyFileEscape() throws {
        let error = try Self.startupError(files: [
            "secret.txt": "password",
            "stubs/leak.yaml": "request:\n  path: /leak\nresponse:\n  bodyFile: ../secret.txt\n",
        ])
        #expect(error?.description.contains("leak.yaml:4: bodyFile '../secret.txt' is outside the stubs folder") == true)
    }

    @Test("broken files are all reported, JSON and YAML, each with its line")
    func brokenFiles() throws {
        let error = try Self.startupError(files: [
            "stubs/a.json": "{\n  \"request\": {\"path\": \"/a\"},\n  \"response\": {\"status\": 200,}\n}",
            "stubs/b.yaml": "request:\n  path: /b\n  headers:\n    X-A: { mathces: x }\nresponse: {}\n",
        ])
        let lines = error?.errors.map(\.description) ?? []
        #expect(lines.contains { $0.hasSuffix("a.json:3: expected a quoted key") })
        #expect(lines.contains { $0.hasSuffix("b.yaml:4: unknown matcher 'mathces'; did you mean 'matches'?") })
    }

    /// Writes `files` to a temporary folder and expects a daemon on them to refuse to start.
    static func startupError(files: [String: String]) throws -> SourceErrors? {
        let folder = try TemporaryFolder.make(files: files)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = DaemonConfiguration()
        configuration.http.port = 0
        configuration.stubsFolder = folder.appendingPathComponent("stubs").path
        configuration.configFolder = folder.appendingPathComponent("config").path
        return #expect(throws: SourceErrors.self) {
            _ = try Daemon(configuration: configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        }
    }
}
