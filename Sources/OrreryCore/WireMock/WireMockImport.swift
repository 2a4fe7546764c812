/// Writes converted WireMock mappings as native stub files (YAML), the mapping's name and id kept.
public enum WireMockImport {
    /// The YAML of one mapping file's stubs: a list, with a note on where they came from and what priority means.
    /// `bodies` is the path from the YAML file's folder to the folder the root's `__files` are copied to.
    public static func yaml(for file: WireMockLoader.ConvertedFile, bodies: String, origin: String) -> String {
        var out = "# Imported from the WireMock mapping \(origin).\n"
        out += "# Priorities keep WireMock's order: its priority (1 highest, 5 when none is given) leads, and among\n"
        out += "# equals the mapping loaded last wins.\n"
        for mapping in file.mappings {
            guard case .object(let members) = mapping.stub.value else { continue }
            // Name and id first, as a reader looks for them; then the priority, the request and the response.
            let order = ["name", "id", "priority", "scenario", "requiredState", "newState", "request", "response"]
            let sorted = members.sorted { (order.firstIndex(of: $0.key) ?? order.count) < (order.firstIndex(of: $1.key) ?? order.count) }
            let converted = sorted.map { member in
                (member.key, value(rewritingBodyFile(member.value, key: member.key, bodies: bodies), key: member.key))
            }
            YAMLText.listItem(converted, indent: 0, into: &out)
        }
        return out
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
