import Foundation

// The request side of a mapping: URL, method, query, headers, cookies, credentials and body patterns.
extension WireMockConverter {
    static let requestKeys: Set<String> = [
        "method", "url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate", "pathParameters",
        "queryParameters", "headers", "cookies", "basicAuthCredentials", "bodyPatterns", "host", "formParameters",
    ]

    /// The native request, and the path parameters its URL names (templates may read them).
    mutating func convertRequest(_ node: SourceNode, path: String) -> (SourceNode, [String]) {
        var out: [(String, SourceNode)] = []
        var parameterNames: [String] = []
        guard let members = node.members else {
            report(node, path, "'request' must be an object, not \(node.kindName)", .skipped)
            return (.mapping([], line: node.line), [])
        }
        for member in members where !Self.requestKeys.contains(member.key) {
            report(member.value, "\(path).\(member.key)", "request matcher '\(member.key)' is not supported", .skipped)
        }
        if let method = node["method"]?.scalarText, method != "ANY" {
            out.append(("method", .text(method, line: node["method"]?.line ?? node.line)))
        }
        if let host = node["host"] {
            if let text = host.stringValue {
                out.append(("host", .text(text, line: host.line)))
            } else if let text = host["equalTo"]?.stringValue, host.members?.count == 1 {
                out.append(("host", .text(text, line: host.line)))
            } else {
                report(host, "\(path).host", "only a host given as text or { equalTo } is supported", .skipped)
            }
        }
        if let url = urlCondition(node, path: path, parameterNames: &parameterNames) { out.append(url) }
        var headers: [(String, SourceNode)] = []
        if let given = node["headers"] {
            headers = valueMatchers(given, path: "\(path).headers")
        }
        if let credentials = node["basicAuthCredentials"] {
            if let user = credentials["username"]?.stringValue, let password = credentials["password"]?.stringValue {
                let value = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
                appendHeader(&headers, "Authorization", .text(value, line: credentials.line))
            } else {
                report(credentials, "\(path).basicAuthCredentials", "needs 'username' and 'password' as text", .skipped)
            }
        }
        if let cookies = node["cookies"] {
            for (_, matcher) in cookieMatchers(cookies, path: "\(path).cookies") {
                appendHeader(&headers, "Cookie", matcher)
            }
        }
        if !headers.isEmpty { out.append(("headers", .mapping(headers, line: node["headers"]?.line ?? node.line))) }
        if let query = node["queryParameters"] {
            let matchers = valueMatchers(query, path: "\(path).queryParameters")
            if !matchers.isEmpty { out.append(("query", .mapping(matchers, line: query.line))) }
        }
        var bodies: [SourceNode] = []
        if let form = node["formParameters"] {
            let fields = valueMatchers(form, path: "\(path).formParameters")
            bodies.append(.mapping([("form", .mapping(fields, line: form.line))], line: form.line))
        }
        if let patterns = node["bodyPatterns"] {
            if case .array(let items) = patterns.value {
                for (index, item) in items.enumerated() {
                    if let body = bodyPattern(item, path: "\(path).bodyPatterns[\(index)]") { bodies.append(body) }
                }
            } else {
                report(patterns, "\(path).bodyPatterns", "'bodyPatterns' must be a list", .skipped)
            }
        }
        if bodies.count == 1 {
            out.append(("body", bodies[0]))
        } else if bodies.count > 1 {
            out.append(("body", .mapping([("allOf", .list(bodies, line: node.line))], line: node.line)))
        }
        return (.mapping(out, line: node.line), parameterNames)
    }

    /// Several conditions on one header hold together.
    private func appendHeader(_ headers: inout [(String, SourceNode)], _ name: String, _ matcher: SourceNode) {
        if let index = headers.firstIndex(where: { $0.0.lowercased() == name.lowercased() }) {
            let existing = headers[index].1
            let merged: SourceNode
            if case .object(let members) = existing.value, members.count == 1, members[0].key == "allOf",
                case .array(let items) = members[0].value.value
            {
                merged = .mapping([("allOf", .list(items + [matcher], line: existing.line))], line: existing.line)
            } else {
                merged = .mapping([("allOf", .list([existing, matcher], line: existing.line))], line: existing.line)
            }
            headers[index].1 = merged
        } else {
            headers.append((name, matcher))
        }
    }

