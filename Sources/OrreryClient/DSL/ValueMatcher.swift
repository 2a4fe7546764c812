import Foundation

/// A condition on a header, query parameter or form field value: a plain string is an exact match.
///
/// `withHeader("Accept", .contains("json"))`, `withHeader("Authorization", .absent)`.
public struct ValueMatcher: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The condition as a stub file writes it.
    public let json: JSON

    private init(json: JSON) {
        self.json = json
    }

    public init(stringLiteral value: String) {
        self.init(json: .string(value))
    }

    /// Exactly this value.
    public static func equalTo(_ value: String) -> ValueMatcher { ValueMatcher(json: .string(value)) }
    /// A regex that matches anywhere in the value unless anchored with `^…$`.
    public static func matches(_ regex: String) -> ValueMatcher { ValueMatcher(json: ["matches": .string(regex)]) }
    /// A regex that must not match.
    public static func doesNotMatch(_ regex: String) -> ValueMatcher {
        ValueMatcher(json: ["doesNotMatch": .string(regex)])
    }
    /// The value contains this text.
    public static func contains(_ text: String) -> ValueMatcher { ValueMatcher(json: ["contains": .string(text)]) }
    /// The header or parameter must be missing.
    public static let absent = ValueMatcher(json: ["absent": true])
    /// The header or parameter must be there, with any value.
    public static let present = ValueMatcher(json: ["absent": false])

    public var description: String { json.encoded }
}

/// A condition on a request body.
public struct BodyMatcher: Sendable, Hashable, CustomStringConvertible {
    /// The condition as a stub file writes it.
    public let json: JSON

    private init(json: JSON) {
        self.json = json
    }

    /// Exactly this text.
    public static func equalTo(_ text: String) -> BodyMatcher { BodyMatcher(json: ["equalTo": .string(text)]) }
    /// JSON equal to this value: key order ignored, numbers compared by value.
    public static func json(_ value: JSON) -> BodyMatcher { BodyMatcher(json: ["json": value]) }
    /// A regex over the body text.
    public static func matches(_ regex: String) -> BodyMatcher { BodyMatcher(json: ["matches": .string(regex)]) }
    /// The body contains this text.
    public static func contains(_ text: String) -> BodyMatcher { BodyMatcher(json: ["contains": .string(text)]) }
    /// Exactly these bytes.
    public static func binaryEqualTo(_ bytes: Data) -> BodyMatcher {
        BodyMatcher(json: ["binaryEqualTo": .string(bytes.base64EncodedString())])
    }
    /// `application/x-www-form-urlencoded` fields, each a value or a condition.
    public static func form(_ fields: [String: ValueMatcher]) -> BodyMatcher {
        BodyMatcher(json: ["form": .object(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) })])
    }
    /// Every one of these conditions (each a different operator: `equalTo`, `contains`, ...).
    public static func allOf(_ matchers: [BodyMatcher]) -> BodyMatcher {
        var merged = JSON.object([])
        for matcher in matchers {
            for (key, value) in matcher.json.objectMembers ?? [] { merged = merged.setting(key, value) }
        }
        return BodyMatcher(json: merged)
    }

    public var description: String { json.encoded }
}
