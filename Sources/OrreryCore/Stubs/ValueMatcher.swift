/// How one header, query parameter or form field is matched: a plain string means `equalTo`.
public enum ValueMatcher: Sendable, CustomStringConvertible {
    case equalTo(String)
    case matches(Pattern)
    case doesNotMatch(Pattern)
    case contains(String)
    /// `absent: true` requires the field to be missing; `absent: false` only requires it to be present.
    case absent(Bool)

    /// The operator names a stub file may use, for "did you mean" suggestions.
    public static let operatorNames = ["equalTo", "matches", "doesNotMatch", "contains", "absent"]

    /// Whether the values present (none when the field is missing) satisfy the matcher; any one value may match.
    public func matches(_ values: [String]) -> Bool {
        switch self {
        case .absent(let mustBeAbsent): return values.isEmpty == mustBeAbsent
        case .equalTo(let expected): return values.contains(expected)
        case .contains(let part): return values.contains(where: { $0.contains(part) })
        case .matches(let pattern): return values.contains(where: pattern.matches)
        case .doesNotMatch(let pattern): return !values.isEmpty && !values.contains(where: pattern.matches)
        }
    }

    public func matches(_ value: String?) -> Bool {
        matches(value.map { [$0] } ?? [])
    }

    public var description: String {
        switch self {
        case .equalTo(let text): "equal to \"\(text)\""
        case .matches(let pattern): "matching /\(pattern.source)/"
        case .doesNotMatch(let pattern): "not matching /\(pattern.source)/"
        case .contains(let text): "containing \"\(text)\""
        case .absent(let mustBeAbsent): mustBeAbsent ? "absent" : "present"
        }
    }

    public var json: JSONValue {
        switch self {
        case .equalTo(let text): .string(text)
        case .matches(let pattern): .object([("matches", .string(pattern.source))])
        case .doesNotMatch(let pattern): .object([("doesNotMatch", .string(pattern.source))])
        case .contains(let text): .object([("contains", .string(text))])
        case .absent(let flag): .object([("absent", .bool(flag))])
        }
    }
}