    /// The URL condition: `url` is the path and query exactly (in WireMock, the query in its order too),
    /// `urlPath` the path, the patterns whole-text regexes, `urlPathTemplate` a path with `{name}` segments.
    private mutating func urlCondition(
        _ node: SourceNode, path: String, parameterNames: inout [String]
    ) -> (String, SourceNode)? {
        let keys = ["url", "urlPath", "urlPattern", "urlPathPattern", "urlPathTemplate"].filter { node[$0] != nil }
        guard let key = keys.first, let value = node[key] else { return nil }
        if keys.count > 1 {
            report(value, path, "more than one URL condition (\(keys.joined(separator: ", "))); WireMock takes one", .skipped)
        }
        guard let text = value.stringValue else {
            report(value, "\(path).\(key)", "'\(key)' must be text", .skipped)
            return nil
        }
        if key != "urlPathTemplate", let parameters = node["pathParameters"] {
            report(parameters, "\(path).pathParameters", "'pathParameters' goes with 'urlPathTemplate'", .skipped)
        }
        switch key {
        case "url":
            // Orrery's `url` takes the query in any order; WireMock's is the text exactly.
            if let mark = text.firstIndex(of: "?") {
                // Orrery matches the decoded path, then the query as sent.
                let path = PercentDecoding.decode(text[..<mark])
                let regex = WireMockRegex.literal(path) + WireMockRegex.literal(String(text[mark...]))
                return ("urlPattern", .text(WireMockRegex.whole(regex), line: value.line))
            }
            return ("url", .text(Self.escapingBraces(text), line: value.line))
        case "urlPath":
            return ("path", .text(Self.escapingBraces(text), line: value.line))
        case "urlPattern":
            return ("urlPattern", .text(WireMockRegex.whole(WireMockRegex.decodingPathEscapes(text)), line: value.line))
        case "urlPathPattern":
            return ("pathPattern", .text(WireMockRegex.whole(WireMockRegex.decodingPathEscapes(text)), line: value.line))
        default:
            var template = text
            if let parameters = node["pathParameters"], let members = parameters.members {
                // A parameter that must equal a value is that value, as a literal segment.
                for member in members {
                    guard let fixed = member.value["equalTo"]?.stringValue, member.value.members?.count == 1 else {
                        report(
                            member.value, "\(path).pathParameters.\(member.key)",
                            "only 'equalTo' is supported for a path parameter", .skipped)
                        continue
                    }
                    template = template.replacingOccurrences(of: "{\(member.key)}", with: fixed)
                }
            }
            parameterNames = Self.parameterNames(in: template)
            return ("path", .text(template, line: value.line))
        }
    }

    /// Braces are path parameters in Orrery's paths; in WireMock's exact paths they are characters.
    static func escapingBraces(_ text: String) -> String {
        text.replacingOccurrences(of: "{", with: "%7B").replacingOccurrences(of: "}", with: "%7D")
    }

    static func parameterNames(in template: String) -> [String] {
        template.split(separator: "/").compactMap { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? String(segment.dropFirst().dropLast()) : nil
        }
    }

    /// Header, query and form conditions: `{ name: matcher }`.
    mutating func valueMatchers(_ node: SourceNode, path: String) -> [(String, SourceNode)] {
        guard let members = node.members else {
            report(node, path, "must be an object of names to matchers, not \(node.kindName)", .skipped)
            return []
        }
        return members.compactMap { member in
            valueMatcher(member.value, path: "\(path).\(member.key)").map { (member.key, $0) }
        }
    }

