import OrreryCore

/// A response by status, with a schema per content type and its declared headers.
public struct OpenAPIResponse: Sendable {
    public var status: String
    public var content: [OpenAPIMediaType]
    /// The response's `headers`, as declared (a `Content-Type` among them is left out, as the specification says).
    public var headers: [OpenAPIHeader] = []
}

/// A response header: whether it is required, its schema (or its one `content` type's), and its example.
public struct OpenAPIHeader: Sendable {
    public var name: String
    public var isRequired: Bool
    public var schema: JSONSchemaValidator?
    /// `example`, else the first of `examples`, as written.
    public var example: JSONValue?
}
