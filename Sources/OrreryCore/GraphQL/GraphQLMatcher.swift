/// The `graphql` body operator: an operation name, a query compared after parsing, and variables.
public struct GraphQLMatcher: Sendable, CustomStringConvertible {
    public var operationName: String?
    /// The query as the stub wrote it, and its canonical form, made when the stub loads.
    public var query: (source: String, canonical: String)?
    /// Every variable the request must have, and nothing else; nil when the stub does not look at variables.
    public var variables: [(name: String, condition: VariableCondition)]?
    /// The name of the stub's query's only operation: a near miss says the name differed when the query did.
    public var queryOperationName: String?

    /// What one variable must be.
    public enum VariableCondition: Sendable, CustomStringConvertible {
        /// JSON-equal (key order free, numbers by value; the redaction placeholder stands for any value).
        case equal(JSONValue)
        /// A value operator (`{matches: "^u-"}`) over the value as text: a string as it is, anything else as JSON.
        case matcher(ValueMatcher)

        func holds(_ value: JSONValue?) -> Bool {
            switch self {
            case .equal(let expected):
                guard let value else { return false }
                return JSONValue.matches(expected, value, wildcard: Redactor.placeholder)
            case .matcher(let matcher):
                return matcher.matches(value.map { [JSONPathCondition.text($0)] } ?? [])
            }
        }

        public var description: String {
            switch self {
            case .equal(let value): value.encoded
            case .matcher(let matcher): matcher.description
            }
        }
    }

    public init(
        operationName: String? = nil, query: (source: String, canonical: String)? = nil,
        variables: [(name: String, condition: VariableCondition)]? = nil
    ) {
        self.operationName = operationName
        self.query = query
        self.variables = variables
    }

    /// A matcher whose query is parsed here; throws when it does not parse.
    public init(
        operationName: String? = nil, query: String?, variables: [(name: String, condition: VariableCondition)]? = nil
    ) throws(GraphQLSyntaxError) {
        var canonical: (String, String)?
        var name: String?
        if let query {
            let document = try GraphQLDocument(parsing: query)
            canonical = (query, document.canonical)
            name = document.operations.count == 1 ? document.operations.first?.name : nil
        }
        self.init(operationName: operationName, query: canonical, variables: variables)
        queryOperationName = name
    }

    public func matches(_ operation: GraphQLOperation) -> Bool {
        mismatch(operation) == nil
    }

    /// The first part of the operator the operation fails (`operationName`, `query`, `variables.NAME`), what it
    /// expected and what the operation had; nil when it matches.
    public func mismatch(_ operation: GraphQLOperation) -> (part: String, expected: String, actual: String?)? {
        differences(operation, stopAtFirst: true).first
    }

    /// Every part of the operator the operation fails, for a near miss. A query of another operation also counts as
    /// another operation name, so that the stub of the same operation comes out closest.
    public func differences(
        _ operation: GraphQLOperation, stopAtFirst: Bool = false
    ) -> [(part: String, expected: String, actual: String?)] {
        var found: [(part: String, expected: String, actual: String?)] = []
        let queryDiffers = query.map { $0.canonical != operation.canonicalQuery } ?? false
        // Matching reads only the name the stub writes; a near miss also the name inside the stub's query.
        let name = operationName ?? (stopAtFirst || !queryDiffers ? nil : queryOperationName)
        if let name, name != operation.effectiveName {
            found.append(("operationName", "\"\(name)\"", operation.effectiveName.map { "\"\($0)\"" }))
            if stopAtFirst { return found }
        }
        if let query, queryDiffers {
            let actual: String? =
                if let error = operation.syntaxError { "a query that does not parse (\(error))" } else {
                    operation.canonicalQuery.map { String($0.prefix(200)) }
                }
            found.append(("query", String(query.canonical.prefix(200)), actual))
            if stopAtFirst { return found }
        }
        if let variables {
            // Variables that are not an object (text in a GET's URL that is not JSON) equal no stub's.
            if let value = operation.variables, value.objectMembers == nil {
                found.append(("variables", "a JSON object of variables", String(value.encoded.prefix(120))))
                return found
            }
            let sent = operation.variables?.objectMembers ?? []
            for (name, condition) in variables {
                let value = sent.first { $0.0 == name }?.1
                if !condition.holds(value) {
                    found.append(
                        ("variables.\(name)", condition.description, value.map { String($0.encoded.prefix(120)) }))
                    if stopAtFirst { return found }
                }
            }
            for extra in sent where !variables.contains(where: { $0.name == extra.0 }) {
                found.append(("variables", "no variable '\(extra.0)'", String(extra.1.encoded.prefix(120))))
                if stopAtFirst { return found }
            }
        }
        return found
    }

    public var description: String {
        var parts: [String] = []
        if let operationName { parts.append("operationName \"\(operationName)\"") }
        if let query { parts.append("query \(query.canonical.prefix(120))") }
        if let variables {
            parts.append("variables {" + variables.map { "\($0.name): \($0.condition)" }.joined(separator: ", ") + "}")
        }
        return "GraphQL " + parts.joined(separator: ", ")
    }
}
