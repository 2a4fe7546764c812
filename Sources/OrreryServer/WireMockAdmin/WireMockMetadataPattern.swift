import Foundation
import OrreryCore

/// The content patterns WireMock's `find-by-metadata` and `remove-by-metadata` take, applied to a mapping's
/// `metadata`: `matchesJsonPath` (an expression that must find a value, or `{expression, equalTo | contains |
/// matches}`) and `equalToJson` (with `ignoreExtraElements`). Expressions are plain paths: `$.a.b`, `$.list[0]`.
enum WireMockMetadataPattern {
    static func isSupported(_ pattern: JSONValue) -> Bool {
        pattern["matchesJsonPath"] != nil || pattern["equalToJson"] != nil
    }

    static func matches(_ pattern: JSONValue, _ metadata: JSONValue) -> Bool {
        if let expected = pattern["equalToJson"] {
            let value = expected.stringValue.flatMap { try? JSONValue.parse($0) } ?? expected
            return pattern["ignoreExtraElements"]?.boolValue == true
                ? contains(metadata, value) : metadata.encoded == value.encoded
        }
        guard let condition = pattern["matchesJsonPath"] else { return false }
        let expression = condition.stringValue ?? condition["expression"]?.stringValue ?? ""
        guard let found = find(expression, in: metadata) else { return false }
        let text = found.stringValue ?? found.encoded
        if let equal = condition["equalTo"]?.stringValue { return text == equal }
        if let part = condition["contains"]?.stringValue { return text.contains(part) }
        if let regex = condition["matches"]?.stringValue {
            guard let pattern = try? Pattern("\\A(?:" + regex + ")\\z") else { return false }
            return pattern.matches(text)
        }
        return true
    }

    /// The value a plain path (`$.a.b[0]`) names, or nil.
    static func find(_ expression: String, in value: JSONValue) -> JSONValue? {
        guard expression.hasPrefix("$") else { return nil }
        var current = value
        var rest = Substring(expression.dropFirst())
        while !rest.isEmpty {
            if rest.hasPrefix(".") {
                rest = rest.dropFirst()
                let name = rest.prefix { $0 != "." && $0 != "[" }
                rest = rest.dropFirst(name.count)
                guard let next = current[String(name)] else { return nil }
                current = next
            } else if rest.hasPrefix("["), let end = rest.firstIndex(of: "]") {
                let inside = rest[rest.index(after: rest.startIndex)..<end]
                rest = rest[rest.index(after: end)...]
                let trimmed = inside.trimmingCharacters(in: ["'", "\""])
                if let index = Int(trimmed), let items = current.arrayItems {
                    guard items.indices.contains(index) else { return nil }
                    current = items[index]
                } else if let next = current[String(trimmed)] {
                    current = next
                } else {
                    return nil
                }
            } else {
                return nil
            }
        }
        return current
    }

    /// Whether `value` holds everything `expected` does (objects by member, lists and scalars exactly).
    static func contains(_ value: JSONValue, _ expected: JSONValue) -> Bool {
        guard case .object(let wanted) = expected else { return value.encoded == expected.encoded }
        return wanted.allSatisfy { key, member in value[key].map { contains($0, member) } ?? false }
    }
}
