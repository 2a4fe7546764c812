/// A GraphQL document that does not follow the grammar, with the line and column where reading stopped.
public struct GraphQLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// From 1, counted in the query text.
    public var line: Int
    /// From 1, in UTF-8 bytes.
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}
