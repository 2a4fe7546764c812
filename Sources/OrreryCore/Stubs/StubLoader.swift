/// Reads every stub file of a source: `.json`, `.yaml` and `.yml`, skipping `bodies/` folders and temporary
/// files (names starting with `.` or ending in `.tmp`).
public struct StubLoader: Sendable {
    /// Where the files come from: a folder on disk in the daemon, files in memory in tests.
    public let source: any StubSource
    /// Folders under the root (relative paths) that another loader reads: a recording folder inside the stubs.
    /// `""` is the root itself: the loader reads nothing.
    public let excludedFolders: Set<String>
    /// Keeps the ids of two loaders apart when their files have the same relative paths.
    public let idNamespace: String
    /// `--max-body-file`: larger body files are refused at load.
    public var maximumBodyFileBytes = StubDecoder.defaultMaximumBodyFileBytes

    public init(source: any StubSource, excludedFolders: Set<String> = [], idNamespace: String = "") {
        self.source = source
        self.excludedFolders = excludedFolders
        self.idNamespace = idNamespace
    }

    /// The stubs folder as the user named it; error messages use paths under this name.
    public var root: String { source.root }

    public static let stubExtensions: Set<String> = ["json", "yaml", "yml"]

    /// Relative paths of the stub files, sorted so that load order (and so tie-breaking) is stable.
    ///
    /// A folder or file under the root that cannot be listed or read (no permission, no file descriptor left) is
    /// an error naming it, as a broken stub file is: a listing with holes would load fewer stubs, and a reload
    /// would drop the running ones for it.
    public func stubFiles() throws(SourceErrors) -> [String] {
        guard !excludedFolders.contains("") else { return [] }
        let files = try source.files(skippingFolders: { [excludedFolders] relative in
            let name = relative.split(separator: "/").last.map(String.init) ?? relative
            return name == "bodies" || name.hasPrefix(".") || excludedFolders.contains(relative)
        })
        return files.filter { path in
            let name = path.split(separator: "/").last.map(String.init) ?? path
            return !Self.isTemporary(name) && Self.stubExtensions.contains(Self.pathExtension(of: name).lowercased())
        }.sorted()
    }

    /// The extension of a file name, without its dot; empty when it has none (`.json` alone is a hidden file).
    static func pathExtension(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The folder part of a path relative to the root (`api/v1/users.yaml` is in `api/v1`; `a.json` in `""`).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
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

    /// Loads one file, given relative to the root.
    public func loadFile(_ relative: String) throws(SourceErrors) -> [Stub] {
        let display = source.display(relative)
        let bytes: [UInt8]
        do {
            bytes = try source.contents(of: relative)
        } catch {
            let reason: String
            switch error {
            case .unreadable(let why): reason = why
            case .outsideRoot: reason = "it is outside the stubs folder"
            case .tooLarge(let bytes): reason = "it is \(bytes) bytes, more than may be read"
            }
            throw SourceErrors([SourceError(file: display, line: 0, message: "cannot be read: \(reason)")])
        }
        let node: SourceNode
        do {
            node = try Self.parse(bytes, isJSON: Self.pathExtension(of: relative).lowercased() == "json")
        } catch {
            throw SourceErrors([SourceError(file: display, line: error.line, message: error.message)])
        }
        var decoder = StubDecoder(
            displayPath: display, source: source, folder: Self.folder(of: relative),
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
