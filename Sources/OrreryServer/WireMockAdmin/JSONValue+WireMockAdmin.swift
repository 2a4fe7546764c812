import OrreryCore

/// Readers WireMock's admin bodies need beside `JSONValue`'s own.
extension JSONValue {
    var arrayItems: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// A whole number, written as one (`5`, not `5.5` or `"5"`).
    var integerValue: Int? {
        if case .number(let value, _) = self, value.rounded() == value, abs(value) < 1e15 { return Int(value) }
        return nil
    }

    /// The object with `key` set to `value`: in its place when it is there, else first.
    func setting(_ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var members) = self else { return self }
        if let index = members.firstIndex(where: { $0.0 == key }) {
            members[index].1 = value
        } else {
            members.insert((key, value), at: 0)
        }
        return .object(members)
    }

    /// The object without `key`.
    func removing(_ key: String) -> JSONValue {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { $0.0 != key })
    }
}
