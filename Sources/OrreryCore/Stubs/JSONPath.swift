/// A JSONPath over a request's JSON body, in the subset stubs need: `$` the root, members as `.name` or
/// `['name with spaces']` (or double quotes), list items as `[0]` (`[-1]` is the last), every member or item as
/// `.*` or `[*]`, recursive descent (`..name`, `..*`), and filters as Jayway's JsonPath (WireMock's) reads them:
/// `[?(@.a.b == 'x')]` with `==`, `!=`, `<`, `<=`, `>`, `>=`, `=~ /regex/` (`i` after it ignores case), a path alone
/// (it exists), `&&` and `||`. Slices and unions are not supported.
public struct JSONPath: Sendable, Equatable, CustomStringConvertible {
    enum Step: Sendable, Equatable {
        case member(String)
        case index(Int)
        case wildcard
        /// `..` then a step: the step applied to the value and to everything below it.
        indirect case descendant(Step)
        case filter(JSONPathFilter)
    }

    public let source: String
    let steps: [Step]

    public init(_ source: String) throws(JSONPathError) {
        self.source = source
        steps = try Self.parse(Array(source.utf8))
    }

    /// Every value the path selects (none when it leads nowhere; several through a wildcard).
    public func select(in root: JSONValue) -> [JSONValue] {
        var current = [root]
        for step in steps {
            var next: [JSONValue] = []
            for value in current { Self.apply(step, to: value, into: &next) }
            current = next
            if current.isEmpty { break }
        }
        return current
    }

    private static func apply(_ step: Step, to value: JSONValue, into next: inout [JSONValue]) {
        switch (step, value) {
        case (.member(let name), .object(let members)):
            if let member = members.first(where: { $0.0 == name }) { next.append(member.1) }
        case (.index(let index), .array(let items)):
            let position = index < 0 ? items.count + index : index
            if position >= 0 && position < items.count { next.append(items[position]) }
        case (.wildcard, .array(let items)):
            next += items
        case (.wildcard, .object(let members)):
            next += members.map(\.1)
        case (.descendant(let inner), _):
            apply(inner, to: value, into: &next)
            switch value {
            case .array(let items): for item in items { apply(step, to: item, into: &next) }
            case .object(let members): for member in members { apply(step, to: member.1, into: &next) }
            default: break
            }
        case (.filter(let filter), .array(let items)):
            next += items.filter { filter.holds(for: $0) }
        case (.filter(let filter), .object):
            // Jayway applies a filter on an object to the object itself.
            if filter.holds(for: value) { next.append(value) }
        default:
            break
        }
    }

    /// Whether the path selects at most one value (no wildcard, descent or filter).
    var isDefinite: Bool {
        steps.allSatisfy {
            switch $0 {
            case .member, .index: true
            default: false
            }
        }
    }

    public var description: String { source }

    private static func parse(_ bytes: [UInt8]) throws(JSONPathError) -> [Step] {
        guard bytes.first == UInt8(ascii: "$") else {
            throw JSONPathError(message: "a JSONPath starts with '$', as in $.user.name")
        }
        var steps: [Step] = []
        var index = 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "."):
                index += 1
                guard index < bytes.count else { throw JSONPathError(message: "a name must follow the last '.'") }
                if bytes[index] == UInt8(ascii: ".") {
                    // `..name`, `..*` or `..[...]`: the next step, applied at every depth.
                    guard index + 1 < bytes.count else { throw JSONPathError(message: "a name must follow '..'") }
                    let rest = try parse(
                        [UInt8(ascii: "$")] + (bytes[index + 1] == UInt8(ascii: "[") ? [] : [UInt8(ascii: ".")])
                            + bytes[(index + 1)...])
                    guard let first = rest.first else { throw JSONPathError(message: "a name must follow '..'") }
                    return steps + [.descendant(first)] + rest.dropFirst()
                }
                if bytes[index] == UInt8(ascii: "*") {
                    steps.append(.wildcard)
                    index += 1
                    continue
                }
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "."), bytes[index] != UInt8(ascii: "[") { index += 1 }
                guard index > start else { throw JSONPathError(message: "an empty name after '.'") }
                steps.append(.member(String(decoding: bytes[start..<index], as: UTF8.self)))
            case UInt8(ascii: "["):
                index += 1
                guard index < bytes.count else { throw JSONPathError(message: "'[' is never closed") }
                let opener = bytes[index]
                if opener == UInt8(ascii: "'") || opener == UInt8(ascii: "\"") {
                    index += 1
                    var name: [UInt8] = []
                    while index < bytes.count, bytes[index] != opener {
                        if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                        name.append(bytes[index])
                        index += 1
                    }
                    guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "]") else {
                        throw JSONPathError(message: "a quoted name in brackets must end with \(opener == UInt8(ascii: "'") ? "'" : "\"")]")
                    }
                    steps.append(.member(String(decoding: name, as: UTF8.self)))
                    index += 2
                    continue
                }
                if opener == UInt8(ascii: "?") {
                    let (filter, end) = try JSONPathFilter.parse(bytes, from: index + 1)
                    steps.append(.filter(filter))
                    index = end
                    continue
                }
                guard let close = bytes[index...].firstIndex(of: UInt8(ascii: "]")) else {
                    throw JSONPathError(message: "'[' is never closed")
                }
                let inside = String(decoding: bytes[index..<close], as: UTF8.self).trimmingCharacters(in: " ")
                index = close + 1
                if inside == "*" {
                    steps.append(.wildcard)
                } else if let number = Int(inside) {
                    steps.append(.index(number))
                } else {
                    throw JSONPathError(message: "'[\(inside)]' is not supported: use [0], [*] or ['name']")
                }
            default:
                throw JSONPathError(
                    message: "unexpected '\(String(decoding: [bytes[index]], as: UTF8.self))' at position \(index + 1); steps start with '.' or '['")
            }
        }
        return steps
    }
}

/// A JSONPath that cannot be parsed, and why.
public struct JSONPathError: Error, Sendable, Equatable {
    public var message: String
}
