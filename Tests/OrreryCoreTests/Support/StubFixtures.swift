import Foundation
import Testing
@testable import OrreryCore

// Builders with defaults for test data, so each test spells out only what it is about.

extension Stub {
    /// A stub built in code. `headers` and `bodyMatchers` are conditions on the request; `status`,
    /// `responseHeaders` and `body` make the response. `url` overrides `path` when given; `method: nil` is any method.
    static func make(
        id: String? = nil, name: String? = nil, priority: Int? = nil,
        method: String? = "GET", host: String? = nil, path: String = "/", url: URLMatcher? = nil,
        query: [(String, ValueMatcher)] = [], headers: [(String, ValueMatcher)] = [],
        bodyMatchers: [BodyMatcher] = [],
        status: Int = 200, responseHeaders: HTTPHeaders = HTTPHeaders(), body: String = ""
    ) -> Stub {
        Stub(
            id: id ?? name ?? StubID.random(), name: name, priority: priority,
            request: RequestPattern(
                method: method, host: host, url: url ?? .path(path), query: query, headers: headers,
                body: bodyMatchers),
            response: ResponseDefinition(status: status, headers: responseHeaders, body: Array(body.utf8)))
    }
}

extension HTTPRequest {
    /// A request as the server would hand it over; `host` adds a `Host` header.
    static func make(
        method: String = "GET", target: String = "/", host: String? = nil, headers: HTTPHeaders = HTTPHeaders(),
        body: String = ""
    ) -> HTTPRequest {
        var headers = headers
        if let host { headers.add("Host", host) }
        return HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8))
    }
}

extension URLMatcher {
    /// A short text for assertions: `path /a`, `url /a?x=1`, `urlPattern ^/a`, `pathPattern ^/a`, `any`.
    var summary: String {
        switch self {
        case .any: "any"
        case .path(let path): "path \(path)"
        case .url(let path, let query):
            query.isEmpty ? "url \(path)" : "url \(path)?" + query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        case .urlPattern(let pattern): "urlPattern \(pattern.source)"
        case .pathPattern(let pattern): "pathPattern \(pattern.source)"
        case .pathTemplate(let template): "pathTemplate \(template)"
        case .urlTemplate(let template, let query):
            "urlTemplate \(template)" + (query.isEmpty ? "" : "?" + query.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))
        }
    }
}

extension RequestPattern {
    /// `Name: matcher description` for each header condition, in order.
    var headerSummary: [String] { headers.map { "\($0.0): \($0.1)" } }
    /// `name: matcher description` for each query condition, in order.
    var querySummary: [String] { query.map { "\($0.0): \($0.1)" } }
}

extension HTTPHeaders {
    /// `Name: value` for each field, in order.
    var lines: [String] { entries.map { "\($0.name): \($0.value)" } }
}

// MARK: - Decoding stub text

/// The two stub file syntaxes, for tests that run the same case through both.
enum StubFormat: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case json
    case yaml

    var fileName: String { "stubs/example.\(rawValue)" }
    var testDescription: String { rawValue.uppercased() }
}

enum StubText {
    /// Parses and decodes stub text as `StubLoader` does for a file, without touching the disk.
    /// Syntax errors and decoding errors are both thrown as `SourceErrors` under `file`.
    static func decode(
        _ text: String, as format: StubFormat, file: String? = nil, directory: URL? = nil
    ) throws(SourceErrors) -> [Stub] {
        let file = file ?? format.fileName
        let node: SourceNode
        do {
            node = try StubLoader.parse(Array(text.utf8), isJSON: format == .json)
        } catch {
            throw SourceErrors([SourceError(file: file, line: error.line, message: error.message)])
        }
        let folder = directory ?? URL(fileURLWithPath: "/nonexistent-orrery-stubs")
        var decoder = StubDecoder(
            displayPath: file, directory: folder, stubsRoot: folder, makeID: { "stub-\($0)" })
        let stubs = decoder.decodeFile(node)
        guard decoder.errors.isEmpty else { throw SourceErrors(decoder.errors) }
        return stubs
    }

    /// Decodes text that must hold exactly one stub.
    static func decodeOne(
        _ text: String, as format: StubFormat = .yaml, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> Stub {
        let stubs = try decode(text, as: format)
        #expect(stubs.count == 1, "expected one stub", sourceLocation: sourceLocation)
        return try #require(stubs.first, sourceLocation: sourceLocation)
    }

    /// The errors decoding reports; records an issue if the text decodes cleanly.
    static func errors(
        _ text: String, as format: StubFormat, file: String? = nil,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> [SourceError] {
        do {
            let stubs = try decode(text, as: format, file: file)
            Issue.record("expected errors, but \(stubs.count) stub(s) decoded", sourceLocation: sourceLocation)
            return []
        } catch {
            return error.errors
        }
    }
}

// MARK: - Temporary folders

/// A unique folder under the system's temporary directory. Create it with `withTemporaryFolder`, which removes it.
struct TemporaryFolder {
    let url: URL
    var path: String { url.path }

    fileprivate init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("orrery-core-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes a text file at a path relative to the folder, creating the folders on the way.
    @discardableResult
    func write(_ relative: String, _ text: String) throws -> URL {
        let file = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }

    /// Makes a symbolic link at a path relative to the folder.
    func symlink(_ relative: String, to destination: URL) throws {
        let link = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(
            at: link.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: destination)
    }

    fileprivate func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a fresh temporary folder holding `files` (relative path → text), then removes the folder.
func withTemporaryFolder<Result>(
    _ files: [String: String] = [:], _ body: (TemporaryFolder) throws -> Result
) throws -> Result {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    for (relative, text) in files { try folder.write(relative, text) }
    return try body(folder)
}

/// What loading a stubs folder gave.
struct LoadedStubs {
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

/// Writes `files` into a `stubs` folder inside a fresh temporary folder (and `outside` next to that `stubs` folder),
/// loads it with `StubLoader`, and removes everything again.
func loadStubFolder(_ files: [String: String], outside: [String: String] = [:]) throws -> LoadedStubs {
    try withTemporaryFolder { folder in
        for (relative, text) in files { try folder.write("stubs/" + relative, text) }
        for (relative, text) in outside { try folder.write(relative, text) }
        return folder.loadStubs(root: "stubs")
    }
}

extension TemporaryFolder {
    /// Loads the stubs folder at `root` (relative to this folder), catching the errors.
    func loadStubs(root: String = "stubs") -> LoadedStubs {
        let rootPath = url.appendingPathComponent(root).path
        do {
            return LoadedStubs(root: rootPath, stubs: try StubLoader(root: rootPath).load(), errors: [])
        } catch {
            return LoadedStubs(root: rootPath, stubs: [], errors: error.errors)
        }
    }
}

/// A minimal valid stub file for `path`, named `name`.
func stubJSON(name: String, path: String = "/") -> String {
    #"{ "name": "\#(name)", "request": { "path": "\#(path)" }, "response": { "status": 200 } }"#
}
