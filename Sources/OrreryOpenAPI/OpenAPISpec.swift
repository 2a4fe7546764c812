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
