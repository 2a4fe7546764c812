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
    /// One WireMock root, read through two sources: its `mappings/` folder and its `__files/` folder.
    public struct Root: Sendable {
        /// The root as the user named it; issues and errors use paths under this name.
        public var path: String
        public var mappings: any StubSource
        public var bodyFiles: any StubSource

        public init(path: String, mappings: any StubSource, bodyFiles: any StubSource) {
            self.path = path
            self.mappings = mappings
            self.bodyFiles = bodyFiles
        }
    }

    public let sources: [Root]

    /// The roots as the user named them.
    public var roots: [String] { sources.map(\.path) }

    public init(sources: [Root]) {
        self.sources = sources
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
        for source in sources {
            let root = source.path
            let mappingsFolder = Self.join(root, "mappings")
            // The source lists files in the order the file system gives them, as WireMock reads them.
            let listed: [String]
            do {
                listed = try source.mappings.files(skippingFolders: { _ in false })
            } catch {
                errors.append(SourceError(file: root, line: 0, message: "not a WireMock root: there is no mappings folder in it"))
                continue
            }
            let relatives = listed.filter { path in
                let name = path.split(separator: "/").last.map(String.init) ?? path
                return !StubLoader.isTemporary(name) && !name.hasPrefix(".") && name.lowercased().hasSuffix(".json")
            }
            for relative in relatives {
                let display = Self.join(mappingsFolder, relative)
                let data: [UInt8]
                do {
                    data = try source.mappings.contents(of: relative)
                } catch {
                    errors.append(SourceError(file: display, line: 0, message: "cannot be read"))
                    continue
                }
                let node: SourceNode
                do {
                    node = try JSONSourceParser.parse(data)
                } catch {
                    errors.append(SourceError(file: display, line: error.line, message: error.message))
                    continue
                }
                var converter = WireMockConverter(file: display, bodyFiles: source.bodyFiles)
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
            let bodyFiles = sources.first { $0.path == file.root }?.bodyFiles ?? MemoryStubSource()
            var kept: [WireMockConverter.Mapping] = []
            for (index, mapping) in file.mappings.enumerated() {
                var decoder = StubDecoder(
                    displayPath: display, source: bodyFiles, folder: "",
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

    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
