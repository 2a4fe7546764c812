import Foundation

// Request matchers: value operators for headers, query parameters and form fields, and body operators.
extension StubDecoder {
    static let jsonPathConditions = ["equalTo", "matches", "contains"]
    static let jsonOptionKeys = ["ignoreExtraFields", "ignoreArrayOrder"]

    mutating func valueMatchers(_ node: SourceNode, what: String) -> [(String, ValueMatcher)] {
        guard case .object(let members) = node.value else {
            fail(node.line, "\(what)s must be a mapping of names to values, not \(node.kindName)")
            return []
        }
        var matchers: [(String, ValueMatcher)] = []
        for member in members {
            if let matcher = valueMatcher(member.value, what: "\(what) '\(member.key)'") {
                matchers.append((member.key, matcher))
            }
        }
        return matchers
    }

    mutating func valueMatcher(_ node: SourceNode, what: String) -> ValueMatcher? {
        // A redacted value (as recordings write it) stands for any value.
        if let text = node.scalarText { return text == Redactor.placeholder ? .absent(false) : .equalTo(text) }
        guard case .object(let members) = node.value, members.count == 1, let member = members.first else {
            fail(node.line, "\(what) must be a value or one operator such as { matches: regex } (combine several with allOf)")
            return nil
        }
        switch member.key {
        case "equalTo": return string(member.value, "equalTo").map { .equalTo($0) }
        case "contains": return string(member.value, "contains").map { .contains($0) }
        case "matches": return pattern(member.value, "matches").map { .matches($0) }
        case "doesNotMatch": return pattern(member.value, "doesNotMatch").map { .doesNotMatch($0) }
        case "absent":
            guard case .bool(let flag) = member.value.value else {
                fail(member.value.line, "'absent' must be true or false")
                return nil
            }
            return .absent(flag)
        case "anyOf", "allOf":
            guard let items = operands(member.value, member.key) else { return nil }
            let matchers = items.compactMap { valueMatcher($0, what: what) }
            guard matchers.count == items.count else { return nil }
            return member.key == "anyOf" ? .anyOf(matchers) : .allOf(matchers)
        case "not":
            return valueMatcher(member.value, what: what).map { .not($0) }
        default:
            fail(member.keyLine, "unknown matcher '\(member.key)'\(Suggestion.hint(for: member.key, in: ValueMatcher.operatorNames))")
            return nil
        }
    }

    /// The list of an `anyOf` or `allOf`: one or more operands.
    private mutating func operands(_ node: SourceNode, _ key: String) -> [SourceNode]? {
        guard case .array(let items) = node.value else {
            fail(node.line, "'\(key)' must be a list of matchers, not \(node.kindName)")
            return nil
        }
        guard !items.isEmpty else {
            fail(node.line, "'\(key)' needs at least one matcher")
            return nil
        }
        return items
    }

    /// A body operand of `anyOf`, `allOf` or `not`: text (exact), or a mapping whose operators must all hold.
    private mutating func bodyOperand(_ node: SourceNode) -> BodyMatcher? {
        let errorCount = errors.count
        let matchers = bodyMatchers(node)
        guard errors.count == errorCount, let first = matchers.first else { return nil }
        return matchers.count == 1 ? first : .allOf(matchers)
    }

