import OrreryCore

/// One way a request or a response breaks its operation: where (`path`, `query`, `header`, `cookie`, `body`), at
/// which JSON pointer (the parameter's name first for parameters), what is wrong, and the schema's keyword.
public struct ContractViolation: Sendable, Equatable {
    public var location: String
    public var pointer: String
    public var message: String
    /// The keyword's location in the spec (`file:///api.yaml#/components/schemas/Pet/required`), when a schema said it.
    public var schemaPointer: String?

    public init(location: String, pointer: String, message: String, schemaPointer: String? = nil) {
        self.location = location
        self.pointer = pointer
        self.message = message
        self.schemaPointer = schemaPointer
    }

    /// The problem details' form: `{location, pointer, message}`, and `schema` when there is one.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("location", .string(location)), ("pointer", .string(pointer)), ("message", .string(message)),
        ]
        if let schemaPointer { members.append(("schema", .string(schemaPointer))) }
        return .object(members)
    }
}
