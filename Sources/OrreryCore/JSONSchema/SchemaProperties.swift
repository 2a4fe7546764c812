/// The properties of an object schema, taken together because `additionalProperties` depends on the other two.
struct SchemaProperties: Sendable {
    var named: [String: Int] = [:]
    var patterns: [(pattern: Pattern, node: Int, location: String)] = []
    var additional: Int?
    var additionalLocation = ""
}
