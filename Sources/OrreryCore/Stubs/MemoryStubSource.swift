/// Stub files held in memory, by path: for tests and fuzzing, which load stubs as the daemon does without a disk.
///
/// Paths are relative to the root; one that starts with `../` lies outside it (a file next to the stubs folder),
/// where a body file may not reach. An absolute body file path is outside too, since nothing in memory has one.
public struct MemoryStubSource: StubSource {
    public let root: String
    /// Each file's bytes, by its path relative to the root.
    public var files: [String: [UInt8]]

    public init(root: String = "stubs", files: [String: [UInt8]] = [:]) {
        self.root = root
        self.files = files
    }

    /// Files given as text.
    public init(root: String = "stubs", texts: [String: String]) {
        self.init(root: root, files: texts.mapValues { Array($0.utf8) })
    }

    public func files(skippingFolders skipFolder: (String) -> Bool) throws(SourceErrors) -> [String] {
        // Sorted: a dictionary's order changes from run to run, and loaders that keep the listing's order (WireMock
        // roots) must answer alike each time.
        files.keys.sorted().filter { path in
            guard !path.hasPrefix("../") else { return false }
            // Skipped when any folder on the way is.
            let folders = path.split(separator: "/").dropLast()
            var prefix = ""
            for folder in folders {
                prefix = prefix.isEmpty ? String(folder) : prefix + "/" + folder
                if skipFolder(prefix) { return false }
            }
            return true
        }
    }

    public func contents(of path: String) throws(StubSourceFailure) -> [UInt8] {
        guard let bytes = files[Self.normalized(path) ?? path] else {
            throw .unreadable(reason: "no such file or directory")
        }
        return bytes
    }

    public func bodyFile(_ reference: String, from folder: String, maximumBytes: Int) throws(StubSourceFailure) -> [UInt8] {
        guard !reference.hasPrefix("/"),
            let path = Self.normalized(folder.isEmpty ? reference : folder + "/" + reference),
            !path.hasPrefix("../")
        else { throw .outsideRoot }
        let bytes = try contents(of: path)
        guard bytes.count <= maximumBytes else { throw .tooLarge(bytes: bytes.count) }
        return bytes
    }

    /// `path` with `.` and `..` taken away (`a/../b` is `b`); `..` left at the start when it climbs above the root.
    static func normalized(_ path: String) -> String? {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
            } else {
                parts.append(part)
            }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }
}
