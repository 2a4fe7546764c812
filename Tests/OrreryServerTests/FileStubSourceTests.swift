import Foundation
import OrreryCore
import Testing

@testable import OrreryServer

// The stubs folder on disk: what only a file system has (symbolic links, permissions, a missing folder), through
// FileStubSource. What a loader makes of files is tested in memory, in OrreryCoreTests.

/// A unique folder under the system's temporary directory. Make it with `withFolderOnDisk`, which removes it.
struct FolderOnDisk {
    let url: URL
    var path: String { url.path }

    fileprivate init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("orrery-stub-source-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes a text file at a path relative to the folder, creating the folders on the way.
    func write(_ relative: String, _ text: String) throws {
        let file = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    /// Makes a symbolic link at a path relative to the folder.
    func symlink(_ relative: String, to destination: URL) throws {
        let link = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: destination)
    }

    /// Loads the stubs folder at `root` (relative to this folder) from disk, catching the errors.
    func loadStubs(root: String = "stubs") -> LoadedFolder {
        let rootPath = url.appendingPathComponent(root).path
        do {
            return LoadedFolder(root: rootPath, stubs: try StubLoader(root: rootPath).load(), errors: [])
        } catch {
            return LoadedFolder(root: rootPath, stubs: [], errors: error.errors)
        }
    }
}

/// Runs `body` with a fresh temporary folder holding `files` (relative path → text), then removes the folder.
func withFolderOnDisk<Result>(_ files: [String: String] = [:], _ body: (FolderOnDisk) throws -> Result) throws -> Result
{
    let folder = try FolderOnDisk()
    defer { try? FileManager.default.removeItem(at: folder.url) }
    for (relative, text) in files { try folder.write(relative, text) }
    return try body(folder)
}

/// What loading a stubs folder from disk gave.
struct LoadedFolder {
    /// The stubs folder as given to `StubLoader`.
    var root: String
    var stubs: [Stub]
    var errors: [SourceError]

    /// Error descriptions with the stubs folder left out: `a.json:3: message`.
    var messages: [String] {
        errors.map { error in
            var error = error
            if error.file.hasPrefix(root + "/") { error.file.removeFirst(root.count + 1) }
            return error.description
        }
    }

    var names: [String] { stubs.map { $0.name ?? "?" } }
}

@Suite("FileStubSource: a stubs folder on disk")
struct FileStubSourceTests {
    @Test("Error file names start with the stubs folder as the user named it")
    func errorDisplayPath() throws {
        try withFolderOnDisk(["stubs/api/bad.json": "[1]"]) { folder in
            for root in [folder.path + "/stubs", folder.path + "/stubs/"] {
                let errors: [SourceError]
                do throws(SourceErrors) {
                    _ = try StubLoader(root: root).load()
                    errors = []
                } catch {
                    errors = error.errors
                }
                #expect(errors.map(\.file) == [folder.path + "/stubs/api/bad.json"], "root \(root)")
                #expect(errors.map(\.line) == [1])
            }
        }
    }

    @Test("A missing stubs folder is an error")
    func missingFolder() throws {
        try withFolderOnDisk { folder in
            let loaded = folder.loadStubs(root: "does-not-exist")
            #expect(loaded.errors.map(\.message) == ["the stubs folder does not exist"])
        }
    }

    @Test("An empty stubs folder loads no stubs")
    func emptyFolder() throws {
        try withFolderOnDisk { folder in
            try FileManager.default.createDirectory(
                at: folder.url.appendingPathComponent("stubs"), withIntermediateDirectories: true)
            let loaded = folder.loadStubs()
            #expect(loaded.errors.isEmpty)
            #expect(loaded.stubs.isEmpty)
        }
    }

