import Foundation

/// Reads WireMock roots (`mappings/**/*.json`, bodies in `__files/`) and turns their mappings into native stubs.
///
/// WireMock's order is kept: a lower priority number wins (no priority is 5), and among mappings of one priority
/// the one loaded last wins. WireMock reads the files in the order the file system lists them, folders depth
/// first, and not sorted; so does this loader, so that the same folder on the same machine answers alike. A file's
/// mappings load in their order, roots in the order given.
/// Orrery's own rules (specificity, then first loaded) would pick differently, so each stub gets a priority of
/// its own: WireMock's priority times a power of ten above the number of mappings, plus its place counted from
/// the last one loaded.
public struct WireMockLoader: Sendable {
    /// The roots as the user named them; issues and errors use paths under these names.
    public let roots: [String]

    public init(roots: [String]) {
        self.roots = roots
    }

    /// A mapping file, converted.
    public struct ConvertedFile: Sendable {
        /// The root it is under, as given.
        public var root: String
        /// The file's path under the root's `mappings/` folder.
        public var relative: String
        /// Its servable mappings, with their Orrery priorities set.
        public var mappings: [WireMockConverter.Mapping]
    }

    /// Every mapping file of every root, converted; problems that stop a mapping from being served are `issues`,
    /// files that are not JSON are errors.
    public func convert() throws(SourceErrors) -> (files: [ConvertedFile], issues: [WireMockIssue]) {
        var files: [ConvertedFile] = []
        var issues: [WireMockIssue] = []
        var errors: [SourceError] = []
        for root in roots {
            let mappingsFolder = Self.join(root, "mappings")
            guard Self.isDirectory(mappingsFolder) else {
                errors.append(SourceError(file: root, line: 0, message: "not a WireMock root: there is no mappings folder in it"))
                continue
            }
            let relatives = Self.listing(mappingsFolder).filter { $0.lowercased().hasSuffix(".json") }
            let filesFolder = URL(fileURLWithPath: Self.join(root, "__files"))
            for relative in relatives {
                let display = Self.join(mappingsFolder, relative)
                guard let data = FileManager.default.contents(atPath: display) else {
                    errors.append(SourceError(file: display, line: 0, message: "cannot be read"))
                    continue
                }
                let node: SourceNode
                do {
                    node = try JSONSourceParser.parse(Array(data))
                } catch {
                    errors.append(SourceError(file: display, line: error.line, message: error.message))
                    continue
                }
                var converter = WireMockConverter(file: display, filesFolder: filesFolder)
                let mappings = converter.convertFile(node)
                issues += converter.issues
                files.append(ConvertedFile(root: root, relative: relative, mappings: mappings))
            }
        }
        guard errors.isEmpty else { throw SourceErrors(errors) }
        // WireMock's order as Orrery priorities (see the type's comment).
        let total = files.reduce(0) { $0 + $1.mappings.count }
        var scale = 10
        while scale <= total { scale *= 10 }
        var order = 0
        for fileIndex in files.indices {
            for mappingIndex in files[fileIndex].mappings.indices {
                let mapping = files[fileIndex].mappings[mappingIndex]
                let priority = mapping.wireMockPriority * scale + (total - 1 - order)
                files[fileIndex].mappings[mappingIndex].stub = mapping.stub.setting("priority", .integer(priority, line: mapping.stub.line))
                order += 1
            }
        }
        return (files, issues)
    }

    /// The stubs of every root, the issues found, and the number of mapping files read.
    public func load() throws(SourceErrors) -> (stubs: [Stub], issues: [WireMockIssue], files: Int) {
        let checked = try convertAndDecode()
        return (checked.stubs, checked.issues, checked.files.count)
    }

    /// `convert`, then each mapping decoded as a native stub: a mapping the stub decoder refuses (a regex that
    /// cannot be matched in bounded time, say) is left out of `files` too, and its errors are issues.
    public func convertAndDecode() throws(SourceErrors) -> (files: [ConvertedFile], stubs: [Stub], issues: [WireMockIssue]) {
        var (files, issues) = try convert()
        var stubs: [Stub] = []
        for fileIndex in files.indices {
            let file = files[fileIndex]
            let display = Self.join(Self.join(file.root, "mappings"), file.relative)
            let filesFolder = URL(fileURLWithPath: Self.join(file.root, "__files"))
            var kept: [WireMockConverter.Mapping] = []
            for (index, mapping) in file.mappings.enumerated() {
                var decoder = StubDecoder(
                    displayPath: display, directory: filesFolder, stubsRoot: filesFolder,
                    makeID: { _ in StubID.make(file: "wiremock:" + display, index: index) })
                guard var stub = decoder.decodeSingle(mapping.stub), decoder.errors.isEmpty else {
                    for error in decoder.errors {
                        issues.append(
                            WireMockIssue(file: display, line: error.line, jsonPath: mapping.jsonPath, reason: error.message, effect: .skipped))
                    }
                    continue
                }
                // WireMock sends no Content-Type it was not given; Orrery guesses one for body files.
                if !mapping.setsContentType {
                    for position in stub.responses.indices { stub.responses[position].headers.remove("Content-Type") }
                }
                stubs.append(stub)
                kept.append(mapping)
            }
            files[fileIndex].mappings = kept
        }
        return (files, stubs, issues)
    }

    /// The files under a folder in the order the file system lists them, each folder's files where it comes (as
    /// Java's `File.listFiles`, which WireMock walks, gives them); temporary and hidden files left out.
    static func listing(_ folder: String, prefix: String = "") -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var out: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != "..", !StubLoader.isTemporary(name) else { continue }
            let path = join(folder, name)
            if Self.isDirectory(path) {
                out += listing(path, prefix: prefix + name + "/")
            } else {
                out.append(prefix + name)
            }
        }
        return out
    }

    static func isDirectory(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
    }

    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
