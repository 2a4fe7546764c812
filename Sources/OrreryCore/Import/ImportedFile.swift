/// One stub file an import writes, with the body files its stubs refer to.
public struct ImportedFile: Sendable {
    /// Bodies larger than this go to body files, to keep stub files readable.
    public static let inlineBodyLimit = 4096

    /// The path under the output folder (`orders.yaml`, `shop/orders.yaml`).
    public let path: String
    public private(set) var text: String
    public private(set) var stubCount = 0
    /// Paths relative to the output folder.
    public private(set) var bodyFiles: [(path: String, bytes: [UInt8])] = []

    public init(path: String, comment: String) {
        self.path = path
        text = comment.split(separator: "\n", omittingEmptySubsequences: false).map { "# " + $0 + "\n" }.joined()
    }

    mutating func add(_ members: [(String, YAMLText.Value)]) {
        YAMLText.listItem(members, indent: 0, into: &text)
        stubCount += 1
    }

    /// A stub already written as a list item (`ImportedFile.render`), with more members at its end.
    mutating func add(rendered item: String, appending members: [(String, YAMLText.Value)] = []) {
        text += item
        YAMLText.mapping(members, indent: 2, into: &text)
        stubCount += 1
    }

    /// A stub as the list item `add` would write: rendered early, the text is far smaller than the tree.
    static func render(_ members: [(String, YAMLText.Value)]) -> String {
        var item = ""
        YAMLText.listItem(members, indent: 0, into: &item)
        return item
    }

    /// `body: text` for a short UTF-8 body, else `bodyFile:` naming a new body file beside the stub file.
    mutating func body(_ bytes: [UInt8], contentType: String?) -> (String, YAMLText.Value) {
        if bytes.count <= Self.inlineBodyLimit, let text = String(validating: bytes, as: UTF8.self) {
            return ("body", .text(text))
        }
        let stem = path.split(separator: "/").last.map { String($0.split(separator: ".").first ?? $0) } ?? "stubs"
        let folder = path.split(separator: "/").dropLast().joined(separator: "/")
        let relative = "bodies/\(stem)/\(bodyFiles.count + 1).\(Self.fileExtension(contentType, bytes))"
        bodyFiles.append(((folder.isEmpty ? "" : folder + "/") + relative, bytes))
        return ("bodyFile", .scalar(relative))
    }

    static func fileExtension(_ contentType: String?, _ bytes: [UInt8]) -> String {
        let type = contentType?.lowercased() ?? ""
        if type.contains("json") { return "json" }
        if type.contains("xml") { return "xml" }
        if type.contains("html") { return "html" }
        if type.contains("javascript") { return "js" }
        if type.contains("css") { return "css" }
        if type.hasPrefix("image/png") { return "png" }
        if type.hasPrefix("image/jpeg") { return "jpg" }
        if type.hasPrefix("text/") || String(validating: bytes, as: UTF8.self) != nil { return "txt" }
        return "bin"
    }

    /// A name for a file made from a collection or folder name: letters, digits, `-` and `_`, lower case.
    public static func fileName(_ name: String, fallback: String) -> String {
        var out = ""
        var lastWasDash = false
        for character in name.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber || character == "_") {
                out.append(character)
                lastWasDash = false
            } else if !lastWasDash && !out.isEmpty {
                out.append("-")
                lastWasDash = true
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? fallback : String(out.prefix(80))
    }
}

extension YAMLText.Value {
    /// A JSON value as YAML: a flow collection for lists and objects, text for a string.
    static func jsonValue(_ value: JSONValue) -> YAMLText.Value {
        if case .string(let text) = value { return .scalar(text) }
        return .json(value)
    }
}
