// The `graphql` body operator: its query parsed when the stub loads, a bad one reported with its line.
extension StubDecoder {
    static let graphQLKeys = ["operationName", "query", "variables"]

    mutating func graphQLMatcher(_ node: SourceNode) -> BodyMatcher? {
        guard case .object(let members) = node.value else {
            fail(
                node.line,
                "'graphql' must be a mapping of \(Self.graphQLKeys.joined(separator: ", ")), not \(node.kindName)")
            return nil
        }
        let errorCount = errors.count
        for member in members where !Self.graphQLKeys.contains(member.key) {
            fail(
                member.keyLine,
                "unknown key '\(member.key)' in 'graphql'\(Suggestion.hint(for: member.key, in: Self.graphQLKeys))")
        }
        guard node["operationName"] != nil || node["query"] != nil else {
            fail(node.line, "'graphql' needs an operationName or a query (or both)")
            return nil
        }
        let operationName = node["operationName"].flatMap { string($0, "operationName") }
        var query: (source: String, canonical: String)?
        var queryOperationName: String?
        if let queryNode = node["query"], let text = string(queryNode, "query") {
            do {
                let document = try GraphQLDocument(parsing: text)
                query = (text, document.canonical)
                if document.operations.count == 1 { queryOperationName = document.operations.first?.name }
            } catch {
                // In YAML, text of several lines is a block scalar (`|`), whose lines start after the key's; a JSON
                // string is on one line of the file, whatever its escapes.
                let isBlock = !displayPath.hasSuffix(".json") && queryNode.line > 0 && text.contains("\n")
                fail(queryNode.line + (isBlock ? error.line : 0), "graphql query: \(error)")
            }
        }
        var variables: [(name: String, condition: GraphQLMatcher.VariableCondition)]?
        if let variablesNode = node["variables"] {
            if case .object(let items) = variablesNode.value {
                variables = []
                for item in items {
                    guard let condition = variableCondition(item.value, name: item.key) else { continue }
                    variables?.append((item.key, condition))
                }
            } else {
                fail(
                    variablesNode.line,
                    "'variables' must be a mapping of variable names to values, not \(variablesNode.kindName)")
            }
        }
        guard errors.count == errorCount else { return nil }
        var matcher = GraphQLMatcher(operationName: operationName, query: query, variables: variables)
        matcher.queryOperationName = queryOperationName
        return .graphQL(matcher)
    }

    /// A variable's value, JSON-equal; or, written as a mapping of one value operator (`{matches: "^u-"}`), that
    /// operator over the value as text.
    private mutating func variableCondition(_ node: SourceNode, name: String) -> GraphQLMatcher.VariableCondition? {
        if case .object(let members) = node.value, members.count == 1, let member = members.first,
            ValueMatcher.operatorNames.contains(member.key)
        {
            return valueMatcher(node, what: "variable '\(name)'").map { .matcher($0) }
        }
        return .equal(node.jsonValue)
    }
}
