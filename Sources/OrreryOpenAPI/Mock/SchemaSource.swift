import Foundation
import OrreryCore

/// A spec's schemas as written, for what the compiled validator does not give: the types a parameter's text is
/// read as, and the shapes a body is generated from. `$ref`s are followed across the spec's files.
struct SchemaSource: Sendable {
    let documents: [String: JSONValue]

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
            current = (file.isEmpty ? document : file) + "#" + (fragment.removingPercentEncoding ?? fragment)
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
