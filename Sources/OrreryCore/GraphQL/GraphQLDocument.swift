/// A GraphQL executable document (operations and fragments) as the spec's grammar reads it: what a client sends
/// in `query`, and what a stub's `graphql.query` expects.
public struct GraphQLDocument: Sendable, Equatable {
    public var operations: [Operation]
    public var fragments: [Fragment]

    /// `query`, `mutation` or `subscription`, with its name, variables, directives and selections. The shorthand
    /// `{ ... }` is an anonymous query.
    public struct Operation: Sendable, Equatable {
        public var type: String
        public var name: String?
        public var variables: [VariableDefinition]
        public var directives: [Directive]
        public var selections: [Selection]
    }

    /// `fragment Name on Type @directives { ... }`.
    public struct Fragment: Sendable, Equatable {
        public var name: String
        public var typeCondition: String
        public var directives: [Directive]
        public var selections: [Selection]
    }

    /// `$name: Type = default @directives`.
    public struct VariableDefinition: Sendable, Equatable {
        public var name: String
        public var type: TypeReference
        public var defaultValue: Value?
        public var directives: [Directive]
    }

    /// `Name`, `[Type]`, `Type!`.
    public indirect enum TypeReference: Sendable, Equatable {
        case named(String)
        case list(TypeReference)
        case nonNull(TypeReference)
    }

    /// `@name(arguments)`.
    public struct Directive: Sendable, Equatable {
        public var name: String
        public var arguments: [Argument]
    }

    /// `name: value`, in an argument list or an input object.
    public struct Argument: Sendable, Equatable {
        public var name: String
        public var value: Value
    }

    /// One item of a selection set.
    public indirect enum Selection: Sendable, Equatable {
        /// `alias: name(arguments) @directives { selections }`.
        case field(
            alias: String?, name: String, arguments: [Argument], directives: [Directive], selections: [Selection])
        /// `...Name @directives`.
        case fragmentSpread(name: String, directives: [Directive])
        /// `... on Type @directives { selections }`, the type condition optional.
        case inlineFragment(typeCondition: String?, directives: [Directive], selections: [Selection])
    }

    /// An input value as written (numbers keep their text).
    public indirect enum Value: Sendable, Equatable {
        case variable(String)
        case int(String)
        case float(String)
        case string(String)
        case bool(Bool)
        case null
        case enumValue(String)
        case list([Value])
        case object([Argument])
    }

    /// Parses a document; throws where the text leaves the grammar.
    public init(parsing text: String) throws(GraphQLSyntaxError) {
        var parser = GraphQLParser(Array(text.utf8))
        self = try parser.document()
    }

    public init(parsing bytes: [UInt8]) throws(GraphQLSyntaxError) {
        var parser = GraphQLParser(bytes)
        self = try parser.document()
    }

    init(operations: [Operation], fragments: [Fragment]) {
        self.operations = operations
        self.fragments = fragments
    }

    /// The operation a request runs: the one named `operationName`, or the only one when no name is given.
    public func operation(named operationName: String?) -> Operation? {
        guard let operationName else { return operations.count == 1 ? operations.first : nil }
        return operations.first { $0.name == operationName }
    }
}
