/// A JSON value: what stubs and request patterns are written in, and what the admin API answers.
///
/// Objects keep their members in the order written, so a stub's `json` body is served with its keys in that order;
/// two objects are equal when they hold the same members, whatever their order. Write values as literals:
/// `["id": 1, "name": "Ada", "tags": ["admin"], "manager": nil]`.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    /// Any number; whole numbers are written without a fraction (`3`, not `3.0`).
    case number(Double)
    case string(String)
    case array([JSON])
    /// Members in order; when a key repeats, the last one counts.
    case object([(key: String, value: JSON)])
}

extension JSON {
    /// The member named `key` of an object (the last one, should the key repeat), or nil.
    public subscript(key: String) -> JSON? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The element at `index` of an array, or nil.
    public subscript(index: Int) -> JSON? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The text of a string, or nil.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// A number as an `Int` when it is a whole number that fits, or nil.
    public var intValue: Int? {
        guard case .number(let number) = self, number.rounded() == number, let value = Int(exactly: number) else {
            return nil
        }
        return value
    }

    /// A number, or nil.
    public var doubleValue: Double? {
        guard case .number(let number) = self else { return nil }
        return number
    }

    /// A boolean, or nil.
    public var boolValue: Bool? {
        guard case .bool(let flag) = self else { return nil }
        return flag
    }

    /// The elements of an array, or nil.
    public var arrayValue: [JSON]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The members of an object in order, or nil.
    public var objectMembers: [(key: String, value: JSON)]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// An object with `value` set for `key`: replaced in place when present, else added at the end.
    func setting(_ key: String, _ value: JSON) -> JSON {
        var members = objectMembers ?? []
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = value
        } else {
            members.append((key, value))
        }
        return .object(members)
    }
}

extension JSON: Equatable {
    /// Values are equal when they are the same JSON: numbers by value, objects whatever the order of their members.
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let left), .bool(let right)): left == right
        case (.number(let left), .number(let right)): left == right
        case (.string(let left), .string(let right)): left == right
        case (.array(let left), .array(let right)): left == right
        case (.object(let left), .object(let right)): Self.dictionary(left) == Self.dictionary(right)
        default: false
        }
    }

    private static func dictionary(_ members: [(key: String, value: JSON)]) -> [String: JSON] {
        Dictionary(members.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}

extension JSON: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let flag): hasher.combine(flag)
        case .number(let number): hasher.combine(number)
        case .string(let text): hasher.combine(text)
        case .array(let elements): hasher.combine(elements)
        case .object(let members):
            // In key order, so that equal objects hash alike whatever the order they were written in.
            for (key, value) in Self.dictionary(members).sorted(by: { $0.key < $1.key }) {
                hasher.combine(key)
                hasher.combine(value)
            }
        }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }
}

extension JSON: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String { encoded }
}
