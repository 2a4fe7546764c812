// Native stub trees built by the WireMock converter keep the WireMock file's lines, so that the stub decoder's own
// errors point into the mapping file.
extension SourceNode {
    static func text(_ text: String, line: Int) -> SourceNode {
        SourceNode(.string(text), line: line)
    }

    static func integer(_ value: Int, line: Int) -> SourceNode {
        SourceNode(.number(Double(value), text: String(value)), line: line)
    }

    static func flag(_ value: Bool, line: Int) -> SourceNode {
        SourceNode(.bool(value), line: line)
    }

    static func mapping(_ members: [(String, SourceNode)], line: Int) -> SourceNode {
        SourceNode(.object(members.map { (key: $0.0, keyLine: $0.1.line, value: $0.1) }), line: line)
    }

    static func list(_ items: [SourceNode], line: Int) -> SourceNode {
        SourceNode(.array(items), line: line)
    }

    /// The members of an object, or nil.
    var members: [(key: String, keyLine: Int, value: SourceNode)]? {
        guard case .object(let members) = value else { return nil }
        return members
    }

    /// The text of a string node, or nil.
    var stringValue: String? {
        guard case .string(let text) = value else { return nil }
        return text
    }

    /// The value of a number node as an integer, when it is a whole number.
    var integerValue: Int? {
        guard case .number(let number, _) = value, number == number.rounded(), abs(number) < 1e15 else { return nil }
        return Int(number)
    }

    /// A new node with `member` in front of the object's members (or in place of one of that name).
    func setting(_ key: String, _ member: SourceNode) -> SourceNode {
        guard var members = members else { return self }
        members.removeAll { $0.key == key }
        members.insert((key: key, keyLine: member.line, value: member), at: 0)
        return SourceNode(.object(members), line: line)
    }
}

extension SourceNode {
    /// The tree with its fractional numbers written as WireMock 2.35 writes a `jsonBody`: trailing zeros of the
    /// fraction dropped (`2.0` is `2`, `1.50` is `1.5`); other numbers stay as written.
    var withJacksonNumbers: SourceNode {
        switch value {
        case .number(let number, let text)
        where text.contains(".") && !text.contains(where: { $0 == "e" || $0 == "E" }):
            return SourceNode(.number(number, text: Self.withoutTrailingZeros(text)), line: line)
        case .array(let items):
            return SourceNode(.array(items.map(\.withJacksonNumbers)), line: line)
        case .object(let members):
            return SourceNode(
                .object(members.map { (key: $0.key, keyLine: $0.keyLine, value: $0.value.withJacksonNumbers) }),
                line: line)
        default:
            return self
        }
    }

    static func withoutTrailingZeros(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var result = Substring(text)
        while result.hasSuffix("0") { result = result.dropLast() }
        if result.hasSuffix(".") { result = result.dropLast() }
        return String(result)
    }
}
