/// The properties of an object schema, taken together because `additionalProperties` depends on the other two.
struct SchemaProperties: Sendable {
    var named: [String: Int] = [:]
    /// The same names as UTF-8, for a body read on its bytes: compared by length and bytes, the name after the last
    /// one met first, they cost less than a hash. Nil past 64 (the byte check keeps the names met as bits of a
    /// word), or when one is not ASCII (Unicode equivalence is the dictionary's to judge).
    var asciiNames: [(name: [UInt8], node: Int)]?
    var patterns: [(pattern: Pattern, node: Int, location: String)] = []
    var additional: Int?
    var additionalLocation = ""
}
