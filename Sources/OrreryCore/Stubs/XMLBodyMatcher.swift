/// What the nodes an `xpath` body matcher selects must be; any one of them may satisfy it.
public enum XPathCondition: Sendable, CustomStringConvertible {
    /// The expression is true: it selects a node, or gives a non-empty text, a non-zero number or `true`.
    case holds
    /// A selected node's text (its string value) is exactly this.
    case equalTo(String)
    case matches(Pattern)
    case contains(String)

    public static let names = ["equalTo", "matches", "contains"]

    public func holds(_ path: XPath, in tree: XMLTree) -> Bool {
        switch self {
        case .holds: return path.holds(in: tree)
        case .equalTo(let expected): return path.texts(in: tree).contains(expected)
        case .matches(let pattern): return path.texts(in: tree).contains(where: pattern.matches)
        case .contains(let part): return path.texts(in: tree).contains { $0.contains(part) }
        }
    }

    public var description: String {
        switch self {
        case .holds: "true"
        case .equalTo(let text): "equal to \"\(text.prefix(80))\""
        case .matches(let pattern): "matching /\(pattern.source)/"
        case .contains(let text): "containing \"\(text)\""
        }
    }
}

// The `xml` and `xpath` body operators in stub files.
extension StubDecoder {
    /// `xml: "<a>...</a>"`: the text must be one XML document.
    mutating func xmlMatcher(_ node: SourceNode) -> BodyMatcher? {
        guard let text = string(node, "xml") else { return nil }
        do {
            return .xml(try XMLTree(parsing: text))
        } catch {
            fail(node.line, "'xml' is not an XML document (\(error))")
            return nil
        }
    }

    /// `{ xpath: "//a", equalTo: "7" }`: at most one of equalTo, matches or contains beside the expression.
    mutating func xpathMatcher(
        _ pathNode: SourceNode, members: [(key: String, keyLine: Int, value: SourceNode)]
    ) -> BodyMatcher? {
        let errorCount = errors.count
        for member in members where member.key != "xpath" && !XPathCondition.names.contains(member.key) {
            let hint = Suggestion.hint(for: member.key, in: XPathCondition.names)
            fail(
                member.keyLine,
                "beside 'xpath' only equalTo, matches or contains may stand (what the text must be), not '\(member.key)'\(hint); combine other conditions with allOf")
        }
        checkExclusive(members, XPathCondition.names)
        guard let source = string(pathNode, "xpath") else { return nil }
        let path: XPath
        do {
            path = try XPath(source)
        } catch {
            fail(pathNode.line, "'xpath' \(source): \(error.message)")
            return nil
        }
        var condition = XPathCondition.holds
        if let expected = members.first(where: { $0.key == "equalTo" })?.value {
            if let text = expected.scalarText { condition = .equalTo(text) } else { fail(expected.line, "'equalTo' beside 'xpath' must be text") }
        } else if let regex = members.first(where: { $0.key == "matches" })?.value {
            if let compiled = pattern(regex, "matches") { condition = .matches(compiled) }
        } else if let part = members.first(where: { $0.key == "contains" })?.value {
            if let text = string(part, "contains") { condition = .contains(text) }
        }
        return errors.count == errorCount ? .xpath(path, condition) : nil
    }
}
