import Foundation

/// Finds the `orrery` executable by the kit's documented rule.
///
/// The order, first match wins:
/// 1. the path given in `OrreryDaemon.Options(binary:)`;
/// 2. `$ORRERY_BINARY`;
/// 3. the package's own build: `orrery` in the directory of the test bundle (where `swift test` puts the products a
///    test target depends on), then in its sibling configuration (`debug` beside `release`, and the other way), then
///    `.build/debug/orrery` and `.build/release/orrery` under the current directory (`swift test` runs in the package
///    root);
/// 4. each directory of `$PATH`.
///
/// A path given in 1 or 2 is taken as it is: when it is not an executable file that is an error, not a reason to look
/// elsewhere, so a mistyped `ORRERY_BINARY` never runs some other build by surprise.
struct BinaryLocator: Sendable {
    /// The name of the executable.
    static let name = "orrery"

    var explicitPath: String?
    var environment: [String: String]
    /// Directories the test bundle or the test runner lives in.
    var bundleDirectories: [URL]
    var currentDirectory: URL

    /// The locator for this process: its environment, loaded test bundles and current directory.
    static func forThisProcess(explicitPath: String?) -> BinaryLocator {
        BinaryLocator(
            explicitPath: explicitPath, environment: ProcessInfo.processInfo.environment,
            bundleDirectories: testBundleDirectories(),
            currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
    }

    /// Where `swift test` or Xcode put the code that runs: the `.xctest` bundles loaded (macOS), and the directory of
    /// the running executable (on Linux the test bundle is that executable).
    static func testBundleDirectories() -> [URL] {
        var directories: [URL] = []
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        if let executable = Bundle.main.executableURL {
            directories.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        var seen = Set<String>()
        return directories.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    /// The candidates of step 3 and 4, in order, with the step each belongs to.
    func searchedPaths() -> [(path: String, source: String)] {
        var candidates: [(String, String)] = []
        for directory in bundleDirectories {
            candidates.append((directory.appendingPathComponent(Self.name).path, "beside the test bundle"))
            let configuration = directory.lastPathComponent
            let siblings = ["debug": "release", "release": "debug"]
            if let other = siblings[configuration] {
                let sibling = directory.deletingLastPathComponent().appendingPathComponent(other)
                candidates.append((sibling.appendingPathComponent(Self.name).path, "the package's \(other) build"))
            }
        }
        for configuration in ["debug", "release"] {
            let path = currentDirectory.appendingPathComponent(".build/\(configuration)/\(Self.name)").path
            candidates.append((path, "the package's \(configuration) build"))
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            candidates.append((URL(fileURLWithPath: String(directory)).appendingPathComponent(Self.name).path, "PATH"))
        }
        return candidates
    }

    /// The executable to run, or an error that names every place looked at.
    func locate() throws -> URL {
        if let explicitPath {
            return try Self.checked(explicitPath, from: "OrreryDaemon.Options(binary:)", relativeTo: currentDirectory)
        }
        if let path = environment["ORRERY_BINARY"], !path.isEmpty {
            return try Self.checked(path, from: "ORRERY_BINARY", relativeTo: currentDirectory)
        }
        let candidates = searchedPaths()
        for (path, _) in candidates where Self.isExecutableFile(path) {
            return URL(fileURLWithPath: path)
        }
        var seen = Set<String>()
        let listed = candidates.filter { seen.insert($0.path).inserted }.map { "  \($0.path) (\($0.source))" }
        throw OrreryTestingError.binaryNotFound(
            "No orrery binary: ORRERY_BINARY is not set, and none of these is an executable file:\n"
                + listed.joined(separator: "\n"))
    }

    private static func checked(_ path: String, from source: String, relativeTo directory: URL) throws -> URL {
        let url =
            path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path).standardizedFileURL
        guard isExecutableFile(url.path) else {
            let state = FileManager.default.fileExists(atPath: url.path) ? "is not an executable file" : "does not exist"
            throw OrreryTestingError.binaryNotFound("The orrery binary \(url.path) (from \(source)) \(state).")
        }
        return url
    }

    /// Whether `path` is a regular file (after symbolic links) this process may execute.
    static func isExecutableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return false
        }
        return FileManager.default.isExecutableFile(atPath: path)
    }
}