    /// A WireMock value matcher (`{ "equalTo": ... }`, `{ "matches": ... }`, ...) as an Orrery one.
    mutating func valueMatcher(_ node: SourceNode, path: String) -> SourceNode? {
        if let text = node.scalarText { return .text(text, line: node.line) }
        guard let members = node.members else {
            report(node, path, "a matcher must be an object, not \(node.kindName)", .skipped)
            return nil
        }
        let operators = members.filter { $0.key != "caseInsensitive" }
        guard operators.count == 1, let member = operators.first else {
            report(node, path, "expected one matcher, found \(operators.map(\.key))", .skipped)
            return nil
        }
        let line = member.value.line
        let here = "\(path).\(member.key)"
        let isCaseInsensitive = node["caseInsensitive"].map { if case .bool(true) = $0.value { true } else { false } } ?? false
        func one(_ key: String, _ value: SourceNode) -> SourceNode { .mapping([(key, value)], line: line) }
        switch member.key {
        case "equalTo":
            guard let text = member.value.scalarText else { break }
            return isCaseInsensitive
                ? one("matches", .text(WireMockRegex.caseInsensitive(text), line: line)) : one("equalTo", .text(text, line: line))
        case "contains":
            guard let text = member.value.scalarText else { break }
            return one("contains", .text(text, line: line))
        case "doesNotContain":
            guard let text = member.value.scalarText else { break }
            return one("not", one("contains", .text(text, line: line)))
        case "matches", "doesNotMatch":
            guard let text = member.value.scalarText else { break }
            return one(member.key, .text(WireMockRegex.whole(text), line: line))
        case "absent":
            guard case .bool(let flag) = member.value.value else { break }
            return one("absent", .flag(flag, line: line))
        case "and", "or":
            guard case .array(let items) = member.value.value, !items.isEmpty else { break }
            let converted = items.enumerated().compactMap { valueMatcher($1, path: "\(here)[\($0)]") }
            guard converted.count == items.count else { return nil }
            return one(member.key == "and" ? "allOf" : "anyOf", .list(converted, line: line))
        case "not":
            return valueMatcher(member.value, path: here).map { one("not", $0) }
        default:
            report(member.value, here, "matcher '\(member.key)' is not supported for headers, query or form values", .skipped)
            return nil
        }
        report(member.value, here, "'\(member.key)' has a value of the wrong kind (\(member.value.kindName))", .skipped)
        return nil
    }

    /// Cookie conditions as conditions on the `Cookie` header: `name=value` between semicolons.
    private mutating func cookieMatchers(_ node: SourceNode, path: String) -> [(String, SourceNode)] {
        guard let members = node.members else {
            report(node, path, "'cookies' must be an object of names to matchers", .skipped)
            return []
        }
        var out: [(String, SourceNode)] = []
        for member in members {
            let name = WireMockRegex.literal(member.key)
            let here = "\(path).\(member.key)"
            let matcher = member.value
            let value: String?
            if let text = matcher["equalTo"]?.scalarText {
                value = WireMockRegex.literal(text)
            } else if let text = matcher["contains"]?.scalarText {
                value = "[^;]*" + WireMockRegex.literal(text) + "[^;]*"
            } else if let text = matcher["matches"]?.scalarText {
                value = "(?:" + text + ")"
            } else {
                value = nil
            }
            guard let value, matcher.members?.count == 1 else {
                report(matcher, here, "only equalTo, contains and matches are supported for cookies", .skipped)
                continue
            }
            let regex = "(?:\\A|;\\s*)" + name + "=" + value + "(?:;|\\z)"
            out.append((member.key, .mapping([("matches", .text(regex, line: matcher.line))], line: matcher.line)))
        }
        return out
    }

