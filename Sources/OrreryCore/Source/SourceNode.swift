/// A parsed JSON or YAML document, with the line each value starts on, so errors can point into the file.
public struct SourceNode: Sendable {
    public enum Value: Sendable {
        case null
        case bool(Bool)
        case number(Double, text: String)
        case string(String)
        case array([SourceNode])
        /// Keys in the order they were written; the line of each key is kept for error messages.
        case object([(key: String, keyLine: Int, value: SourceNode)])
    }

    public var value: Value
    /// 1-based line of the value's first character; 0 when unknown.
    public var line: Int

    public init(_ value: Value, line: Int) {
        self.value = value
        self.line = line
    }

    /// The named member of an object, or nil.
    public subscript(key: String) -> SourceNode? {
        guard case .object(let members) = value else { return nil }
        return members.first(where: { $0.key == key })?.value
    }

    public var kindName: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "a mapping"
        }
    }

    /// Strings, numbers and booleans as written; used where a scalar of any kind reads as text (a query value `2`).
    public var scalarText: String? {
        switch value {
        case .string(let text): text
        case .number(_, let text): text
        case .bool(let flag): flag ? "true" : "false"
        default: nil
        }
    }

    /// The plain JSON value this node holds, dropping line numbers.
    public var jsonValue: JSONValue {
        switch value {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let number, let text): .number(number, text: text)
        case .string(let text): .string(text)
        case .array(let items): .array(items.map(\.jsonValue))
        case .object(let members): .object(members.map { ($0.key, $0.value.jsonValue) })
        }
    }
}
