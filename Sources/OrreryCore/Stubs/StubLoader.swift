import Foundation

/// Reads every stub file under a folder: `.json`, `.yaml` and `.yml`, skipping `bodies/` folders and temporary
/// files (names starting with `.` or ending in `.tmp`).
public struct StubLoader: Sendable {
    /// The folder as the user named it; error messages use paths under this name.
    public let root: String
    /// Folders under the root (relative paths) that another loader reads: a recording folder inside the stubs.
    /// `""` is the root itself: the loader reads nothing.
    public let excludedFolders: Set<String>
    /// Keeps the ids of two loaders apart when their files have the same relative paths.
    public let idNamespace: String
    /// `--max-body-file`: larger body files are refused at load.
    public var maximumBodyFileBytes = StubDecoder.defaultMaximumBodyFileBytes

    public init(root: String, excludedFolders: Set<String> = [], idNamespace: String = "") {
        self.root = root
        self.excludedFolders = excludedFolders
        self.idNamespace = idNamespace
    }

    /// `folder` relative to `root` when it lies inside it (`stubs/recorded` under `stubs` is `recorded`).
    public static func relativePath(of folder: String, under root: String) -> String? {
        let rootPath = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath().path
        let path = URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path
        if path == rootPath { return "" }
        return path.hasPrefix(rootPath + "/") ? String(path.dropFirst(rootPath.count + 1)) : nil
    }

    public static let stubExtensions: Set<String> = ["json", "yaml", "yml"]

