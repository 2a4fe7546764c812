/// An XPath 1.0 expression, compiled once when a stub loads, for the `xpath` body matcher.
///
/// The subset request matching needs: location paths (absolute, relative, `//`, `.`, `..`, `@name`, `*`, `text()`,
/// `node()`) on the axes `child`, `descendant`, `descendant-or-self`, `self`, `parent`, `ancestor`,
/// `ancestor-or-self`, `attribute`, `following-sibling`, `preceding-sibling`, `following` and `preceding`;
/// predicates (`[2]`, `[@id='7']`, `[last()]`); `or`, `and`, `=`, `!=`, `<`, `<=`, `>`, `>=`, `+`, `-`, `*`, `div`,
/// `mod`, `|`; literals and numbers; and the functions of the core library that read values (`count`, `last`,
/// `position`, `string`, `concat`, `contains`, `starts-with`, `ends-with`, `substring-before`, `substring-after`,
/// `string-length`, `normalize-space`, `not`, `true`, `false`, `boolean`, `number`, `sum`, `name`, `local-name`).
/// Anything else (variables, other functions) is refused when the stub loads.
public struct XPath: Sendable, CustomStringConvertible {
    indirect enum Expression: Sendable {
        case path(absolute: Bool, steps: [Step])
        /// A primary expression (literal, call, parenthesis) followed by steps, as `(//a)[1]/b`.
        case filtered(Expression, predicates: [Expression], steps: [Step])
        case literal(String)
        case number(Double)
        case call(String, [Expression])
        case binary(String, Expression, Expression)
        case negate(Expression)
    }

    enum Axis: String, Sendable, CaseIterable {
        case child, descendant, parent, ancestor, attribute, following, preceding
        case descendantOrSelf = "descendant-or-self"
        case ancestorOrSelf = "ancestor-or-self"
        case followingSibling = "following-sibling"
        case precedingSibling = "preceding-sibling"
        case `self`
    }

    enum NodeTest: Sendable {
        case name(String)
        case any
        case text
        case node
    }

    struct Step: Sendable {
        var axis: Axis
        var test: NodeTest
        var predicates: [Expression]
    }

    public let source: String
    let expression: Expression

    static let functions: [String: ClosedRange<Int>] = [
        "count": 1...1, "last": 0...0, "position": 0...0, "string": 0...1, "concat": 2...64, "contains": 2...2,
        "starts-with": 2...2, "ends-with": 2...2, "substring-before": 2...2, "substring-after": 2...2,
        "string-length": 0...1, "normalize-space": 0...1, "not": 1...1, "true": 0...0, "false": 0...0,
        "boolean": 1...1, "number": 0...1, "sum": 1...1, "name": 0...1, "local-name": 0...1,
    ]

    public init(_ source: String) throws(XPathError) {
        self.source = source
        var parser = Parser(tokens: try Self.tokens(source))
        expression = try parser.expression()
        guard parser.position == parser.tokens.count else {
            throw XPathError(message: "unexpected '\(parser.tokens[parser.position].text)'")
        }
    }

    public var description: String { source }

    // MARK: - Tokens

    enum TokenKind: Equatable {
        case name, literal, number, symbol
    }

    struct Token {
        var kind: TokenKind
        var text: String
    }

