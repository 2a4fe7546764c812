import Foundation
import Testing

@testable import OrreryCore

/// Whether `chmod 000` keeps this process out of a folder: not for root, nor for a process with
/// CAP_DAC_OVERRIDE, where these tests have nothing to test.
let permissionsApply: Bool = {
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

/// Runs `body` with `relative` (under `folder`) made unreadable, and readable again afterwards so that the
/// temporary folder can be removed.
func withUnreadable<Result>(_ relative: String, in folder: TemporaryFolder, _ body: () throws -> Result) rethrows -> Result {
    let path = folder.url.appendingPathComponent(relative).path
    chmod(path, 0)
    defer { chmod(path, 0o755) }
    return try body()
}

@Suite("Loading: what cannot be read is an error, never fewer stubs")
struct StubLoaderAccessTests {
    @Test("A folder under the stubs folder that cannot be listed is an error naming it",
        .enabled(if: permissionsApply, "chmod does not keep this user out"))
    func unreadableFolder() throws {
        try withTemporaryFolder(["stubs/a.yaml": "name: a\nresponse: {}", "stubs/locked/b.yaml": "name: b\nresponse: {}"]) {
            folder in
            let loaded = withUnreadable("stubs/locked", in: folder) { folder.loadStubs() }
            #expect(loaded.messages == ["locked: cannot be listed: permission denied"])
            #expect(loaded.stubs.isEmpty)
        }
    }

    @Test("A stub file that cannot be read is an error naming it", .enabled(if: permissionsApply, "chmod does not keep this user out"))
    func unreadableFile() throws {
        try withTemporaryFolder(["stubs/a.yaml": "name: a\nresponse: {}", "stubs/b.yaml": "name: b\nresponse: {}"]) {
            folder in
            let loaded = withUnreadable("stubs/b.yaml", in: folder) { folder.loadStubs() }
            #expect(loaded.messages == ["b.yaml: cannot be read: permission denied"])
        }
    }

    @Test("The stubs folder itself unreadable is an error, not an empty set", .enabled(if: permissionsApply, "chmod does not keep this user out"))
    func unreadableRoot() throws {
        try withTemporaryFolder(["stubs/a.yaml": "name: a\nresponse: {}"]) { folder in
            let loaded = withUnreadable("stubs", in: folder) { folder.loadStubs() }
            #expect(loaded.errors.map(\.message) == ["cannot be listed: permission denied"])
            #expect(loaded.errors.map(\.file) == [folder.url.appendingPathComponent("stubs").path])
        }
    }

    @Test("Unreadable folders the loader does not read anyway (bodies/, hidden ones) are no error",
        .enabled(if: permissionsApply, "chmod does not keep this user out"))
    func unreadableButSkipped() throws {
        try withTemporaryFolder([
            "stubs/a.yaml": "name: a\nresponse: {}", "stubs/bodies/x.json": "{}", "stubs/.cache/y.yaml": "name: y",
        ]) { folder in
            let loaded = withUnreadable("stubs/bodies", in: folder) {
                withUnreadable("stubs/.cache", in: folder) { folder.loadStubs() }
            }
            #expect(loaded.messages == [])
            #expect(loaded.names == ["a"])
        }
    }

    @Test("Running out of file descriptors reads as such, and as passing", arguments: [
        (24, "too many open files (the file descriptor limit is reached)", true),
        (23, "too many open files in the system (the file descriptor limit is reached)", true),
        (13, "permission denied", false),
        (2, "no such file or directory", false),
    ])
    func reasons(code: Int, reason: String, isTransient: Bool) {
        // As Foundation reports a failed listing: a Cocoa error around the POSIX one.
        let error = NSError(
            domain: NSCocoaErrorDomain, code: 256,
            userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: code)])
        let failure = FileAccessFailure(error)
        #expect(failure.reason == reason)
        #expect(failure.isTransient == isTransient)
    }
}
