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
        _ text: String, as format: StubFormat, file: String? = nil, bodyFiles: [String: String] = [:]
    ) throws(SourceErrors) -> [Stub] {
        let file = file ?? format.fileName
        let node: SourceNode
        do {
            node = try StubLoader.parse(Array(text.utf8), isJSON: format == .json)
        } catch {
            throw SourceErrors([SourceError(file: file, line: error.line, message: error.message)])
        }
        var decoder = StubDecoder(
            displayPath: file, source: MemoryStubSource(texts: bodyFiles), folder: "", makeID: { "stub-\($0)" })
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

// MARK: - Stub files in memory

/// Files in memory, by path (`stubs/a.yaml`), that tests load stubs from as the daemon loads a folder: the loader
/// reads a `MemoryStubSource`, never the disk. Make one with `withStubFiles`.
final class StubFiles {
    private(set) var files: [String: [UInt8]] = [:]

    fileprivate init() {}

    /// Adds a text file at a path.
    func write(_ path: String, _ text: String) {
        files[path] = Array(text.utf8)
    }

    /// Adds a file of any bytes at a path.
    func write(_ path: String, bytes: [UInt8]) {
        files[path] = bytes
    }

    /// The files as a source whose root is the folder `root`: the files under it by their path there, the others
    /// outside it (`../secret.txt`), where body files may not reach.
    func source(root: String = "stubs") -> MemoryStubSource {
        let folder = root.hasSuffix("/") ? String(root.dropLast()) : root
        let depth = folder.split(separator: "/").count
        var inside: [String: [UInt8]] = [:]
        for (path, bytes) in files {
            if folder.isEmpty {
                inside[path] = bytes
            } else if path.hasPrefix(folder + "/") {
                inside[String(path.dropFirst(folder.count + 1))] = bytes
            } else {
                inside[String(repeating: "../", count: depth) + path] = bytes
            }
        }
        return MemoryStubSource(root: root, files: inside)
    }

    /// Loads the stubs folder at `root`, catching the errors.
    func loadStubs(root: String = "stubs") -> LoadedStubs {
        do {
            return LoadedStubs(root: root, stubs: try StubLoader(source: source(root: root)).load(), errors: [])
        } catch {
            return LoadedStubs(root: root, stubs: [], errors: error.errors)
        }
    }
}

/// Runs `body` with files in memory holding `files` (path → text).
func withStubFiles<Result>(_ files: [String: String] = [:], _ body: (StubFiles) throws -> Result) throws -> Result {
    let folder = StubFiles()
    for (path, text) in files { folder.write(path, text) }
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

/// Loads `files` as a `stubs` folder (and `outside` as files next to that folder) with `StubLoader`, in memory.
func loadStubFolder(_ files: [String: String], outside: [String: String] = [:]) throws -> LoadedStubs {
    try withStubFiles { folder in
        for (relative, text) in files { folder.write("stubs/" + relative, text) }
        for (relative, text) in outside { folder.write(relative, text) }
        return folder.loadStubs(root: "stubs")
    }
}

/// A minimal valid stub file for `path`, named `name`.
func stubJSON(name: String, path: String = "/") -> String {
    #"{ "name": "\#(name)", "request": { "path": "\#(path)" }, "response": { "status": 200 } }"#
}
