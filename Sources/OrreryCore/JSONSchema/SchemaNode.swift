/// One compiled subschema: its location and the checks its keywords became, references already resolved to
/// other nodes' indices (so cycles cost nothing at validation time).
struct SchemaNode: Sendable {
    /// The schema's location: document URI, `#`, JSON pointer.
    var location: String
    /// `true` or `false` as a schema; nil for an object schema.
    var constant: Bool?
    /// The checks, and beside them each one's keyword location: apart, so that evaluating touches only the checks
    /// and a location is read only for a violation.
    private(set) var checks: [SchemaRule.Check] = []
    private(set) var checkLocations: [String] = []
    var isReadOnly = false
    var isWriteOnly = false
    /// A node that is only a `$ref`, followed when asking whether a property is read-only or write-only.
    var referenceOnly: Int?

    init(location: String, constant: Bool? = nil) {
        self.location = location
        self.constant = constant
    }

    mutating func append(_ rule: SchemaRule) {
        checks.append(rule.check)
        checkLocations.append(rule.location)
    }
}
