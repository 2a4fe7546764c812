/// A JSON Schema compiled once into checks, applied to instances: every violation is reported, each with a JSON
/// pointer into the instance, the keyword's location in the schema, and a message.
///
/// Validators compiled together share their nodes, so the schemas of a whole OpenAPI document cost one compile.
public struct JSONSchemaValidator: Sendable {
    let program: SchemaProgram
    let root: Int

    /// The schema's location: document URI and JSON pointer.
    public var location: String { program.nodes[root].location }

    /// Compiles one schema, with other documents its `$ref`s may reach (by URI).
    public init(
        schema: JSONValue, dialect: JSONSchemaDialect, uri: String = "urn:orrery:schema",
        documents: [String: JSONValue] = [:]
    ) throws(SchemaCompileError) {
        var all = documents
        all[uri] = schema
        let compilation = try Self.compile([uri + "#"], documents: all, dialect: dialect)
        guard let validator = compilation.validators.first else {
            throw SchemaCompileError(schemaPointer: uri, message: "no schema")
        }
        self = validator
    }

    init(program: SchemaProgram, root: Int) {
        self.program = program
        self.root = root
    }

    /// Compiles the schemas at the given locations (`file:///api/spec.yaml#/components/schemas/Pet`) in one pass,
    /// in the order given.
    public static func compile(
        _ locations: [String], documents: [String: JSONValue], dialect: JSONSchemaDialect
    ) throws(SchemaCompileError) -> SchemaCompilation {
        var compiler = SchemaCompiler(dialect: dialect, documents: documents)
        var roots: [Int] = []
        for location in locations { roots.append(try compiler.compile(location)) }
        let program = SchemaProgram(nodes: compiler.nodes)
        return SchemaCompilation(
            validators: roots.map { JSONSchemaValidator(program: program, root: $0) },
            unsupportedKeywords: compiler.unsupported.map { SchemaKeywordUse(keyword: $0.keyword, location: $0.location) })
    }

    /// Every violation of the schema by the instance; empty when it is valid. With a direction, `readOnly`
    /// properties are refused in requests and `writeOnly` ones in responses, and neither is then required.
    public func validate(_ instance: JSONValue, direction: SchemaDirection? = nil) -> [SchemaViolation] {
        var evaluation = SchemaEvaluation(nodes: program.nodes, direction: direction)
        _ = evaluation.check(root, instance, isCollecting: true)
        return evaluation.violations
    }

    /// Whether the instance is valid; stops at the first violation.
    public func isValid(_ instance: JSONValue, direction: SchemaDirection? = nil) -> Bool {
        var evaluation = SchemaEvaluation(nodes: program.nodes, direction: direction)
        return evaluation.check(root, instance, isCollecting: false)
    }
}
