import Foundation
import OrreryCore

/// A spec's schemas as written, for what the compiled validator does not give: the types a parameter's text is
/// read as, and the shapes a body is generated from. `$ref`s are followed across the spec's files.
struct SchemaSource: Sendable {
    let documents: [String: JSONValue]
    /// 3.1 schemas' `$id`s and `$anchor`s (`base#anchor`), resolved, to the location of their schema.
    private let identifiers: [String: String]

    init(documents: [String: JSONValue]) {
        self.documents = documents
        var identifiers: [String: String] = [:]
        for (uri, document) in documents {
            func walk(_ value: JSONValue, _ pointer: String, base: String) {
                switch value {
                case .object(let members):
                    var base = base
                    if case .string(let id)? = value["$id"] {
                        let resolved = SpecDocuments.resolve(id, against: uri)
                        base = resolved.isEmpty ? uri : resolved
                        identifiers[base] = uri + "#" + pointer
                    }
                    if case .string(let anchor)? = value["$anchor"] {
                        identifiers[base + "#" + anchor] = uri + "#" + pointer
                    }
                    for (key, child) in members {
                        let escaped = key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(
                            of: "/", with: "~1")
                        walk(child, pointer + "/" + escaped, base: base)
                    }
                case .array(let items):
                    for (index, item) in items.enumerated() { walk(item, pointer + "/\(index)", base: base) }
                default:
                    break
                }
            }
            walk(document, "", base: uri)
        }
        self.identifiers = identifiers
    }

    /// The schema at a location (`file:///api.yaml#/components/schemas/Pet`), its `$ref`s followed, and the
    /// location it was found at; nil when nothing is there.
    func schema(at location: String) -> (value: JSONValue, location: String)? {
        var current = location
        for _ in 0..<32 {
            guard let (document, tokens) = split(current), let root = documents[document],
                let value = SpecDocuments.value(at: tokens, in: root)
            else { return nil }
            guard case .string(let reference)? = value["$ref"] else { return (value, current) }
            let file = SpecDocuments.resolve(reference, against: document)
            let fragment = reference.firstIndex(of: "#").map { String(reference[reference.index(after: $0)...]) } ?? ""
            let decoded = fragment.removingPercentEncoding ?? fragment
            let target = file.isEmpty ? document : file
            if let identified = identifiers[target + (decoded.hasPrefix("/") || decoded.isEmpty ? "" : "#" + decoded)] {
                // A schema's `$id` (and `$anchor`), not a file.
                current = decoded.hasPrefix("/") ? identified + decoded : identified
            } else {
                current = target + "#" + decoded
            }
        }
        return nil
    }

    /// The schema below a keyword of another (`properties/name`, `items`), followed.
    func child(of location: String, _ tokens: String...) -> (value: JSONValue, location: String)? {
        let escaped = tokens.map {
            $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        }
        return schema(at: location + "/" + escaped.joined(separator: "/"))
    }

    /// The types a schema names (`type`, a 3.1 list of them, or those of its `allOf`/`oneOf`/`anyOf` branches);
    /// empty when it names none.
    func types(at location: String, depth: Int = 0) -> [String] {
        guard depth < 8, let (schema, at) = schema(at: location) else { return [] }
        switch schema["type"] {
        case .string(let type)?: return [type]
        case .array(let list)?: return list.compactMap(\.stringValue)
        default: break
        }
        for keyword in ["allOf", "oneOf", "anyOf"] {
            guard case .array(let branches)? = schema[keyword] else { continue }
            for index in branches.indices {
                let found = types(at: at + "/\(keyword)/\(index)", depth: depth + 1)
                if !found.isEmpty { return found }
            }
        }
        if schema["properties"] != nil { return ["object"] }
        if schema["items"] != nil { return ["array"] }
        return []
    }

    private func split(_ location: String) -> (String, [String])? {
        let parts = location.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        guard let document = parts.first else { return nil }
        let pointer = parts.count > 1 ? String(parts[1]) : ""
        guard let tokens = SpecDocuments.tokens(pointer) else { return nil }
        return (String(document), tokens)
    }
}
