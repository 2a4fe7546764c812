/// A JSON value that keeps object keys in the order they were written, so encoded bodies read as the user wrote them.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The number and its text as written, so `1.50` is served back as `1.50`.
    case number(Double, text: String)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    /// JSON equality as a matcher wants it: object key order is ignored, numbers compare by value.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        matches(lhs, rhs, wildcard: nil)
    }

    /// `expected` and `actual` equal as `==` has it, where the string `wildcard` in `expected` stands for any value.
    public static func matches(_ expected: JSONValue, _ actual: JSONValue, wildcard: String?) -> Bool {
        switch (expected, actual) {
        case (.string(let a), _) where a == wildcard: return true
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a, _), .number(let b, _)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { matches($0, $1, wildcard: wildcard) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            var remaining = [String: JSONValue](b, uniquingKeysWith: { _, last in last })
            for (key, value) in a {
                guard let other = remaining.removeValue(forKey: key), matches(value, other, wildcard: wildcard) else {
                    return false
                }
            }
            return remaining.isEmpty
        default: return false
        }
    }

    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first(where: { $0.0 == key })?.1
    }

    /// The members of an object, in order; nil for anything else.
    public var objectMembers: [(String, JSONValue)]? {
        if case .object(let members) = self { return members }
        return nil
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// Parses UTF-8 JSON text.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        try JSONSourceParser.parse(Array(bytes)).jsonValue
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Compact JSON text, keys in their stored order.
    public var encoded: String { String(decoding: encodedBytes, as: UTF8.self) }

    /// Compact JSON as UTF-8 bytes (the traffic log writes these as they are).
    public var encodedBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        encode(into: &out, indent: nil, depth: 0)
        return out
    }

    /// Indented JSON text for humans (admin API listings).
    public var prettyEncoded: String {
        var out: [UInt8] = []
        encode(into: &out, indent: Array("  ".utf8), depth: 0)
        return String(decoding: out, as: UTF8.self)
    }

    // Written as bytes: appending to a [UInt8] costs a fraction of appending scalars to a String.
    private func encode(into out: inout [UInt8], indent: [UInt8]?, depth: Int) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let flag): out += (flag ? "true" : "false").utf8
        case .number(_, let text): out += text.utf8
        case .string(let text): Self.encodeString(text, into: &out)
        case .array(let items):
            guard !items.isEmpty else {
                out += "[]".utf8
                return
            }
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent: indent, depth: depth + 1)
                item.encode(into: &out, indent: indent, depth: depth + 1)
            }
            newline(&out, indent: indent, depth: depth)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else {
                out += "{}".utf8
                return
            }
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent: indent, depth: depth + 1)
                Self.encodeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                value.encode(into: &out, indent: indent, depth: depth + 1)
            }
            newline(&out, indent: indent, depth: depth)
            out.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ out: inout [UInt8], indent: [UInt8]?, depth: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        for _ in 0..<depth { out += indent }
    }

    static func encodeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        // Most strings need no escaping: copied whole, from the string's own storage.
        let copied = text.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if !copied {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): out += #"\""#.utf8
                case UInt8(ascii: "\\"): out += #"\\"#.utf8
                case UInt8(ascii: "\n"): out += #"\n"#.utf8
                case UInt8(ascii: "\r"): out += #"\r"#.utf8
                case UInt8(ascii: "\t"): out += #"\t"#.utf8
                case ..<0x20:
                    let hex = Array(String(byte, radix: 16).utf8)
                    out += #"\u"#.utf8
                    out += Array(repeating: UInt8(ascii: "0"), count: 4 - hex.count) + hex
                default: out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    public static func string(_ text: String?) -> JSONValue {
        text.map { .string($0) } ?? .null
    }

    public static func int(_ value: Int) -> JSONValue {
        .number(Double(value), text: String(value))
    }
}