    /// One of `bodyPatterns` as an Orrery body condition.
    mutating func bodyPattern(_ node: SourceNode, path: String) -> SourceNode? {
        guard let members = node.members else {
            report(node, path, "a body pattern must be an object, not \(node.kindName)", .skipped)
            return nil
        }
        let options: Set<String> = [
            "caseInsensitive", "ignoreArrayOrder", "ignoreExtraElements", "enablePlaceholders", "submatcher",
            "xPathNamespaces",
            "placeholderOpeningDelimiterRegex", "placeholderClosingDelimiterRegex", "exemptedComparisons",
            "ignoreOrderOfSameNode",
            "namespaceAwareness",
        ]
        var operators = members.filter { !options.contains($0.key) }
        // WireMock reads a JSONPath pattern and drops what is beside it (a `contains` meant for the value, say).
        if operators.count > 1, let jsonPath = operators.first(where: { $0.key == "matchesJsonPath" }) {
            for extra in operators where extra.key != "matchesJsonPath" {
                report(extra.value, "\(path).\(extra.key)", "beside 'matchesJsonPath' WireMock ignores '\(extra.key)'; put it in { expression, \(extra.key) }", .ignored)
            }
            operators = [jsonPath]
        }
        guard operators.count == 1, let member = operators.first else {
            report(node, path, "expected one body matcher, found \(operators.map(\.key))", .skipped)
            return nil
        }
        let line = member.value.line
        let here = "\(path).\(member.key)"
        func one(_ key: String, _ value: SourceNode) -> SourceNode { .mapping([(key, value)], line: line) }
        func flag(_ key: String) -> Bool { if case .bool(true)? = node[key]?.value { true } else { false } }
        switch member.key {
        case "equalTo":
            guard let text = member.value.scalarText else { break }
            return flag("caseInsensitive")
                ? one("matches", .text(WireMockRegex.caseInsensitive(text), line: line)) : one("equalTo", .text(text, line: line))
        case "contains":
            guard let text = member.value.scalarText else { break }
            return one("contains", .text(text, line: line))
        case "doesNotContain":
            guard let text = member.value.scalarText else { break }
            return one("not", one("contains", .text(text, line: line)))
        case "matches":
            guard let text = member.value.scalarText else { break }
            return one("matches", .text(WireMockRegex.whole(text), line: line))
        case "doesNotMatch":
            guard let text = member.value.scalarText else { break }
            return one("not", one("matches", .text(WireMockRegex.whole(text), line: line)))
        case "binaryEqualTo":
            guard let text = member.value.scalarText else { break }
            return one("binaryEqualTo", .text(text, line: line))
        case "equalToJson":
            guard let json = expectedJSON(member.value, path: here, placeholders: flag("enablePlaceholders")) else { return nil }
            var out: [(String, SourceNode)] = [("json", json)]
            if flag("ignoreExtraElements") { out.append(("ignoreExtraFields", .flag(true, line: line))) }
            if flag("ignoreArrayOrder") { out.append(("ignoreArrayOrder", .flag(true, line: line))) }
            return .mapping(out, line: line)
        case "matchesJsonPath":
            return jsonPathPattern(member.value, path: here)
        case "and", "or":
            guard case .array(let items) = member.value.value, !items.isEmpty else { break }
            let converted = items.enumerated().compactMap { bodyPattern($1, path: "\(here)[\($0)]") }
            guard converted.count == items.count else { return nil }
            return one(member.key == "and" ? "allOf" : "anyOf", .list(converted, line: line))
        case "not":
            return bodyPattern(member.value, path: here).map { one("not", $0) }
        case "equalToXml":
            guard let text = member.value.scalarText else { break }
            for option in ["enablePlaceholders", "exemptedComparisons", "ignoreOrderOfSameNode"]
            where node[option] != nil {
                guard case .bool(false)? = node[option]?.value else {
                    report(
                        node[option] ?? node, "\(path).\(option)", "'\(option)' beside 'equalToXml' is not supported",
                        .skipped)
                    return nil
                }
            }
            guard (try? XMLTree(parsing: text)) != nil else {
                report(member.value, here, "'equalToXml' is not an XML document", .skipped)
                return nil
            }
            return one("xml", .text(text, line: line))
        case "matchesXPath":
            if let namespaces = node["xPathNamespaces"] {
                report(
                    namespaces, "\(path).xPathNamespaces",
                    "Orrery matches a prefixed name by its local name and does not check the namespace it is bound to",
                    .differs)
            }
            return xPathPattern(member.value, path: here)
        default:
            report(member.value, here, "body matcher '\(member.key)' is not supported", .skipped)
            return nil
        }
        report(member.value, here, "'\(member.key)' has a value of the wrong kind (\(member.value.kindName))", .skipped)
        return nil
    }

