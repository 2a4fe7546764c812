/// A JSONPath filter, `[?(@.kind == 'book' && @.price < 10)]`, compiled once: which items of a list (or which
/// object) it keeps, as Jayway's JsonPath decides.
public struct JSONPathFilter: Sendable, Equatable {
    indirect enum Expression: Sendable {
        case and(Expression, Expression)
        case or(Expression, Expression)
        case not(Expression)
        /// A path alone: it selects something.
        case exists(Operand)
        case compare(Operand, String, Operand)
        case matches(Operand, Pattern)
    }

    enum Operand: Sendable {
        /// `@.a.b` (the item) or `$.a` (the document's root is not known here, and reads as the item too).
        case path(JSONPath)
        case literal(JSONValue)
    }

    let source: String
    let expression: Expression

    public static func == (lhs: JSONPathFilter, rhs: JSONPathFilter) -> Bool { lhs.source == rhs.source }

    /// Parses `(…)]` after `[?` at `start`; returns the filter and the position after its `]`.
    static func parse(_ bytes: [UInt8], from start: Int) throws(JSONPathError) -> (JSONPathFilter, Int) {
        var parser = Parser(bytes: bytes, position: start)
        parser.skipSpaces()
        guard parser.take("(") else { throw JSONPathError(message: "a filter is written [?(…)]") }
        let expression = try parser.or()
        parser.skipSpaces()
        guard parser.take(")") else { throw JSONPathError(message: "a filter's '(' is never closed") }
        parser.skipSpaces()
        guard parser.take("]") else { throw JSONPathError(message: "a filter must end with ')]'") }
        let source = String(decoding: bytes[(start - 2)..<parser.position], as: UTF8.self)
        return (JSONPathFilter(source: source, expression: expression), parser.position)
    }

    func holds(for item: JSONValue) -> Bool {
        Self.evaluate(expression, item)
    }

    private static func evaluate(_ expression: Expression, _ item: JSONValue) -> Bool {
        switch expression {
        case .and(let left, let right): return evaluate(left, item) && evaluate(right, item)
        case .or(let left, let right): return evaluate(left, item) || evaluate(right, item)
        case .not(let inner): return !evaluate(inner, item)
        case .exists(let operand): return value(operand, item) != nil
        case .matches(let operand, let pattern):
            guard case .string(let text)? = value(operand, item) else { return false }
            return pattern.matches(text)
        case .compare(let left, let operation, let right):
            guard let a = value(left, item), let b = value(right, item) else { return operation == "!=" }
            switch operation {
            case "==": return same(a, b)
            case "!=": return !same(a, b)
            default:
                let order: Int
                switch (a, b) {
                case (.number(let x, _), .number(let y, _)): order = x < y ? -1 : x > y ? 1 : 0
                case (.string(let x), .string(let y)): order = x < y ? -1 : x > y ? 1 : 0
                default: return false
                }
                switch operation {
                case "<": return order < 0
                case "<=": return order <= 0
                case ">": return order > 0
                default: return order >= 0
                }
            }
        }
    }

    private static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x, _), .number(let y, _)): x == y
        default: a == b
        }
    }

    private static func value(_ operand: Operand, _ item: JSONValue) -> JSONValue? {
        switch operand {
        case .literal(let value): return value
        case .path(let path): return path.select(in: item).first
        }
    }

    private struct Parser {
        let bytes: [UInt8]
        var position: Int

        mutating func skipSpaces() {
            while position < bytes.count, bytes[position] == UInt8(ascii: " ") { position += 1 }
        }

        mutating func take(_ text: String) -> Bool {
            let wanted = Array(text.utf8)
            guard bytes[position...].starts(with: wanted) else { return false }
            position += wanted.count
            return true
        }

        mutating func or() throws(JSONPathError) -> Expression {
            var left = try and()
            while true {
                skipSpaces()
                guard take("||") else { return left }
                left = .or(left, try and())
            }
        }

        mutating func and() throws(JSONPathError) -> Expression {
            var left = try unary()
            while true {
                skipSpaces()
                guard take("&&") else { return left }
                left = .and(left, try unary())
            }
        }

        mutating func unary() throws(JSONPathError) -> Expression {
            skipSpaces()
            if take("!") { return .not(try unary()) }
            if take("(") {
                let inner = try or()
                skipSpaces()
                guard take(")") else { throw JSONPathError(message: "a '(' in a filter is never closed") }
                return inner
            }
            let left = try operand()
            skipSpaces()
            for operation in ["==", "!=", "<=", ">=", "=~", "<", ">"] where take(operation) {
                skipSpaces()
                if operation == "=~" { return .matches(left, try regex()) }
                return .compare(left, operation, try operand())
            }
            guard case .path = left else {
                throw JSONPathError(message: "a value alone in a filter says nothing; compare it")
            }
            return .exists(left)
        }

        mutating func operand() throws(JSONPathError) -> Operand {
            skipSpaces()
            guard position < bytes.count else { throw JSONPathError(message: "a filter ends too early") }
            let first = bytes[position]
            if first == UInt8(ascii: "@") || first == UInt8(ascii: "$") {
                let start = position
                position += 1
                var quote: UInt8?
                while position < bytes.count {
                    let byte = bytes[position]
                    if let open = quote {
                        if byte == open { quote = nil }
                    } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                        quote = byte
                    } else if !(byte == UInt8(ascii: ".") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
                        || byte == UInt8(ascii: "*")
                        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte >= 0x80
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                        || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")))
                    {
                        break
                    }
                    position += 1
                }
                return .path(try JSONPath("$" + String(decoding: bytes[(start + 1)..<position], as: UTF8.self)))
            }
            if first == UInt8(ascii: "'") || first == UInt8(ascii: "\"") {
                position += 1
                let start = position
                while position < bytes.count, bytes[position] != first { position += 1 }
                guard position < bytes.count else {
                    throw JSONPathError(message: "a quoted text in a filter is never closed")
                }
                let text = String(decoding: bytes[start..<position], as: UTF8.self)
                position += 1
                return .literal(.string(text))
            }
            let start = position
            while position < bytes.count, !" )&|!=<>".utf8.contains(bytes[position]) { position += 1 }
            let word = String(decoding: bytes[start..<position], as: UTF8.self)
            switch word {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "null": return .literal(.null)
            default:
                guard let number = Double(word) else {
                    throw JSONPathError(message: "'\(word)' in a filter is not a value")
                }
                return .literal(.number(number, text: word))
            }
        }

        /// `/…/` with `i` after it to ignore case; it must match the whole text, as Java's `matches` does.
        mutating func regex() throws(JSONPathError) -> Pattern {
            guard take("/") else { throw JSONPathError(message: "'=~' takes a regex written /…/") }
            var sourceBytes: [UInt8] = []
            var escaped = false
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                if escaped {
                    if byte != UInt8(ascii: "/") { sourceBytes.append(UInt8(ascii: "\\")) }
                    sourceBytes.append(byte)
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "/") {
                    let ignoresCase = take("i")
                    let source = String(decoding: sourceBytes, as: UTF8.self)
                    do {
                        return try Pattern((ignoresCase ? "(?i)" : "") + "\\A(?:" + source + ")\\z")
                    } catch {
                        throw JSONPathError(message: "the regex /\(source)/ does not compile: \(error)")
                    }
                } else {
                    sourceBytes.append(byte)
                }
            }
            throw JSONPathError(message: "a regex in a filter is never closed with '/'")
        }
    }
}
