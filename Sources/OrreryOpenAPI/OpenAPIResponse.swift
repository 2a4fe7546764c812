/// A response by status, with a schema per content type.
public struct OpenAPIResponse: Sendable {
    public var status: String
    public var content: [OpenAPIMediaType]
}
