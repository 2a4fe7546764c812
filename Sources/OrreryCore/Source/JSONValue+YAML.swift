extension JSONValue {
    /// Parses a YAML document (or JSON, which YAML reads too) with the stub files' rules for scalars and limits,
    /// for documents such as OpenAPI specs.
    public static func parseYAML(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try YAMLSourceParser.parse(text).jsonValue
    }
}
