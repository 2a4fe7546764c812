import OrreryCore

/// A parameter, with its serialization style and its schema.
public struct OpenAPIParameter: Sendable {
    public enum Location: String, Sendable, CaseIterable {
        case path, query, header, cookie
    }

    public var name: String
    public var location: Location
    /// `form`, `simple`, `matrix`, `label`, `spaceDelimited`, `pipeDelimited` or `deepObject`; the location's
    /// default when the document names none.
    public var style: String
    public var explode: Bool
    public var isRequired: Bool
    public var schema: JSONSchemaValidator?
}
