/// One compiled subschema: its location and the checks its keywords became, references already resolved to
/// other nodes' indices (so cycles cost nothing at validation time).
struct SchemaNode: Sendable {
    /// The schema's location: document URI, `#`, JSON pointer.
    var location: String
    /// `true` or `false` as a schema; nil for an object schema.
    var constant: Bool?
    var rules: [SchemaRule] = []
    var isReadOnly = false
    var isWriteOnly = false
    /// A node that is only a `$ref`, followed when asking whether a property is read-only or write-only.
    var referenceOnly: Int?

    init(location: String, constant: Bool? = nil) {
        self.location = location
        self.constant = constant
    }
}

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

/// The properties of an object schema, taken together because `additionalProperties` depends on the other two.
struct SchemaProperties: Sendable {
    var named: [String: Int] = [:]
    var patterns: [(pattern: Pattern, node: Int, location: String)] = []
    var additional: Int?
    var additionalLocation = ""
}

/// What a keyword checks, with the keyword's location for the violations it reports.
struct SchemaRule: Sendable {
    var location: String
    var check: Check

    indirect enum Check: Sendable {
        /// `isIntegerWritten`: OpenAPI 3.0's `integer` is a number written without a fraction or an exponent
        /// (`4.0` is not one), where draft 2020-12 takes any number with a zero fraction.
        case type(SchemaTypeSet, isNullable: Bool, isIntegerWritten: Bool)
        case enumeration([JSONValue])
        case constant(JSONValue)
        case minLength(Int)
        case maxLength(Int)
        case minimum(DecimalNumber, isExclusive: Bool)
        case maximum(DecimalNumber, isExclusive: Bool)
        case multipleOf(DecimalNumber)
        case pattern(Pattern)
        case format(SchemaFormat)
        case minItems(Int)
        case maxItems(Int)
        case uniqueItems
        /// `prefixItems` (or draft 4's list of `items`) and the schema for the items after them.
        case items(prefix: [Int], rest: Int?, restLocation: String)
        case contains(Int, minimum: Int, maximum: Int?)
        case minProperties(Int)
        case maxProperties(Int)
        /// The names, each with its property's schema when `properties` names it (for `readOnly`/`writeOnly`).
        case required([(name: String, node: Int?)])
        case dependentRequired([(name: String, required: [String])])
        case properties(SchemaProperties)
        case propertyNames(Int)
        case allOf([Int])
        case anyOf([Int])
        case oneOf([Int])
        case not(Int)
        case conditional(if: Int, then: Int?, else: Int?)
        case reference(Int)
        /// OpenAPI's `discriminator` beside a `oneOf` or `anyOf`: the named property picks the one schema to check.
        case discriminator(property: String, mapping: [(value: String, node: Int)], union: Check)
    }
}
