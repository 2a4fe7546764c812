/// Equality as JSON Schema has it for `enum`, `const` and `uniqueItems`: strings equal scalar by scalar (not by
/// Unicode canonical equivalence, as Swift's `==`), numbers by exact decimal value (`1` equals `1.0`), objects
/// whatever their key order.
enum SchemaEquality {
    static func isEqual(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.number(let a, let aText), .number(let b, let bText)):
            guard let exactA = DecimalNumber(aText), let exactB = DecimalNumber(bText) else { return a == b }
            return !(exactA < exactB) && !(exactB < exactA)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { isEqual($0, $1) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            return a.allSatisfy { key, value in
                b.contains { $0.0.unicodeScalars.elementsEqual(key.unicodeScalars) && isEqual(value, $0.1) }
            }
        default:
            return false
        }
    }
}
