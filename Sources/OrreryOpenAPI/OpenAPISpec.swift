import OrreryCore

/// An OpenAPI document (3.0, 3.1, or Swagger 2.0 read as 3.0) loaded into what the daemon serves and checks:
/// its operations by method and path template, with compiled schemas for parameters, bodies and responses.
public struct OpenAPISpec: Sendable {
    /// The file it was loaded from.
    public var source: String
    /// The document's `openapi` (or `swagger`) version, as written.
    public var version: String
    public var title: String
    /// The path of the first server's URL (Swagger 2.0: `basePath`), without a trailing slash; empty for none.
    public var basePath: String
    public var operations: [OpenAPIOperation]
    /// Schema keywords the validator does not check, where the document uses them (to be logged at start-up).
    public var unsupportedKeywords: [SchemaKeywordUse]
    /// What OpenAPIKit warned about (or could not read) in the document.
    public var warnings: [String] = []
    /// The main document as read (a Swagger 2.0 one as rewritten in 3.0) and its URI.
    public var document: JSONValue
    public var uri: String
    public var dialect: JSONSchemaDialect
    /// Every file of the spec by URI, the main one included.
    var documents: [String: JSONValue]

    /// Compiles the schema at a JSON pointer in the main document (`/components/schemas/Pet`), for checks the
    /// operations do not cover (a stub's body against a named schema).
    public func schema(at pointer: String) throws(OpenAPILoadError) -> JSONSchemaValidator {
        let compilation: SchemaCompilation
        do {
            compilation = try JSONSchemaValidator.compile([uri + "#" + pointer], documents: documents, dialect: dialect)
        } catch {
            throw OpenAPILoadError(file: source, message: "schema \(error.schemaPointer): \(error.message)")
        }
        guard let validator = compilation.validators.first else {
            throw OpenAPILoadError(file: source, message: "\(pointer): no schema")
        }
        return validator
    }

    /// The operation for a method and a path template as the document writes it (`/pets/{petId}`).
    public func operation(_ method: String, _ pathTemplate: String) -> OpenAPIOperation? {
        operations.first { $0.method == method.uppercased() && $0.pathTemplate == pathTemplate }
    }
}

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

/// A request body: whether it is required, and a schema per content type.
public struct OpenAPIRequestBody: Sendable {
    public var isRequired: Bool
    public var content: [OpenAPIMediaType]
}

/// A response by status, with a schema per content type.
public struct OpenAPIResponse: Sendable {
    public var status: String
    public var content: [OpenAPIMediaType]
}

/// A content type with its schema and examples.
public struct OpenAPIMediaType: Sendable {
    public var contentType: String
    public var schema: JSONSchemaValidator?
    /// `example`, as written.
    public var example: JSONValue?
    /// `examples` by name: each one's `value` (an external `externalValue` is not read).
    public var examples: [(name: String, value: JSONValue)]
}
