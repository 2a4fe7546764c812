/// The JSON types a `type` keyword names; `integer` is a number with no fractional part.
struct SchemaTypeSet: OptionSet, Sendable {
    let rawValue: UInt8
    static let null = SchemaTypeSet(rawValue: 1)
    static let boolean = SchemaTypeSet(rawValue: 2)
    static let object = SchemaTypeSet(rawValue: 4)
    static let array = SchemaTypeSet(rawValue: 8)
    static let number = SchemaTypeSet(rawValue: 16)
    static let integer = SchemaTypeSet(rawValue: 32)
    static let string = SchemaTypeSet(rawValue: 64)

    static let names: [(String, SchemaTypeSet)] = [
        ("null", .null), ("boolean", .boolean), ("object", .object), ("array", .array), ("number", .number),
        ("integer", .integer), ("string", .string),
    ]

    var description: String {
        Self.names.filter { contains($0.1) }.map(\.0).joined(separator: " or ")
    }
}
