/// One operation: a method on a path template, with what it takes and what it answers.
public struct OpenAPIOperation: Sendable {
    /// Upper case (`GET`).
    public var method: String
    /// As the document writes it, before the base path: `/pets/{petId}`.
    public var pathTemplate: String
    public var operationId: String?
    /// Path-level and operation-level parameters, the operation's winning where both name one.
    public var parameters: [OpenAPIParameter]
    public var requestBody: OpenAPIRequestBody?
    /// In the document's order; `status` is `200`, `2XX` or `default`.
    public var responses: [OpenAPIResponse]
    /// Where the operation is: document URI and JSON pointer.
    public var location: String
}
