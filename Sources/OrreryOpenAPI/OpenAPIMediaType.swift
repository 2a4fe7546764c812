import OrreryCore

/// A content type with its schema and examples.
public struct OpenAPIMediaType: Sendable {
    public var contentType: String
    public var schema: JSONSchemaValidator?
    /// `example`, as written.
    public var example: JSONValue?
    /// `examples` by name: each one's `value` (an external `externalValue` is not read).
    public var examples: [(name: String, value: JSONValue)]
}
