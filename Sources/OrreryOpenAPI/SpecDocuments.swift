import Foundation
import OrreryCore

/// The files of a spec, parsed, by URI (`file:///api/openapi.yaml`): the main document and every file its
/// `$ref`s reach, found by following them.
struct SpecDocuments {
    private(set) var documents: [String: JSONValue] = [:]
    /// Each document's file path, for errors.
    private(set) var paths: [String: String] = [:]
    /// Schemas' `$id`s (OpenAPI 3.1), resolved: a reference to one names a schema, not a file to read.
    private var identifiers: Set<String> = []

    /// Parses a file as JSON (by its `.json` extension) or YAML.
    static func parse(path: String) throws(OpenAPILoadError) -> JSONValue {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw OpenAPILoadError(file: path, message: "cannot read the file")
        }
        do {
            if path.lowercased().hasSuffix(".json") { return try JSONValue.parse(data) }
            return try JSONValue.parseYAML(String(decoding: data, as: UTF8.self))
        } catch {
            throw OpenAPILoadError(file: path, message: "line \(error.line): \(error.message)")
        }
    }

    static func uri(forPath path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.absoluteString
    }

    /// Adds a document, then every file its references name, transitively.
    mutating func add(_ document: JSONValue, uri: String, path: String) throws(OpenAPILoadError) {
        documents[uri] = document
        paths[uri] = path
        identifiers.formUnion(Self.identifiers(in: document, base: uri))
        var queue = [uri]
        while let next = queue.popLast() {
            guard let value = documents[next] else { continue }
            for reference in Self.references(in: value) {
                let target = Self.resolve(reference, against: next)
                guard !target.isEmpty, documents[target] == nil, !identifiers.contains(target) else { continue }
                guard let url = URL(string: target), url.isFileURL else {
                    throw OpenAPILoadError(
                        file: paths[next] ?? next, message: "$ref '\(reference)': only local files can be referenced")
                }
                let child = try Self.parse(path: url.path)
                documents[target] = child
                paths[target] = url.path
                identifiers.formUnion(Self.identifiers(in: child, base: target))
                queue.append(target)
            }
        }
    }

    /// The document part of a reference, resolved against the referring document's URI; empty for a local one.
    static func resolve(_ reference: String, against base: String) -> String {
        let file = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard !file.isEmpty, let baseURL = URL(string: base),
            let url = URL(string: String(file), relativeTo: baseURL)
        else { return "" }
        let resolved = url.absoluteURL.standardizedFileURL.absoluteString
        return resolved == base ? "" : resolved
    }

    /// Every `$id` in a document, resolved against its URI.
    static func identifiers(in value: JSONValue, base: String) -> Set<String> {
        var found: Set<String> = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let members):
                if case .string(let id)? = value["$id"] {
                    let resolved = resolve(id, against: base)
                    found.insert(resolved.isEmpty ? base : resolved)
                }
                for (_, child) in members { walk(child) }
            case .array(let items):
                items.forEach(walk)
            default:
                break
            }
        }
        walk(value)
        return found
    }

    /// Every `$ref` string in a document.
    static func references(in value: JSONValue) -> [String] {
        var found: [String] = []
        func walk(_ value: JSONValue) {
            switch value {
            case .object(let members):
                for (key, child) in members {
                    if key == "$ref", case .string(let reference) = child { found.append(reference) } else { walk(child) }
                }
            case .array(let items):
                items.forEach(walk)
            default:
                break
            }
        }
        walk(value)
        return found
    }

    /// The value at a location and the location itself, after following `$ref`s (non-schema objects: parameters,
    /// responses, request bodies, path items).
    func follow(_ value: JSONValue, at location: Location) throws(OpenAPILoadError) -> (JSONValue, Location) {
        var value = value
        var location = location
        var hops = 0
        while case .string(let reference)? = value["$ref"] {
            hops += 1
            guard hops < 32 else { throw error(at: location, "$ref '\(reference)' goes round in a circle") }
            let file = Self.resolve(reference, against: location.document)
            let document = file.isEmpty ? location.document : file
            let fragment = reference.firstIndex(of: "#").map { String(reference[reference.index(after: $0)...]) } ?? ""
            let pointer = fragment.removingPercentEncoding ?? fragment
            guard let root = documents[document], let tokens = Self.tokens(pointer), let target = Self.value(at: tokens, in: root)
            else { throw error(at: location, "cannot resolve $ref '\(reference)'") }
            value = target
            location = Location(document: document, tokens: tokens)
        }
        return (value, location)
    }

    func error(at location: Location, _ message: String) -> OpenAPILoadError {
        OpenAPILoadError(file: paths[location.document] ?? location.document, message: "\(location.pointer): \(message)")
    }

    static func tokens(_ pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    static func value(at tokens: [String], in root: JSONValue) -> JSONValue? {
        var current = root
        for token in tokens {
            switch current {
            case .object: guard let next = current[token] else { return nil }; current = next
            case .array(let items): guard let index = Int(token), items.indices.contains(index) else { return nil }; current = items[index]
            default: return nil
            }
        }
        return current
    }

    /// A place in one of the documents.
    struct Location {
        var document: String
        var tokens: [String]

        func appending(_ more: String...) -> Location { Location(document: document, tokens: tokens + more) }

        var pointer: String {
            tokens.map { "/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1") }.joined()
        }

        /// `document#pointer`, as the schema compiler takes it.
        var uri: String { document + "#" + pointer }
    }
}
