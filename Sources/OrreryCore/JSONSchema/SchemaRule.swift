/// What a keyword checks, with the keyword's location for the violations it reports.
struct SchemaRule: Sendable {
    var location: String
    var check: Check

    enum Check: Sendable {
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
        case items(prefix: [Int], rest: Int?)
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
        /// `branches` are the `oneOf`'s (or, when `isOneOf` is false, the `anyOf`'s), checked as such for a non-object.
        case discriminator(property: String, mapping: [(value: String, node: Int)], branches: [Int], isOneOf: Bool)
    }
}
