import Foundation
import OrreryCore
import Testing

@testable import OrreryServer

/// Whether `chmod 000` keeps this process out of a folder: not for root, nor for a process with
/// CAP_DAC_OVERRIDE, where these tests have nothing to test.
private let permissionsApply: Bool = {
    let path = NSTemporaryDirectory() + "orrery-permission-probe-\(UUID().uuidString)"
    guard (try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)) != nil else {
        return false
    }
    defer {
        chmod(path, 0o700)
        rmdir(path)
    }
    chmod(path, 0)
    return access(path, R_OK) != 0
}()

@Suite("Reloads that cannot read the stubs folder keep the running stubs")
struct ReloadAccessTests {
    static let files = [
        "stubs/a.yaml": "request: { path: /a }\nresponse: { body: a }\n",
        "stubs/more/b.yaml": "request: { path: /b }\nresponse: { body: b }\n",
    ]

    @Test("A folder that cannot be listed fails the reload with its path; the running set stays",
        .enabled(if: permissionsApply, "chmod does not keep this user out"))
    func reloadKeepsStubs() throws {
        let folder = try TemporaryFolder.make(files: Self.files)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stubs = folder.appendingPathComponent("stubs").path
        let registry = StubRegistry(stubsFolder: stubs)
        #expect(try registry.reload().stubs == 2)
        let locked = stubs + "/more"
        chmod(locked, 0)
        defer { chmod(locked, 0o755) }
        #expect(throws: SourceErrors.self) { try registry.reload() }
        do {
            _ = try registry.reload()
        } catch {
            #expect(error.description == "\(locked): cannot be listed: permission denied")
        }
        #expect(registry.index.count == 2)
    }

    @Test("The watcher sees a folder taken out of reach as a change, not as its files gone, and back again",
        .enabled(if: permissionsApply, "chmod does not keep this user out"))
    func fingerprint() throws {
        let folder = try TemporaryFolder.make(files: Self.files)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stubs = folder.appendingPathComponent("stubs").path
        let before = try #require(FolderFingerprint(folder: stubs))
        #expect(FolderFingerprint(folder: stubs) == before)
        chmod(stubs + "/more", 0)
        let locked = FolderFingerprint(folder: stubs)
        chmod(stubs + "/more", 0o755)
        try FileManager.default.removeItem(atPath: stubs + "/more/b.yaml")
        let emptied = FolderFingerprint(folder: stubs)
        #expect(locked != nil)
        #expect(locked != before)
        #expect(locked != emptied)
    }

    @Test("Fingerprints see edits and ignore temporary files")
    func fingerprintEdits() throws {
        let folder = try TemporaryFolder.make(files: Self.files)
        defer { try? FileManager.default.removeItem(at: folder) }
        let stubs = folder.appendingPathComponent("stubs")
        let before = FolderFingerprint(folder: stubs.path)
        try Data("x".utf8).write(to: stubs.appendingPathComponent(".a.yaml.tmp"))
        #expect(FolderFingerprint(folder: stubs.path) == before)
        try Data("request: { path: /c }\nresponse: {}\n".utf8).write(to: stubs.appendingPathComponent("c.yaml"))
        #expect(FolderFingerprint(folder: stubs.path) != before)
        #expect(FolderFingerprint(folder: stubs.path, excluding: [""]) == FolderFingerprint(folder: "/nonexistent", excluding: [""]))
    }
}
