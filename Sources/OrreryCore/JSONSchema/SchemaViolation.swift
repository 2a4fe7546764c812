/// One way an instance breaks a schema: where in the instance, which keyword of the schema, and what is wrong.
public struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
    /// JSON pointer into the instance (`/items/0/sku`; empty for the whole instance).
    public var instancePointer: String
    /// The keyword's location: the schema document's URI and a JSON pointer (`spec.yaml#/components/schemas/Pet/required`).
    public var schemaPointer: String
    public var message: String

    public init(instancePointer: String, schemaPointer: String, message: String) {
        self.instancePointer = instancePointer
        self.schemaPointer = schemaPointer
        self.message = message
    }

    public var description: String {
        "\(instancePointer.isEmpty ? "(root)" : instancePointer): \(message) [\(schemaPointer)]"
    }
}
