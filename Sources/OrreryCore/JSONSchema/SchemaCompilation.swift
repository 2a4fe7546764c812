/// Validators compiled in one pass, and the keywords met that Orrery does not check.
public struct SchemaCompilation: Sendable {
    public var validators: [JSONSchemaValidator]
    public var unsupportedKeywords: [SchemaKeywordUse]
}