    @Test("A bodyFile given as an absolute path outside the stubs folder is refused")
    func bodyFileAbsolute() throws {
        try withFolderOnDisk(["secret.txt": "top secret"]) { folder in
            let secret = folder.url.appendingPathComponent("secret.txt").path
            try folder.write("stubs/a.json", #"{ "response": { "bodyFile": "\#(secret)" } }"#)
            let loaded = folder.loadStubs()
            #expect(loaded.messages == ["a.json:1: bodyFile '\(secret)' is outside the stubs folder"])
        }
    }

    @Test("A bodyFile reached through a symlink pointing outside the stubs folder is refused")
    func bodyFileSymlink() throws {
        try withFolderOnDisk(["secret.txt": "top secret"]) { folder in
            try folder.write(
                "stubs/a.yaml",
                """
                response:
                  bodyFile: bodies/link.txt
                """)
            try folder.symlink("stubs/bodies/link.txt", to: folder.url.appendingPathComponent("secret.txt"))
            let loaded = folder.loadStubs()
            #expect(loaded.stubs.isEmpty)
            #expect(loaded.messages == ["a.yaml:2: bodyFile 'bodies/link.txt' is outside the stubs folder"])
        }
    }

    @Test("A bodyFile in a symlinked folder pointing outside the stubs folder is refused")
    func bodyFileSymlinkedFolder() throws {
        try withFolderOnDisk(["private/secret.txt": "top secret"]) { folder in
            try folder.write("stubs/a.yaml", "response:\n  bodyFile: bodies/secret.txt")
            try folder.symlink("stubs/bodies", to: folder.url.appendingPathComponent("private"))
            let loaded = folder.loadStubs()
            #expect(loaded.messages == ["a.yaml:2: bodyFile 'bodies/secret.txt' is outside the stubs folder"])
        }
    }

    @Test(
        "A stubs folder reached through a symlink loads its stubs and their body files")
    func symlinkedRoot() throws {
        try withFolderOnDisk([
            "real/a.yaml": "name: a\nresponse: { bodyFile: bodies/a.txt }",
            "real/bodies/a.txt": "A",
        ]) { folder in
            try folder.symlink("stubs", to: folder.url.appendingPathComponent("real"))
            let loaded = folder.loadStubs(root: "stubs")
            #expect(loaded.messages == [])
            #expect(loaded.names == ["a"])
            #expect(loaded.stubs.map { String(decoding: $0.response.body, as: UTF8.self) } == ["A"])
        }
    }

    @Test("Symlinked folders inside the stubs folder are not followed")
    func symlinkedSubfolder() throws {
        try withFolderOnDisk(["stubs/real/a.yaml": "name: a\nresponse: {}"]) { folder in
            try folder.symlink("stubs/linked", to: folder.url.appendingPathComponent("stubs/real"))
            let loaded = folder.loadStubs()
            #expect(loaded.names == ["a"])
        }
    }

    @Test("A host map file loads from disk, and a missing one gives no map and no error")
    func hostMapFile() throws {
        try withFolderOnDisk([
            "config/hosts.json":
                #"{"configurations": [{"canonical_host": "a.example.com", "hosts": [{"key": "PROD", "host": "a.example.com"}]}]}"#
        ]) { folder in
            let map = try HostMapDecoder.load(path: folder.path + "/config/hosts.json")
            #expect(map?.configurations.map(\.canonicalHost) == ["a.example.com"])
            #expect(try HostMapDecoder.load(path: folder.path + "/config/missing.json") == nil)
        }
    }
}

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

/// Runs `body` with `relative` (under `folder`) made unreadable, and readable again afterwards so that the
/// temporary folder can be removed.
func withUnreadable<Result>(_ relative: String, in folder: FolderOnDisk, _ body: () throws -> Result) rethrows -> Result
{
    let path = folder.url.appendingPathComponent(relative).path
    chmod(path, 0)
    defer { chmod(path, 0o755) }
    return try body()
}

@Suite("Loading: what cannot be read is an error, never fewer stubs")
struct StubLoaderAccessTests {
    @Test(
        "A folder under the stubs folder that cannot be listed is an error naming it",
        .enabled(if: permissionsApply, "chmod does not keep this user out"))
    func unreadableFolder() throws {
        try withFolderOnDisk(["stubs/a.yaml": "name: a\nresponse: {}", "stubs/locked/b.yaml": "name: b\nresponse: {}"])
        {
            folder in
            let loaded = withUnreadable("stubs/locked", in: folder) { folder.loadStubs() }
            #expect(loaded.messages == ["locked: cannot be listed: permission denied"])
            #expect(loaded.stubs.isEmpty)
        }
    }

    @Test(
        "A stub file that cannot be read is an error naming it",
        .enabled(if: permissionsApply, "chmod does not keep this user out"))
    func unreadableFile() throws {
        try withFolderOnDisk(["stubs/a.yaml": "name: a\nresponse: {}", "stubs/b.yaml": "name: b\nresponse: {}"]) {
            folder in
            let loaded = withUnreadable("stubs/b.yaml", in: folder) { folder.loadStubs() }
            #expect(loaded.messages == ["b.yaml: cannot be read: permission denied"])
        }
    }

    @Test(
        "The stubs folder itself unreadable is an error, not an empty set",
        .enabled(if: permissionsApply, "chmod does not keep this user out"))
    func unreadableRoot() throws {
        try withFolderOnDisk(["stubs/a.yaml": "name: a\nresponse: {}"]) { folder in
            let loaded = withUnreadable("stubs", in: folder) { folder.loadStubs() }
            #expect(loaded.errors.map(\.message) == ["cannot be listed: permission denied"])
            #expect(loaded.errors.map(\.file) == [folder.url.appendingPathComponent("stubs").path])
        }
    }

    @Test(
        "Unreadable folders the loader does not read anyway (bodies/, hidden ones) are no error",
        .enabled(if: permissionsApply, "chmod does not keep this user out"))
    func unreadableButSkipped() throws {
        try withFolderOnDisk([
            "stubs/a.yaml": "name: a\nresponse: {}", "stubs/bodies/x.json": "{}", "stubs/.cache/y.yaml": "name: y",
        ]) { folder in
            let loaded = withUnreadable("stubs/bodies", in: folder) {
                withUnreadable("stubs/.cache", in: folder) { folder.loadStubs() }
            }
            #expect(loaded.messages == [])
            #expect(loaded.names == ["a"])
        }
    }

    @Test(
        "Running out of file descriptors reads as such, and as passing",
        arguments: [
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
