/// The properties of an object schema, taken together because `additionalProperties` depends on the other two.
struct SchemaProperties: Sendable {
    var named: [String: Int] = [:]
    /// The same names as UTF-8, for a body read on its bytes: a few compared by length and bytes cost less than a
    /// hash. Nil when there are many, or when one is not ASCII (Unicode equivalence is the dictionary's to judge).
    var asciiNames: [(name: [UInt8], node: Int)]?
    var patterns: [(pattern: Pattern, node: Int, location: String)] = []
    var additional: Int?
    var additionalLocation = ""
}
