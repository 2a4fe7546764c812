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