    static func tokens(_ source: String) throws(XPathError) -> [Token] {
        let scalars = Array(source.unicodeScalars)
        var tokens: [Token] = []
        var position = 0
        func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || scalar == "_"
        }
        func isNamePart(_ scalar: Unicode.Scalar) -> Bool {
            isNameStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "."
        }
        while position < scalars.count {
            let scalar = scalars[position]
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
                position += 1
            } else if scalar == "\"" || scalar == "'" {
                guard let end = scalars[(position + 1)...].firstIndex(of: scalar) else {
                    throw XPathError(message: "unterminated literal at offset \(position)")
                }
                var text = ""
                text.unicodeScalars.append(contentsOf: scalars[(position + 1)..<end])
                tokens.append(Token(kind: .literal, text: text))
                position = end + 1
            } else if ("0"..."9").contains(scalar)
                || (scalar == "." && position + 1 < scalars.count && ("0"..."9").contains(scalars[position + 1]))
            {
                var text = ""
                while position < scalars.count, ("0"..."9").contains(scalars[position]) || scalars[position] == "." {
                    text.unicodeScalars.append(scalars[position])
                    position += 1
                }
                tokens.append(Token(kind: .number, text: text))
            } else if isNameStart(scalar) {
                var text = ""
                while position < scalars.count, isNamePart(scalars[position])
                    || (scalars[position] == ":" && position + 1 < scalars.count && scalars[position + 1] != ":")
                {
                    text.unicodeScalars.append(scalars[position])
                    position += 1
                }
                // A name ending in ':' before '*' is a prefix test (`soap:*`), read as any element.
                if text.hasSuffix(":"), position < scalars.count, scalars[position] == "*" {
                    text += "*"
                    position += 1
                }
                tokens.append(Token(kind: .name, text: text))
            } else {
                let two = position + 1 < scalars.count ? String(scalar) + String(scalars[position + 1]) : ""
                if ["//", "::", "..", "!=", "<=", ">="].contains(two) {
                    tokens.append(Token(kind: .symbol, text: two))
                    position += 2
                } else if "/()[]@,|=<>+-*.$".unicodeScalars.contains(scalar) {
                    tokens.append(Token(kind: .symbol, text: String(scalar)))
                    position += 1
                } else {
                    throw XPathError(message: "unexpected '\(scalar)' at offset \(position)")
                }
            }
        }
        return tokens
    }

    // MARK: - Grammar

    struct Parser {
        let tokens: [Token]
        var position = 0

        func peek(_ offset: Int = 0) -> Token? {
            position + offset < tokens.count ? tokens[position + offset] : nil
        }

        func isSymbol(_ text: String, _ offset: Int = 0) -> Bool {
            guard let token = peek(offset) else { return false }
            return token.kind == .symbol && token.text == text
        }

        /// An operator name (`and`, `div`) counts as one only where an operator can stand: after an operand.
        func isOperatorName(_ text: String) -> Bool {
            guard let token = peek(), token.kind == .name, token.text == text, position > 0 else { return false }
            let before = tokens[position - 1]
            return !(before.kind == .symbol && !["]", ")", "*", ".", ".."].contains(before.text))
        }

        mutating func expect(_ text: String) throws(XPathError) {
            guard isSymbol(text) else {
                throw XPathError(message: "expected '\(text)'" + (peek().map { ", not '\($0.text)'" } ?? " at the end"))
            }
            position += 1
        }

        mutating func expression() throws(XPathError) -> Expression {
            var left = try and()
            while isOperatorName("or") {
                position += 1
                left = .binary("or", left, try and())
            }
            return left
        }

        mutating func and() throws(XPathError) -> Expression {
            var left = try equality()
            while isOperatorName("and") {
                position += 1
                left = .binary("and", left, try equality())
            }
            return left
        }

        mutating func equality() throws(XPathError) -> Expression {
            var left = try relational()
            while let token = peek(), token.kind == .symbol, token.text == "=" || token.text == "!=" {
                position += 1
                left = .binary(token.text, left, try relational())
            }
            return left
        }

        mutating func relational() throws(XPathError) -> Expression {
            var left = try additive()
            while let token = peek(), token.kind == .symbol, ["<", "<=", ">", ">="].contains(token.text) {
                position += 1
                left = .binary(token.text, left, try additive())
            }
            return left
        }

        mutating func additive() throws(XPathError) -> Expression {
            var left = try multiplicative()
            while let token = peek(), token.kind == .symbol, token.text == "+" || token.text == "-" {
                position += 1
                left = .binary(token.text, left, try multiplicative())
            }
            return left
        }

        mutating func multiplicative() throws(XPathError) -> Expression {
            var left = try unary()
            while true {
                if isSymbol("*") {
                    position += 1
                    left = .binary("*", left, try unary())
                } else if isOperatorName("div") || isOperatorName("mod") {
                    let name = tokens[position].text
                    position += 1
                    left = .binary(name, left, try unary())
                } else {
                    return left
                }
            }
        }

        mutating func unary() throws(XPathError) -> Expression {
            if isSymbol("-") {
                position += 1
                return .negate(try unary())
            }
            var left = try pathExpression()
            while isSymbol("|") {
                position += 1
                left = .binary("|", left, try pathExpression())
            }
            return left
        }

        mutating func pathExpression() throws(XPathError) -> Expression {
            guard let token = peek() else { throw XPathError(message: "the expression ends too early") }
            let isPrimary: Bool
            switch token.kind {
            case .literal, .number: isPrimary = true
            case .symbol: isPrimary = token.text == "(" || token.text == "$"
            case .name:
                let isNodeType = ["text", "node", "comment", "processing-instruction"].contains(token.text)
                isPrimary = isSymbol("(", 1) && !isNodeType
            }
            guard isPrimary else { return try locationPath() }
            let primary = try self.primary()
            var predicates: [Expression] = []
            while isSymbol("[") { predicates.append(try predicate()) }
            var steps: [Step] = []
            try relativeSteps(into: &steps, mustStart: false)
            if predicates.isEmpty && steps.isEmpty { return primary }
            return .filtered(primary, predicates: predicates, steps: steps)
        }

        mutating func primary() throws(XPathError) -> Expression {
            guard let token = peek() else { throw XPathError(message: "the expression ends too early") }
            position += 1
            switch token.kind {
            case .literal: return .literal(token.text)
            case .number:
                guard let value = Double(token.text) else { throw XPathError(message: "'\(token.text)' is not a number") }
                return .number(value)
            case .symbol where token.text == "$":
                throw XPathError(message: "variables ($name) are not supported")
            case .symbol:
                let inner = try expression()
                try expect(")")
                return inner
            case .name:
                guard let arity = XPath.functions[token.text] else {
                    let hint = Suggestion.hint(for: token.text, in: XPath.functions.keys.sorted())
                    throw XPathError(message: "the function \(token.text)() is not supported\(hint)")
                }
                try expect("(")
                var arguments: [Expression] = []
                if !isSymbol(")") {
                    arguments.append(try expression())
                    while isSymbol(",") {
                        position += 1
                        arguments.append(try expression())
                    }
                }
                try expect(")")
                guard arity.contains(arguments.count) else {
                    throw XPathError(message: "\(token.text)() takes \(arity.lowerBound == arity.upperBound ? "\(arity.lowerBound)" : "\(arity.lowerBound) to \(arity.upperBound)") argument(s), not \(arguments.count)")
                }
                return .call(token.text, arguments)
            }
        }

        mutating func predicate() throws(XPathError) -> Expression {
            try expect("[")
            let inner = try expression()
            try expect("]")
            return inner
        }

        mutating func locationPath() throws(XPathError) -> Expression {
            var steps: [Step] = []
            if isSymbol("/") {
                position += 1
                // '/' alone is the root; it is followed by a step only when one can start here.
                if canStartStep() { try step(into: &steps) }
                try relativeSteps(into: &steps, mustStart: false)
                return .path(absolute: true, steps: steps)
            }
            if isSymbol("//") {
                position += 1
                steps.append(Step(axis: .descendantOrSelf, test: .node, predicates: []))
                try step(into: &steps)
                try relativeSteps(into: &steps, mustStart: false)
                return .path(absolute: true, steps: steps)
            }
            try step(into: &steps)
            try relativeSteps(into: &steps, mustStart: false)
            return .path(absolute: false, steps: steps)
        }

        func canStartStep() -> Bool {
            guard let token = peek() else { return false }
            return token.kind == .name || (token.kind == .symbol && ["@", "*", ".", ".."].contains(token.text))
        }

        mutating func relativeSteps(into steps: inout [Step], mustStart: Bool) throws(XPathError) {
            while true {
                if isSymbol("/") {
                    position += 1
                } else if isSymbol("//") {
                    position += 1
                    steps.append(Step(axis: .descendantOrSelf, test: .node, predicates: []))
                } else {
                    return
                }
                try step(into: &steps)
            }
        }

        mutating func step(into steps: inout [Step]) throws(XPathError) {
            if isSymbol(".") {
                position += 1
                steps.append(Step(axis: .self, test: .node, predicates: []))
                return
            }
            if isSymbol("..") {
                position += 1
                steps.append(Step(axis: .parent, test: .node, predicates: []))
                return
            }
            var axis = Axis.child
            if isSymbol("@") {
                position += 1
                axis = .attribute
            } else if let token = peek(), token.kind == .name, isSymbol("::", 1) {
                guard let named = Axis(rawValue: token.text) else {
                    let hint = Suggestion.hint(for: token.text, in: Axis.allCases.map(\.rawValue))
                    throw XPathError(message: "the axis \(token.text):: is not supported\(hint)")
                }
                axis = named
                position += 2
            }
            let test: NodeTest
            guard let token = peek() else { throw XPathError(message: "a step is missing at the end") }
            if token.kind == .symbol && token.text == "*" {
                position += 1
                test = .any
            } else if token.kind == .name {
                position += 1
                if isSymbol("(") {
                    try expect("(")
                    try expect(")")
                    switch token.text {
                    case "text": test = .text
                    case "node": test = .node
                    default: throw XPathError(message: "the node test \(token.text)() is not supported")
                    }
                } else {
                    test = token.text.hasSuffix(":*") ? .any : .name(token.text)
                }
            } else {
                throw XPathError(message: "expected a step, not '\(token.text)'")
            }
            var predicates: [Expression] = []
            while isSymbol("[") { predicates.append(try predicate()) }
            steps.append(Step(axis: axis, test: test, predicates: predicates))
        }
    }
}

/// Why an XPath expression cannot be compiled.
public struct XPathError: Error, Sendable, Equatable {
    public var message: String
}
