import Foundation

/// Writes converted WireMock mappings as native stub files (YAML), the mapping's name and id kept.
public enum WireMockImport {
    /// Bodies over this size go to body files, as every importer writes them.
    public static let inlineBodyLimit = 4096

    /// A body file the import writes, by its path under the bodies folder.
    public struct BodyFile: Sendable {
        public var path: String
        public var bytes: [UInt8]
    }

    /// The YAML of one mapping file's stubs: a list, with a note on where they came from and what priority means.
    /// `bodies` is the path from the YAML file's folder to the folder the root's `__files` are copied to; bodies
    /// over 4 KB written in the mapping go to `inline/` files there, named after `stem`.
    public static func yaml(
        for file: WireMockLoader.ConvertedFile, bodies: String, origin: String, stem: String
    ) -> (text: String, bodyFiles: [BodyFile]) {
        var out = "# Imported from the WireMock mapping \(origin).\n"
        out += "# Priorities keep WireMock's order: its priority (1 highest, 5 when none is given) leads, and among\n"
        out += "# equals the mapping loaded last wins.\n"
        var bodyFiles: [BodyFile] = []
        for (index, mapping) in file.mappings.enumerated() {
            guard case .object(let members) = mapping.stub.value else { continue }
            // Name and id first, as a reader looks for them; then the priority, the request and the response.
            let order = ["name", "id", "priority", "scenario", "requiredState", "newState", "request", "response"]
            let sorted = members.sorted { (order.firstIndex(of: $0.key) ?? order.count) < (order.firstIndex(of: $1.key) ?? order.count) }
            let converted = sorted.map { member in
                var node = rewritingBodyFile(member.value, key: member.key, bodies: bodies)
                if member.key == "response", let large = largeBody(node) {
                    let name = "inline/\(stem)-\(index + 1).\(large.extension)"
                    bodyFiles.append(BodyFile(path: name, bytes: large.bytes))
                    node = removing(large.key, from: node).setting("bodyFile", .text(bodies + name, line: node.line))
                }
                return (member.key, value(node, key: member.key))
            }
            YAMLText.listItem(converted, indent: 0, into: &out)
        }
        return (out, bodyFiles)
    }

    /// A `body` or `json` over the inline limit: its key, bytes and a file extension.
    private static func largeBody(_ response: SourceNode) -> (key: String, bytes: [UInt8], extension: String)? {
        if let text = response["body"]?.stringValue, text.utf8.count > inlineBodyLimit {
            let first = text.first { !$0.isWhitespace }
            return ("body", Array(text.utf8), first == "{" || first == "[" ? "json" : "txt")
        }
        if let json = response["json"], case let bytes = json.jsonValue.encodedBytes, bytes.count > inlineBodyLimit {
            return ("json", bytes, "json")
        }
        return nil
    }

    private static func removing(_ key: String, from node: SourceNode) -> SourceNode {
        guard case .object(let members) = node.value else { return node }
        return SourceNode(.object(members.filter { $0.key != key }), line: node.line)
    }

    /// `bodyFile` names a file of the root's `__files`; the import copies them under `bodies`.
    private static func rewritingBodyFile(_ node: SourceNode, key: String, bodies: String) -> SourceNode {
        guard key == "response", let name = node["bodyFile"]?.stringValue else { return node }
        return node.setting("bodyFile", .text(bodies + name, line: node.line))
    }

    private static func value(_ node: SourceNode, key: String) -> YAMLText.Value {
        switch node.value {
        case .null: return .json(.null)
        case .bool(let flag): return .json(.bool(flag))
        case .number(let number, let text):
            if let whole = Int(text) { return .number(whole) }
            return .json(.number(number, text: text))
        case .string(let text):
            return key == "body" ? .text(text) : .scalar(text)
        case .array(let items):
            return .list(items.map { value($0, key: "") })
        case .object(let members):
            return .mapping(members.map { ($0.key, value($0.value, key: $0.key)) })
        }
    }
}
