/// Writes the small YAML that fixture files need, by hand so that every byte is chosen: plain words where they
/// are safe, literal blocks for readable bodies, double quotes with escapes for anything else.
///
/// libyaml reads YAML 1.1, so the rules here are stricter than YAML 1.2 needs (no `yes`, no tabs in blocks).
enum YAMLText {
    /// A value of a mapping or list item, as it follows `key:` or `-`.
    indirect enum Value {
        case scalar(String)
        case number(Int)
        /// A body: a literal block when that keeps the bytes exact, else double-quoted.
        case text(String)
        /// JSON written as a YAML flow collection on one line.
        case json(JSONValue)
        case mapping([(String, Value)])
        case list([Value])
        /// Text written as it is (a flow scalar or an empty collection of a JSON tree).
        case raw(String)
    }

    /// JSON as a block YAML tree: objects as mappings (key order kept), arrays as lists, strings plain where safe
    /// and double-quoted otherwise, numbers as written; an array inside an array stays a flow collection.
    static func tree(_ json: JSONValue) -> Value {
        switch json {
        case .object(let members):
            return members.isEmpty ? .raw("{}") : .mapping(members.map { ($0.0, tree($0.1)) })
        case .array(let items):
            guard !items.isEmpty else { return .raw("[]") }
            return .list(
                items.map { item in
                    if case .array = item { return .raw(flow(item)) }
                    return tree(item)
                })
        case .string(let text):
            return .scalar(text)
        default:
            return .raw(flow(json))
        }
    }

    /// `members` as a block mapping at `indent` spaces, one line per member (more for blocks and nested values).
    static func mapping(_ members: [(String, Value)], indent: Int, into out: inout String) {
        let pad = String(repeating: " ", count: indent)
        for (key, value) in members {
            out += pad + self.key(key) + ":"
            value_(value, indent: indent, into: &out)
        }
    }

    /// A list item (`- ` then a mapping whose first member shares the dash's line).
    static func listItem(_ members: [(String, Value)], indent: Int, into out: inout String) {
        var item = ""
        mapping(members, indent: indent + 2, into: &item)
        // The first line's indentation becomes the dash.
        out += String(repeating: " ", count: indent) + "- " + item.dropFirst(indent + 2)
    }

    /// Writes what follows `key:` (a space and a scalar, or a newline and a nested block).
    private static func value_(_ value: Value, indent: Int, into out: inout String) {
        switch value {
        case .scalar(let text): out += " " + scalar(text) + "\n"
        case .number(let number): out += " \(number)\n"
        case .text(let text):
            if let block = literalBlock(text, indent: indent + 2) {
                out += " " + block
            } else {
                out += " " + doubleQuoted(text) + "\n"
            }
        case .json(let json): out += " " + flow(json) + "\n"
        case .raw(let text): out += " " + text + "\n"
        case .mapping(let members):
            if members.isEmpty {
                out += " {}\n"
            } else {
                out += "\n"
                mapping(members, indent: indent + 2, into: &out)
            }
        case .list(let items):
            if items.isEmpty {
                out += " []\n"
                return
            }
            out += "\n"
            for item in items {
                if case .mapping(let members) = item {
                    listItem(members, indent: indent + 2, into: &out)
                } else {
                    var line = ""
                    value_(item, indent: indent + 2, into: &line)
                    out += String(repeating: " ", count: indent + 2) + "-" + line
                }
            }
        }
    }

    // MARK: - Scalars

    /// Words YAML 1.1 would read as something other than text.
    private static let reservedWords: Set<String> = ["true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"]

    /// A mapping key: plain when it is a simple name, else double-quoted.
    static func key(_ text: String) -> String {
        let isSimple = text.utf8.first.map(isLetter) == true
            && text.utf8.allSatisfy { isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        return isSimple && !reservedWords.contains(text.lowercased()) ? text : doubleQuoted(text)
    }

    /// A scalar: plain when it cannot be read as anything but this text (`application/json`, `/api/v1/users`),
    /// else double-quoted.
    static func scalar(_ text: String) -> String {
        isPlainSafe(text) ? text : doubleQuoted(text)
    }

    static func isPlainSafe(_ text: String) -> Bool {
        guard let first = text.utf8.first, isLetter(first) || first == UInt8(ascii: "/"), text.utf8.last != UInt8(ascii: " "),
            !reservedWords.contains(text.lowercased())
        else { return false }
        return text.utf8.allSatisfy { byte in
            isLetter(byte) || isDigit(byte) || "/_.~?&=%+,;()- ".utf8.contains(byte)
        }
    }

    /// Double-quoted with YAML's escapes: exact for any text.
    static func doubleQuoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if isPrintable(scalar) {
                    out.unicodeScalars.append(scalar)
                } else if scalar.value <= 0xFF {
                    out += "\\x" + hex(scalar.value, digits: 2)
                } else if scalar.value <= 0xFFFF {
                    out += "\\u" + hex(scalar.value, digits: 4)
                } else {
                    out += "\\U" + hex(scalar.value, digits: 8)
                }
            }
        }
        return out + "\""
    }

    /// `|` or `|-` and the text's lines indented, when a literal block gives back exactly `text`; nil otherwise.
    static func literalBlock(_ text: String, indent: Int) -> String? {
        guard !text.isEmpty, !text.hasPrefix(" "), !text.hasPrefix("\n") else { return nil }
        var body = Substring(text)
        let keepsNewline = body.hasSuffix("\n")
        if keepsNewline { body = body.dropLast() }
        // Clipping keeps one final newline; more than one would need `|+`, and trailing blank lines read badly.
        guard !body.hasSuffix("\n") else { return nil }
        for scalar in body.unicodeScalars where scalar != "\n" && !isPrintable(scalar) { return nil }
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        guard !lines.contains(where: { $0.hasSuffix(" ") }) else { return nil }
        let pad = String(repeating: " ", count: indent)
        var out = keepsNewline ? "|\n" : "|-\n"
        for line in lines {
            out += line.isEmpty ? "\n" : pad + line + "\n"
        }
        return out
    }

    /// JSON as a one-line YAML flow collection, strings double-quoted, numbers as written.
    static func flow(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(_, let text): text
        case .string(let text): doubleQuoted(text)
        case .array(let items): "[" + items.map(flow).joined(separator: ", ") + "]"
        case .object(let members): "{" + members.map { doubleQuoted($0.0) + ": " + flow($0.1) }.joined(separator: ", ") + "}"
        }
    }

    /// What YAML 1.1 allows unescaped in a scalar (and what a reader can see): no controls, no line or
    /// paragraph separators, no byte-order mark. Tabs are escaped too, so blocks never hold one.
    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0x7E: true
        case 0xA0...0xD7FF: scalar.value != 0x2028 && scalar.value != 0x2029
        case 0xE000...0xFFFD: scalar.value != 0xFEFF
        case 0x10000...0x10FFFF: true
        default: false
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
