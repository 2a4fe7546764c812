/// How one header, query parameter or form field is matched: a plain string means `equalTo`.
public enum ValueMatcher: Sendable, CustomStringConvertible {
    case equalTo(String)
    case matches(Pattern)
    case doesNotMatch(Pattern)
    case contains(String)
    /// `absent: true` requires the field to be missing; `absent: false` only requires it to be present.
    case absent(Bool)
    /// `anyOf: [...]`: at least one of the matchers holds.
    case anyOf([ValueMatcher])
    /// `allOf: [...]`: every one of the matchers holds.
    case allOf([ValueMatcher])
    /// `not: {...}`: the matcher does not hold.
    indirect case not(ValueMatcher)

    /// The operator names a stub file may use, for "did you mean" suggestions.
    public static let operatorNames = ["equalTo", "matches", "doesNotMatch", "contains", "absent", "anyOf", "allOf", "not"]

    /// Whether the values present (none when the field is missing) satisfy the matcher; any one value may match.
    public func matches(_ values: [String]) -> Bool {
        switch self {
        case .absent(let mustBeAbsent): return values.isEmpty == mustBeAbsent
        case .equalTo(let expected): return values.contains(expected)
        case .contains(let part): return values.contains(where: { $0.contains(part) })
        case .matches(let pattern): return values.contains(where: pattern.matches)
        case .doesNotMatch(let pattern): return !values.isEmpty && !values.contains(where: pattern.matches)
        case .anyOf(let matchers): return matchers.contains { $0.matches(values) }
        case .allOf(let matchers): return matchers.allSatisfy { $0.matches(values) }
        case .not(let matcher): return !matcher.matches(values)
        }
    }

    public func matches(_ value: String?) -> Bool {
        matches(value.map { [$0] } ?? [])
    }

    /// What failed, for values the matcher refuses: for `allOf`, the first of its matchers that failed, so that a
    /// near miss names the condition to fix rather than the whole list.
    public func explanation(_ values: [String]) -> String {
        switch self {
        case .allOf(let matchers):
            guard let failed = matchers.first(where: { !$0.matches(values) }) else { return description }
            return matchers.count == 1 ? failed.explanation(values) : "\(failed.explanation(values)) (allOf, condition \((matchers.firstIndex { !$0.matches(values) } ?? 0) + 1) of \(matchers.count))"
        default:
            return description
        }
    }

    public var description: String {
        switch self {
        case .equalTo(let text): "equal to \"\(text)\""
        case .matches(let pattern): "matching /\(pattern.source)/"
        case .doesNotMatch(let pattern): "not matching /\(pattern.source)/"
        case .contains(let text): "containing \"\(text)\""
        case .absent(let mustBeAbsent): mustBeAbsent ? "absent" : "present"
        case .anyOf(let matchers): "any of (" + matchers.map(\.description).joined(separator: "; ") + ")"
        case .allOf(let matchers): "all of (" + matchers.map(\.description).joined(separator: "; ") + ")"
        case .not(let matcher): "not " + matcher.description
        }
    }

    public var json: JSONValue {
        switch self {
        case .equalTo(let text): .string(text)
        case .matches(let pattern): .object([("matches", .string(pattern.source))])
        case .doesNotMatch(let pattern): .object([("doesNotMatch", .string(pattern.source))])
        case .contains(let text): .object([("contains", .string(text))])
        case .absent(let flag): .object([("absent", .bool(flag))])
        case .anyOf(let matchers): .object([("anyOf", .array(matchers.map(\.json)))])
        case .allOf(let matchers): .object([("allOf", .array(matchers.map(\.json)))])
        case .not(let matcher): .object([("not", matcher.json)])
        }
    }
}
