/// One GraphQL operation as a client sent it: its name, query text and variables, the query parsed once.
public struct GraphQLOperation: Sendable {
    /// As sent; nil when the request names none.
    public var operationName: String?
    public var query: String?
    /// The `variables` object; nil when the request has none.
    public var variables: JSONValue?
    /// The query's canonical form (`GraphQLDocument.canonical`); nil when there is no query or it does not parse.
    public var canonicalQuery: String?
    /// Why the query does not parse, when it does not.
    public var syntaxError: GraphQLSyntaxError?
    /// The operation's name: the one sent, else that of the query's only operation when it has one.
    public var effectiveName: String?

    public init(operationName: String?, query: String?, variables: JSONValue?) {
        self.operationName = operationName
        self.query = query
        self.variables = variables
        effectiveName = operationName
        guard let query else { return }
        do {
            let document = try GraphQLDocument(parsing: query)
            canonicalQuery = document.canonical
            if effectiveName == nil, document.operations.count == 1 { effectiveName = document.operations.first?.name }
        } catch {
            syntaxError = error
        }
    }

    /// An operation from a JSON request member (`{query, operationName, variables}`); nil when it has neither a
    /// query nor an operation name.
    init?(json: JSONValue) {
        guard case .object = json else { return nil }
        let query = json["query"]?.stringValue
        let name = json["operationName"]?.stringValue
        guard query != nil || name != nil else { return nil }
        var variables = json["variables"]
        if variables == .null { variables = nil }
        self.init(operationName: name, query: query, variables: variables)
    }

    /// What templates read as `graphql`: `operationName` (the effective one), `query` and `variables` (`{}` when
    /// the request has none).
    public var json: JSONValue {
        .object([
            ("operationName", effectiveName.map { .string($0) } ?? .null),
            ("query", query.map { .string($0) } ?? .null),
            ("variables", variables ?? .object([])),
        ])
    }
}