    mutating func bodyMatchers(_ node: SourceNode) -> [BodyMatcher] {
        if let text = node.scalarText { return [.equalTo(text)] }
        guard case .object(let members) = node.value, !members.isEmpty else {
            fail(node.line, "'body' must be text or a mapping of matchers (\(BodyMatcher.operatorNames.joined(separator: ", ")))")
            return []
        }
        if let pathNode = node["jsonPath"] {
            return jsonPathMatcher(pathNode, members: members).map { [$0] } ?? []
        }
        if let pathNode = node["xpath"] {
            return xpathMatcher(pathNode, members: members).map { [$0] } ?? []
        }
        var matchers: [BodyMatcher] = []
        for member in members {
            switch member.key {
            case "equalTo":
                if let text = string(member.value, "equalTo") { matchers.append(.equalTo(text)) }
            case "contains":
                if let text = string(member.value, "contains") { matchers.append(.contains(text)) }
            case "matches":
                if let compiled = pattern(member.value, "matches") { matchers.append(.matches(compiled)) }
            case "json":
                matchers.append(.json(member.value.jsonValue, options: jsonOptions(node)))
            case "ignoreExtraFields", "ignoreArrayOrder":
                if node["json"] == nil {
                    fail(member.keyLine, "'\(member.key)' goes beside 'json', which it loosens")
                } else if case .bool = member.value.value {
                    break
                } else {
                    fail(member.value.line, "'\(member.key)' must be true or false")
                }
            case "form":
                matchers.append(.form(valueMatchers(member.value, what: "form field")))
            case "binaryEqualTo":
                if let text = string(member.value, "binaryEqualTo") {
                    if let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) {
                        matchers.append(.binaryEqualTo(Array(data)))
                    } else {
                        fail(member.value.line, "'binaryEqualTo' must be base64")
                    }
                }
            case "anyOf", "allOf":
                guard let items = operands(member.value, member.key) else { continue }
                let operands = items.compactMap { bodyOperand($0) }
                guard operands.count == items.count else { continue }
                matchers.append(member.key == "anyOf" ? .anyOf(operands) : .allOf(operands))
            case "not":
                if let operand = bodyOperand(member.value) { matchers.append(.not(operand)) }
            case "xml":
                if let matcher = xmlMatcher(member.value) { matchers.append(matcher) }
            case "graphql":
                if let matcher = graphQLMatcher(member.value) { matchers.append(matcher) }
            default:
                let names = BodyMatcher.operatorNames + Self.jsonOptionKeys
                fail(member.keyLine, "unknown body matcher '\(member.key)'\(Suggestion.hint(for: member.key, in: names))")
            }
        }
        return matchers
    }

    private func jsonOptions(_ node: SourceNode) -> JSONMatchOptions {
        func flag(_ key: String) -> Bool {
            if case .bool(let value)? = node[key]?.value { return value }
            return false
        }
        return JSONMatchOptions(ignoreExtraFields: flag("ignoreExtraFields"), ignoreArrayOrder: flag("ignoreArrayOrder"))
    }

    /// `{ jsonPath: "$.a.b" }`, with at most one of `equalTo`, `matches` or `contains` beside it.
    private mutating func jsonPathMatcher(
        _ pathNode: SourceNode, members: [(key: String, keyLine: Int, value: SourceNode)]
    ) -> BodyMatcher? {
        let errorCount = errors.count
        for member in members where member.key != "jsonPath" && !Self.jsonPathConditions.contains(member.key) {
            let hint = Suggestion.hint(for: member.key, in: Self.jsonPathConditions)
            fail(
                member.keyLine,
                "beside 'jsonPath' only equalTo, matches or contains may stand (what the value must be), not '\(member.key)'\(hint); combine other conditions with allOf")
        }
        checkExclusive(members, Self.jsonPathConditions)
        guard let source = string(pathNode, "jsonPath") else { return nil }
        let path: JSONPath
        do {
            path = try JSONPath(source)
        } catch {
            fail(pathNode.line, "'jsonPath' \(source): \(error.message)")
            return nil
        }
        var condition = JSONPathCondition.present
        if let expected = members.first(where: { $0.key == "equalTo" })?.value {
            condition = .equalTo(expected.jsonValue)
        } else if let regex = members.first(where: { $0.key == "matches" })?.value {
            if let compiled = pattern(regex, "matches") { condition = .matches(compiled) }
        } else if let part = members.first(where: { $0.key == "contains" })?.value {
            if let text = string(part, "contains") { condition = .contains(text) }
        }
        return errors.count == errorCount ? .jsonPath(path, condition) : nil
    }
}