    /// The JSON an `equalToJson` expects: written inline, or as text holding JSON. With `enablePlaceholders`,
    /// JSONUnit's `${json-unit.ignore}` becomes Orrery's any-value placeholder; the typed ones are not supported.
    private mutating func expectedJSON(_ node: SourceNode, path: String, placeholders: Bool) -> SourceNode? {
        var tree = node
        if let text = node.stringValue {
            do {
                tree = try JSONSourceParser.parse(Array(text.utf8))
            } catch {
                report(node, path, "'equalToJson' text is not JSON: \(error.message)", .skipped)
                return nil
            }
        }
        return placeholders ? self.placeholders(tree, path: path) : tree
    }

    private mutating func placeholders(_ node: SourceNode, path: String) -> SourceNode? {
        switch node.value {
        case .string(let text) where text.hasPrefix("${json-unit."):
            if text == "${json-unit.ignore}" {
                return .text(Redactor.placeholder, line: node.line)
            }
            report(node, path, "the placeholder '\(text)' is not supported (only ${json-unit.ignore})", .skipped)
            return nil
        case .array(let items):
            var out: [SourceNode] = []
            for item in items {
                guard let converted = placeholders(item, path: path) else { return nil }
                out.append(converted)
            }
            return SourceNode(.array(out), line: node.line)
        case .object(let members):
            var out: [(key: String, keyLine: Int, value: SourceNode)] = []
            for member in members {
                guard let converted = placeholders(member.value, path: path) else { return nil }
                out.append((member.key, member.keyLine, converted))
            }
            return SourceNode(.object(out), line: node.line)
        default:
            return node
        }
    }

    /// `matchesJsonPath`: an expression, or `{ expression, <matcher> }` that the value there must satisfy.
    /// `matchesXPath`: an expression, or `{expression, equalTo/contains/matches}` (a sub-matcher on the selected
    /// nodes' text).
    private mutating func xPathPattern(_ node: SourceNode, path: String) -> SourceNode? {
        guard let (expression, condition) = pathExpression(node, path: path, matcher: "matchesXPath", kind: "an XPath")
        else { return nil }
        do {
            _ = try XPath(expression)
        } catch {
            report(node, path, "the XPath \(expression) is not supported: \(error.message)", .skipped)
            return nil
        }
        var out: [(String, SourceNode)] = [("xpath", .text(expression, line: node.line))]
        if let condition { out.append(condition) }
        return .mapping(out, line: node.line)
    }

    private mutating func jsonPathPattern(_ node: SourceNode, path: String) -> SourceNode? {
        guard
            let (expression, condition) = pathExpression(
                node, path: path, matcher: "matchesJsonPath", kind: "a JSONPath")
        else { return nil }
        do {
            _ = try JSONPath(expression)
        } catch {
            report(node, path, "the JSONPath \(expression) is not supported: \(error.message)", .skipped)
            return nil
        }
        var out: [(String, SourceNode)] = [("jsonPath", .text(expression, line: node.line))]
        if let condition { out.append(condition) }
        return .mapping(out, line: node.line)
    }

    /// The expression of `matchesXPath`/`matchesJsonPath` and its sub-matcher: an expression alone, or
    /// `{expression, equalTo/contains/matches}` (the sub-matcher applies to what the expression selects). Nil, with
    /// the reason reported, for any other shape.
    private mutating func pathExpression(
        _ node: SourceNode, path: String, matcher: String, kind: String
    ) -> (String, (String, SourceNode)?)? {
        if let text = node.stringValue { return (text, nil) }
        guard let expression = node["expression"]?.stringValue, let members = node.members else {
            report(node, path, "'\(matcher)' must be an expression or { expression, matcher }", .skipped)
            return nil
        }
        let rest = members.filter { $0.key != "expression" }
        guard let member = rest.first else { return (expression, nil) }
        guard rest.count == 1, let value = member.value.scalarText else {
            report(node, path, "expected one matcher with a text value beside 'expression'", .skipped)
            return nil
        }
        switch member.key {
        case "equalTo": return (expression, ("equalTo", .text(value, line: member.value.line)))
        case "contains": return (expression, ("contains", .text(value, line: member.value.line)))
        case "matches": return (expression, ("matches", .text(WireMockRegex.whole(value), line: member.value.line)))
        default:
            report(member.value, "\(path).\(member.key)", "'\(member.key)' beside \(kind) is not supported", .skipped)
            return nil
        }
    }
}
