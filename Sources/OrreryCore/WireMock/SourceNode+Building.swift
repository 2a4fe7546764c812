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
    /// The tree with its fractional numbers written as WireMock (Jackson, Java's `Double.toString`) writes them:
    /// `1.5`, `100.0`, and from ten million up or below a thousandth `1.23456789012E9`. Whole numbers stay as written.
    var withJacksonNumbers: SourceNode {
        switch value {
        case .number(let number, let text) where text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }):
            return SourceNode(.number(number, text: Self.javaDouble(number)), line: line)
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

    static func javaDouble(_ number: Double) -> String {
        guard number.isFinite else { return String(number) }
        let magnitude = abs(number)
        if magnitude == 0 || (magnitude >= 1e-3 && magnitude < 1e7) {
            // Swift's shortest form is Java's in this range ("100.0", "0.001").
            return String(number)
        }
        // The shortest digits that read back as the number, as one digit, a point, the rest and the exponent.
        var text = String(magnitude)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            text = String(text[..<e])
        }
        let point = text.firstIndex(of: ".") ?? text.endIndex
        let whole = String(text[..<point])
        let fraction = point < text.endIndex ? String(text[text.index(after: point)...]) : ""
        var digits = whole + fraction
        exponent += whole.count - 1
        while digits.hasPrefix("0"), digits.count > 1 {
            digits.removeFirst()
            exponent -= 1
        }
        while digits.hasSuffix("0"), digits.count > 1 { digits.removeLast() }
        let mantissa = String(digits.prefix(1)) + "." + (digits.count > 1 ? String(digits.dropFirst()) : "0")
        return (number < 0 ? "-" : "") + mantissa + "E" + String(exponent)
    }
}