    /// Relative paths of the stub files, sorted so that load order (and so tie-breaking) is stable.
    ///
    /// A folder or file under the root that cannot be listed or read (no permission, no file descriptor left) is
    /// an error naming it, as a broken stub file is: a listing with holes would load fewer stubs, and a reload
    /// would drop the running ones for it.
    public func stubFiles() throws(SourceErrors) -> [String] {
        guard !excludedFolders.contains("") else { return [] }
        // The folder itself may be a symlink; the enumerator does not follow it.
        let rootURL = URL(fileURLWithPath: root).resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) else {
            throw SourceErrors([SourceError(file: root, line: 0, message: "the stubs folder does not exist")])
        }
        guard isDirectory.boolValue else {
            throw SourceErrors([
                SourceError(
                    file: root, line: 0,
                    message: "is a file, and the stubs folder must be a folder: give the folder that holds it (orrery validate FILE checks one file)")
            ])
        }
        let rootPath = rootURL.standardizedFileURL.path
        var failures: [SourceError] = []
        // Without a handler the enumerator skips what it cannot read, silently.
        let enumerator = FileManager.default.enumerator(
            at: rootURL, includingPropertiesForKeys: [.isDirectoryKey], options: [],
            errorHandler: { [root] url, error in
                let path = url.standardizedFileURL.path
                let relative = path == rootPath ? "" : path.hasPrefix(rootPath + "/") ? String(path.dropFirst(rootPath.count + 1)) : path
                var isDirectory: ObjCBool = false
                let isFolder = relative.isEmpty || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
                failures.append(
                    SourceError(
                        file: Self.display(relative, under: root), line: 0,
                        message: "\(isFolder ? "cannot be listed" : "cannot be read"): \(FileAccessFailure(error).reason)"))
                return true
            })
        guard let enumerator else {
            throw SourceErrors([SourceError(file: root, line: 0, message: "the stubs folder cannot be read")])
        }
        var files: [String] = []
        for case let url as URL in enumerator {
            let name = url.lastPathComponent
            let isFolder = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            if isFolder {
                let relative = String(url.standardizedFileURL.path.dropFirst(rootPath.count + 1))
                if name == "bodies" || name.hasPrefix(".") || excludedFolders.contains(relative) {
                    enumerator.skipDescendants()
                }
                continue
            }
            guard !Self.isTemporary(name), Self.stubExtensions.contains(url.pathExtension.lowercased()) else {
                continue
            }
            let path = url.standardizedFileURL.path
            files.append(path.hasPrefix(rootPath + "/") ? String(path.dropFirst(rootPath.count + 1)) : path)
        }
        guard failures.isEmpty else { throw SourceErrors(failures.sorted { $0.file < $1.file }) }
        return files.sorted()
    }

    /// A path under the root as error messages show it: under the root's name as the user gave it.
    static func display(_ relative: String, under root: String) -> String {
        if relative.isEmpty { return root }
        return root.hasSuffix("/") ? root + relative : root + "/" + relative
    }

    public static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") || name.hasSuffix(".tmp") || name.hasSuffix("~")
    }

    /// Loads every file; throws all the problems found, in every file, at once.
    public func load() throws(SourceErrors) -> [Stub] {
        try loadWithFileCount().stubs
    }

    /// Loads every file, and says how many files there were.
    public func loadWithFileCount() throws(SourceErrors) -> (stubs: [Stub], files: Int) {
        var stubs: [Stub] = []
        var errors: [SourceError] = []
        let files = try stubFiles()
        for relative in files {
            do {
                stubs += try loadFile(relative)
            } catch {
                errors += error.errors
            }
        }
        guard errors.isEmpty else { throw SourceErrors(errors) }
        return (stubs, files.count)
    }

    /// Loads a stubs folder, or a single stub file (`orrery validate stubs/users.yaml`), whose body files are then
    /// looked for beside it.
    public static func loadPath(
        _ path: String, maximumBodyFileBytes: Int = StubDecoder.defaultMaximumBodyFileBytes
    ) throws(SourceErrors) -> (stubs: [Stub], files: Int) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            var loader = StubLoader(root: path)
            loader.maximumBodyFileBytes = maximumBodyFileBytes
            return try loader.loadWithFileCount()
        }
        let folder = (path as NSString).deletingLastPathComponent
        var loader = StubLoader(root: folder.isEmpty ? "." : folder)
        loader.maximumBodyFileBytes = maximumBodyFileBytes
        return (try loader.loadFile((path as NSString).lastPathComponent), 1)
    }

    /// Loads one file, given relative to the root.
    public func loadFile(_ relative: String) throws(SourceErrors) -> [Stub] {
        let display = Self.display(relative, under: root)
        let url = URL(fileURLWithPath: root).appendingPathComponent(relative)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SourceErrors([
                SourceError(file: display, line: 0, message: "cannot be read: \(FileAccessFailure(error).reason)")
            ])
        }
        let node: SourceNode
        do {
            node = try Self.parse(Array(data), isJSON: url.pathExtension.lowercased() == "json")
        } catch {
            throw SourceErrors([SourceError(file: display, line: error.line, message: error.message)])
        }
        var decoder = StubDecoder(
            displayPath: display, directory: url.deletingLastPathComponent(), stubsRoot: URL(fileURLWithPath: root),
            makeID: { [idNamespace] index in StubID.make(file: idNamespace + relative, index: index) })
        decoder.maximumBodyFileBytes = maximumBodyFileBytes
        let stubs = decoder.decodeFile(node)
        guard decoder.errors.isEmpty else { throw SourceErrors(decoder.errors) }
        return stubs
    }

    /// JSON goes through Orrery's own parser (it keeps line numbers); YAML through libyaml.
    public static func parse(_ bytes: [UInt8], isJSON: Bool) throws(JSONSyntaxError) -> SourceNode {
        if isJSON { return try JSONSourceParser.parse(bytes) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw JSONSyntaxError(line: 0, message: "the file is not valid UTF-8")
        }
        return try YAMLSourceParser.parse(text)
    }
}

/// Stub ids: random for stubs added at run time, derived from file and position for stubs from files, so a
/// reload keeps them.
public enum StubID {
    public static func make(file: String, index: Int) -> String {
        let key = "\(file)#\(index)"
        let high = fnv1a(key.utf8, seed: 0xcbf2_9ce4_8422_2325)
        let low = fnv1a(key.utf8, seed: 0x8422_2325_cbf2_9ce4)
        return format(high, low)
    }

    public static func random() -> String {
        format(UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))
    }

    /// `8-4-4-4-12` hex digits, as a UUID is written; on bytes, since it runs once for every stub loaded.
    private static func format(_ high: UInt64, _ low: UInt64) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for position in 0..<32 {
            if position == 8 || position == 12 || position == 16 || position == 20 { text.append(UInt8(ascii: "-")) }
            let value = position < 16 ? high : low
            let nibble = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * (position % 16))) & 0xF
            text.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func hex16(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// 64-bit FNV-1a: a stable name for bytes, not a security measure.
    static func fnv1a(_ bytes: some Sequence<UInt8>, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
