/// A schema that cannot be compiled: where (document URI and JSON pointer) and what.
public struct SchemaCompileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var schemaPointer: String
    public var message: String

    public init(schemaPointer: String, message: String) {
        self.schemaPointer = schemaPointer
        self.message = message
    }

    public var description: String { "\(schemaPointer): \(message)" }
}
