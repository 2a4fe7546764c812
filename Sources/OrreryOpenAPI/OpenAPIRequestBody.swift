/// A request body: whether it is required, and a schema per content type.
public struct OpenAPIRequestBody: Sendable {
    public var isRequired: Bool
    public var content: [OpenAPIMediaType]
}
