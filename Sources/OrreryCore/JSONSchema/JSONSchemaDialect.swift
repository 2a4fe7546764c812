/// Which reading of a schema applies: OpenAPI 3.0's schema object or JSON Schema draft 2020-12 (OpenAPI 3.1).
public enum JSONSchemaDialect: Sendable, Equatable {
    /// OpenAPI 3.0 (and Swagger 2.0): `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`, a `$ref`'s
    /// siblings ignored, `items` as one schema (a list of them read as draft 4's tuples).
    case openAPI30
    /// JSON Schema 2020-12: `type: [..., "null"]`, numeric exclusive bounds, `prefixItems`, `$id`, `$anchor`,
    /// `$defs`, and a `$ref` that applies beside its siblings.
    case draft2020_12
}
