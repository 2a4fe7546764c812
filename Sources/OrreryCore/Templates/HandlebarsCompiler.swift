import Foundation

/// Compiles WireMock's Handlebars response templates (`template: handlebars`) into the engine's nodes, once when
/// the stub loads: literal bytes, lookups on the request, and helper calls whose regexes, JSONPaths and date
/// formats are prepared here, so no template text is parsed per request.
///
/// The request model: `request.url`, `path`, `path.[n]`, `pathSegments`, path parameters by name, `query.NAME`
/// (`.[n]`), `headers.NAME` (`.[n]`), `cookies.NAME`, `method`, `baseUrl`, `body`. Values in `{{x}}` are
/// HTML-escaped as Handlebars escapes them, those in `{{{x}}}` are not. Blocks: `#if`, `#unless` (with `else` and
/// `else if`), `#each`, and the comparisons `#eq`, `#neq`, `#lt`, `#lte`, `#gt`, `#gte`, `#and`, `#or`, `#not`,
/// `#contains`, `#matches`. Helpers: `jsonPath`, `regexExtract`, `randomValue`, `now`, `date`, `base64`,
/// `urlEncode`, `upper`, `lower`, `trim`, `size`, `pickRandom`, `math`, `formatJson`, and the comparisons, also as
/// subexpressions (`{{#if (eq request.method 'POST')}}`). Anything else is refused with the tag and the reason.
public struct HandlebarsCompiler: Sendable {
    /// Path parameters of the stub's path (WireMock's `urlPathTemplate`), by position.
    public var parameterNames: [String]

    public init(parameterNames: [String] = []) {
        self.parameterNames = parameterNames
    }

    static let comparisons = ["eq", "neq", "lt", "lte", "gt", "gte", "and", "or", "not", "contains", "matches"]
    static let helpers =
        [
            "jsonPath", "regexExtract", "randomValue", "now", "date", "base64", "urlEncode", "upper", "lower", "trim",
            "size",
            "pickRandom", "math", "formatJson",
        ] + comparisons

    /// Compiles the text; throws the first error, with its line within the text.
    public func compile(_ text: String) throws(TemplateError) -> Template {
        var parser = Parser(compiler: self, source: Array(text.utf8))
        let nodes = try parser.parse()
        return Template(source: text, mode: .text, nodes: nodes)
    }

    private struct Block {
        var helper: String
        var argument: HelperArgument
        var isEach: Bool
        var inverted: Bool
        var line: Int
        var outer: [TemplateNode]
        var then: [TemplateNode]?
        /// Opened by `{{else if …}}`: it closes with the block it continues.
        var chained: Bool
    }

    /// One token of a tag: a name, a literal, `key=` or a parenthesis.
    enum Token: Equatable {
        case name(String)
        case string(String)
        case number(Double, String)
        case bool(Bool)
        case key(String)
        case open
        case close
    }

    private struct Parser {
        let compiler: HandlebarsCompiler
        let source: [UInt8]
        var blocks: [Block] = []
        var line = 1

        init(compiler: HandlebarsCompiler, source: [UInt8]) {
            self.compiler = compiler
            self.source = source
        }

        var inEach: Bool { blocks.contains(where: \.isEach) }

        mutating func parse() throws(TemplateError) -> [TemplateNode] {
            var nodes: [TemplateNode] = []
            var pending: [UInt8] = []
            var index = 0
            func flush() {
                if !pending.isEmpty { nodes.append(.literal(pending)) }
                pending.removeAll(keepingCapacity: true)
            }
            while index < source.count {
                guard let tagStart = TemplateCompiler.find([0x7B, 0x7B], in: source, from: index) else {
                    pending += source[index...]
                    break
                }
                pending += source[index..<tagStart]
                line = TemplateCompiler.line(of: tagStart, in: source)
                let isTriple = tagStart + 2 < source.count && source[tagStart + 2] == UInt8(ascii: "{")
                let contentStart = tagStart + (isTriple ? 3 : 2)
                let isLongComment = !isTriple && source[contentStart...].starts(with: "!--".utf8)
                let closer: [UInt8] =
                    isLongComment ? Array("--}}".utf8) : isTriple ? [0x7D, 0x7D, 0x7D] : [0x7D, 0x7D]
                guard let contentEnd = TemplateCompiler.find(closer, in: source, from: contentStart) else {
                    throw TemplateError(
                        line: line,
                        message:
                            "unclosed tag '\(TemplateCompiler.excerpt(source, from: tagStart))': no '\(String(decoding: closer, as: UTF8.self))' after it"
                    )
                }
                var tagEnd = contentEnd + closer.count
                var content = String(
                    decoding: source[contentStart..<(isLongComment ? contentEnd + 2 : contentEnd)], as: UTF8.self)
                // `{{~x~}}` takes the whitespace on its side away.
                if content.hasPrefix("~") {
                    content.removeFirst()
                    while let last = pending.last, Self.isSpace(last) { pending.removeLast() }
                }
                var trimAfter = false
                if content.hasSuffix("~") {
                    content.removeLast()
                    trimAfter = true
                }
                content = content.trimmingCharacters(in: .whitespacesAndNewlines)
                // Unlike Mustache, WireMock's Handlebars keeps the line of a block tag that stands alone.
                let sigil = isTriple ? "&" : content.first.map(String.init) ?? ""
                if trimAfter {
                    while tagEnd < source.count, Self.isSpace(source[tagEnd]) { tagEnd += 1 }
                }
                index = tagEnd
                if sigil == "!" { continue }
                flush()
                if sigil == "#" {
                    try open(String(content.dropFirst()), nodes: &nodes)
                } else if sigil == "/" {
                    try close(String(content.dropFirst()).trimmingCharacters(in: .whitespaces), nodes: &nodes)
                } else if content == "else" || content == "^" || content.hasPrefix("else ") {
                    try otherwise(String(content.dropFirst(content == "^" ? 1 : 4)), nodes: &nodes)
                } else if sigil == ">" {
                    throw TemplateError(line: line, message: "partials ('{{>') are not supported in response templates")
                } else {
                    let body = sigil == "&" && !isTriple ? String(content.dropFirst()) : content
                    let argument = try expression(try tokens(body))
                    if !isTriple && sigil != "&" {
                        nodes.append(.expression(argument, html: true))
                    } else if case .lookup(let lookup) = argument {
                        nodes.append(.value(lookup))
                    } else {
                        nodes.append(.expression(argument, html: false))
                    }
                }
            }
            flush()
            if let block = blocks.last {
                throw TemplateError(
                    line: block.line,
                    message: "the block '{{#\(block.helper)}}' is never closed (no '{{/\(block.helper)}}')")
            }
            return nodes
        }

        static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }

        private mutating func open(_ content: String, nodes: inout [TemplateNode], chained: Bool = false)
            throws(TemplateError)
        {
            let tokens = try tokens(content)
            guard case .name(let helper)? = tokens.first else {
                throw TemplateError(line: line, message: "'{{#\(content)}}' names no block helper")
            }
            let block: Block
            switch helper {
            case "if", "unless", "each":
                let arguments = Array(tokens.dropFirst())
                guard !arguments.isEmpty else {
                    throw TemplateError(
                        line: line,
                        message: "'{{#\(helper)}}' needs a value to test, as in {{#\(helper) request.query.q}}")
                }
                if arguments.contains(.name("as")) {
                    throw TemplateError(
                        line: line,
                        message: "block parameters ('as |item|') are not supported; use {{this}} inside {{#each}}")
                }
                let argument = try expression(arguments)
                block = Block(
                    helper: helper, argument: argument, isEach: helper == "each", inverted: helper == "unless",
                    line: line,
                    outer: nodes, chained: chained)
            case _ where HandlebarsCompiler.comparisons.contains(helper):
                block = Block(
                    helper: helper, argument: try expression(tokens), isEach: false, inverted: false, line: line,
                    outer: nodes,
                    chained: chained)
            default:
                throw TemplateError(
                    line: line,
                    message:
                        "block helper '\(helper)' is not supported (#if, #unless, #each and \(HandlebarsCompiler.comparisons.map { "#" + $0 }.joined(separator: ", ")) are)"
                )
            }
            blocks.append(block)
            nodes = []
        }

        private mutating func otherwise(_ rest: String, nodes: inout [TemplateNode]) throws(TemplateError) {
            guard let block = blocks.last, block.then == nil else {
                throw TemplateError(line: line, message: "'{{else}}' stands outside a block, or twice in one")
            }
            blocks[blocks.count - 1].then = nodes
            nodes = []
            let chained = rest.trimmingCharacters(in: .whitespaces)
            if !chained.isEmpty {
                try open(chained, nodes: &nodes, chained: true)
                // The chained block closes with its parent's closing tag.
                blocks[blocks.count - 1].helper = block.helper
            }
        }

        private mutating func close(_ name: String, nodes: inout [TemplateNode]) throws(TemplateError) {
            while true {
                guard let block = blocks.popLast() else {
                    throw TemplateError(line: line, message: "'{{/\(name)}}' closes a block that was never opened")
                }
                guard block.helper == name else {
                    throw TemplateError(
                        line: line,
                        message:
                            "'{{/\(name)}}' does not match the open block '{{#\(block.helper)}}' (line \(block.line))")
                }
                let then = block.then ?? nodes
                let otherwise = block.then == nil ? [] : nodes
                let node: TemplateNode =
                    block.isEach
                    ? .each(block.argument, then, otherwise: otherwise)
                    : .conditional(block.argument, inverted: block.inverted, then: then, otherwise: otherwise)
                nodes = block.outer + [node]
                if !block.chained { return }
            }
        }

        // MARK: - Tags

        /// The tokens of a tag's content.
        func tokens(_ content: String) throws(TemplateError) -> [Token] {
            var tokens: [Token] = []
            var characters = Array(content)[...]
            while let character = characters.first {
                if character.isWhitespace {
                    characters.removeFirst()
                } else if character == "(" || character == ")" {
                    characters.removeFirst()
                    tokens.append(character == "(" ? .open : .close)
                } else if character == "'" || character == "\"" {
                    characters.removeFirst()
                    guard let end = characters.firstIndex(of: character) else {
                        throw TemplateError(line: line, message: "a quoted string in '{{\(content)}}' is not closed")
                    }
                    tokens.append(.string(String(characters[..<end])))
                    characters = characters[(end + 1)...]
                } else {
                    var word = ""
                    var inBrackets = false
                    while let next = characters.first {
                        if inBrackets {
                            if next == "]" { inBrackets = false }
                        } else if next == "[" {
                            inBrackets = true
                        } else if next.isWhitespace || next == "(" || next == ")" || next == "=" {
                            break
                        }
                        word.append(next)
                        characters.removeFirst()
                    }
                    if characters.first == "=" {
                        characters.removeFirst()
                        tokens.append(.key(word))
                    } else if word == "true" || word == "false" {
                        tokens.append(.bool(word == "true"))
                    } else if let number = Double(word), word.first?.isNumber == true || word.first == "-" {
                        tokens.append(.number(number, word))
                    } else if word.isEmpty {
                        throw TemplateError(line: line, message: "'{{\(content)}}' is not an expression")
                    } else {
                        tokens.append(.name(word))
                    }
                }
            }
            return tokens
        }

        /// A whole tag's tokens: one name, one literal, or a helper call with its arguments.
        func expression(_ tokens: [Token]) throws(TemplateError) -> HelperArgument {
            var position = 0
            let argument: HelperArgument
            if case .name = tokens.first {
                argument = try call(tokens, &position, nested: false)
            } else {
                guard !tokens.isEmpty else { throw TemplateError(line: line, message: "an empty tag names nothing") }
                argument = try single(tokens, &position)
            }
            guard position == tokens.count else {
                throw TemplateError(line: line, message: "unexpected ')' in a tag")
            }
            return argument
        }

        private func call(_ tokens: [Token], _ position: inout Int, nested: Bool) throws(TemplateError)
            -> HelperArgument
        {
            guard position < tokens.count else {
                throw TemplateError(line: line, message: "an empty tag or '()' names nothing")
            }
            guard case .name(let name) = tokens[position] else {
                throw TemplateError(line: line, message: "a '(' must start with the name of a helper")
            }
            position += 1
            let hasArguments = position < tokens.count && tokens[position] != .close
            if hasArguments, !HandlebarsCompiler.helpers.contains(name) {
                throw TemplateError(line: line, message: "helper '\(name)' is not supported")
            }
            var arguments: [HelperArgument] = []
            var options: [(String, HelperArgument)] = []
            while position < tokens.count, tokens[position] != .close {
                if case .key(let key) = tokens[position] {
                    position += 1
                    options.append((key, try single(tokens, &position)))
                } else {
                    arguments.append(try single(tokens, &position))
                }
            }
            if nested {
                guard position < tokens.count else { throw TemplateError(line: line, message: "a '(' is not closed") }
                position += 1
            }
            if arguments.isEmpty, options.isEmpty, !HandlebarsCompiler.helpers.contains(name) {
                return .lookup(try lookup(name))
            }
            return .call(try helper(name, arguments, options))
        }

        private func single(_ tokens: [Token], _ position: inout Int) throws(TemplateError) -> HelperArgument {
            let token = tokens[position]
            position += 1
            switch token {
            case .string(let text): return .literal(.text(text))
            case .number(let number, let text): return .literal(.json(.number(number, text: text)))
            case .bool(let flag): return .literal(.bool(flag))
            case .name(let name):
                if name == "null" || name == "undefined" { return .literal(.missing) }
                if HandlebarsCompiler.helpers.contains(name), ["now", "randomValue"].contains(name) {
                    return .call(try helper(name, [], []))
                }
                return .lookup(try lookup(name))
            case .open:
                return try call(tokens, &position, nested: true)
            case .key(let key): throw TemplateError(line: line, message: "'\(key)=' needs a value")
            case .close: throw TemplateError(line: line, message: "unexpected ')'")
            }
        }

        // MARK: - Names

        /// A name of WireMock's request model, or of the item `{{#each}}` is on.
        func lookup(_ name: String) throws(TemplateError) -> TemplateLookup {
            let parts = HandlebarsCompiler.segments(name)
            if parts.first == "this" || name == "." {
                guard inEach else {
                    throw TemplateError(
                        line: line, message: "'\(name)' stands for an item of {{#each}}, and is outside one")
                }
                let below = Array(parts.dropFirst())
                return below.isEmpty ? .current : .contextual(below, fallback: nil)
            }
            if name.hasPrefix("@") || name.hasPrefix("../") {
                throw TemplateError(
                    line: line, message: "'\(name)' is not supported (data variables and parent scopes)")
            }
            guard parts.first == "request" else {
                if inEach, !parts.isEmpty { return .contextual(parts, fallback: nil) }
                let hint =
                    Suggestion.closest(
                        to: name, in: HandlebarsCompiler.helpers + ["request.path", "request.body", "request.query"]
                    )
                    .map { "; did you mean '\($0)'?" } ?? ""
                throw TemplateError(
                    line: line,
                    message: "'\(name)' is neither a helper Orrery runs nor a field of the request model\(hint)")
            }
            return .root(try requestLookup(name, Array(parts.dropFirst())))
        }

        private func requestLookup(_ name: String, _ parts: [String]) throws(TemplateError) -> RootLookup {
            guard let field = parts.first else {
                throw TemplateError(line: line, message: "'request' needs a field, such as request.path")
            }
            let below = Array(parts.dropFirst())
            let position = below.count == 2 ? Int(below[1]) : 0
            switch field {
            case "url" where below.isEmpty: return .url
            case "method" where below.isEmpty: return .method
            case "body" where below.isEmpty: return .body
            case "baseUrl" where below.isEmpty: return .baseUrl
            case "path", "pathSegments":
                if below.isEmpty { return field == "path" ? .path : .pathSegments }
                guard below.count == 1 else { break }
                if let index = Int(below[0]), index >= 0 { return .pathSegment(index) }
                if field == "path", let index = compiler.parameterNames.firstIndex(of: below[0]) {
                    return .parameter(index)
                }
            case "pathParameters":
                if below.count == 1, let index = compiler.parameterNames.firstIndex(of: below[0]) {
                    return .parameter(index)
                }
            case "query":
                guard let key = below.first, let position, position >= 0 else { break }
                return position == 0 ? .query(key) : .queryValue(key, position)
            case "headers":
                guard let key = below.first, let position, position >= 0 else { break }
                return position == 0 ? .header(key.lowercased()) : .headerValue(key, position)
            case "cookies":
                guard let key = below.first, position == 0 else { break }
                return .cookie(key)
            default:
                break
            }
            let fields = ["url", "path", "pathSegments", "query", "headers", "cookies", "method", "baseUrl", "body"]
            let hint = Suggestion.closest(to: field, in: fields).map { "; did you mean 'request.\($0)'?" } ?? ""
            throw TemplateError(
                line: line, message: "'\(name)' is not a field of the request model that Orrery knows\(hint)")
        }

        // MARK: - Helpers

        private func literalText(_ argument: HelperArgument?, _ what: String) throws(TemplateError) -> String? {
            guard let argument else { return nil }
            guard case .literal(let value) = argument else {
                throw TemplateError(
                    line: line, message: "\(what) must be written in the template (a quoted string), not looked up")
            }
            return value.text
        }

        private func helper(_ name: String, _ arguments: [HelperArgument], _ options: [(String, HelperArgument)])
            throws(TemplateError) -> HelperCall
        {
            func option(_ key: String) -> HelperArgument? { options.first { $0.0 == key }?.1 }
            func count(_ range: ClosedRange<Int>) throws(TemplateError) {
                guard range.contains(arguments.count) else {
                    let wanted =
                        range.lowerBound == range.upperBound
                        ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
                    throw TemplateError(
                        line: line, message: "'\(name)' takes \(wanted) argument(s), not \(arguments.count)")
                }
            }
            func regex(_ pattern: String, whole: Bool) throws(TemplateError) -> NSRegularExpression {
                // The stub's own pattern, checked by Orrery's linear engine's parser first, so what it refuses
                // (backreferences, lookaround) is refused here too.
                do {
                    _ = try Pattern(pattern)
                    return try NSRegularExpression(pattern: whole ? "(?:\(pattern))" : pattern)
                } catch {
                    throw TemplateError(
                        line: line, message: "'\(name)': the regex '\(pattern)' does not compile (\(error))")
                }
            }
            let helper: TemplateHelper
            switch name {
            case "jsonPath":
                try count(2...2)
                let source = try literalText(arguments[1], "the JSONPath") ?? ""
                do {
                    helper = .jsonPath(try JSONPath(source))
                } catch {
                    throw TemplateError(line: line, message: "'jsonPath' \(source): \(error.message)")
                }
            case "regexExtract":
                guard arguments.count != 3 else {
                    throw TemplateError(
                        line: line, message: "'regexExtract' into a variable (a third argument) is not supported")
                }
                try count(2...2)
                helper = .regexExtract(try regex(try literalText(arguments[1], "the regex") ?? "", whole: false))
            case "randomValue":
                try count(0...0)
                let type = try literalText(option("type"), "type") ?? "ALPHANUMERIC"
                guard let kind = TemplateHelper.RandomValueKind(rawValue: type) else {
                    throw TemplateError(
                        line: line,
                        message:
                            "randomValue type '\(type)' is not supported (UUID, ALPHANUMERIC, ALPHABETIC, NUMERIC, HEXADECIMAL, ALPHANUMERIC_AND_SYMBOLS)"
                    )
                }
                var length = 36
                if let given = option("length") {
                    guard case .literal(let value) = given, let number = value.number, number >= 0, number <= 4096
                    else {
                        throw TemplateError(line: line, message: "randomValue length must be a number from 0 to 4096")
                    }
                    length = Int(number)
                }
                var uppercase = false
                if case .literal(let value)? = option("uppercase") { uppercase = value.isTruthy }
                helper = .randomValue(kind, length: length, uppercase: uppercase)
            case "now", "date":
                try count(name == "now" ? 0...0 : 1...1)
                if let zone = try literalText(option("timezone"), "timezone"), !["UTC", "GMT", "Z"].contains(zone) {
                    throw TemplateError(
                        line: line, message: "'\(name)' in time zone '\(zone)' is not supported (UTC only)")
                }
                var format = TemplateDateFormat.iso
                if let pattern = try literalText(option("format"), "format") {
                    do {
                        format = try TemplateDateFormat(pattern)
                    } catch {
                        throw TemplateError(line: line, message: error.message)
                    }
                }
                var offset = 0
                if let text = try literalText(option("offset"), "offset") {
                    guard let seconds = TemplateDateFormat.offsetSeconds(text) else {
                        throw TemplateError(
                            line: line,
                            message:
                                "the offset '\(text)' is not supported (a number and seconds, minutes, hours, days or weeks)"
                        )
                    }
                    offset = seconds
                }
                helper = name == "now" ? .now(format, offsetSeconds: offset) : .date(format, offsetSeconds: offset)
            case "base64", "urlEncode":
                try count(1...1)
                var decode = false
                if case .literal(let value)? = option("decode") { decode = value.isTruthy }
                helper = name == "base64" ? .base64(decode: decode) : .urlEncode(decode: decode)
            case "upper", "lower", "trim", "size", "formatJson":
                try count(1...1)
                helper =
                    [
                        "upper": .upper, "lower": .lower, "trim": .trim, "size": .size, "formatJson": .formatJson,
                    ][name] ?? .trim
            case "pickRandom":
                try count(1...64)
                helper = .pickRandom
            case "math":
                try count(3...3)
                let operation = try literalText(arguments[1], "the operator") ?? ""
                guard ["+", "-", "*", "/", "%"].contains(operation) else {
                    throw TemplateError(line: line, message: "math operator '\(operation)' is not one of + - * / %")
                }
                return HelperCall(helper: .math(operation), arguments: [arguments[0], arguments[2]], options: [])
            case "eq", "neq", "lt", "lte", "gt", "gte", "contains":
                try count(2...2)
                helper =
                    [
                        "eq": .equal, "neq": .notEqual, "lt": .less, "lte": .lessOrEqual, "gt": .greater,
                        "gte": .greaterOrEqual,
                        "contains": .contains,
                    ][name] ?? .equal
            case "and", "or":
                try count(1...64)
                helper = name == "and" ? .and : .or
            case "not":
                try count(1...1)
                helper = .not
            case "matches":
                try count(2...2)
                helper = .matches(try regex(try literalText(arguments[1], "the regex") ?? "", whole: true))
            default:
                throw TemplateError(line: line, message: "helper '\(name)' is not supported")
            }
            return HelperCall(helper: helper, arguments: arguments, options: options)
        }
    }

    /// `request.path.[1]` and `request.headers.[X-Id]` as segments `request`, `path`, `1` (Handlebars' `[...]`
    /// quotes a segment).
    static func segments(_ name: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var inBrackets = false
        for character in name {
            switch character {
            case "[" where !inBrackets: inBrackets = true
            case "]" where inBrackets: inBrackets = false
            case "." where !inBrackets:
                parts.append(current)
                current = ""
            default: current.append(character)
            }
        }
        parts.append(current)
        return parts.filter { !$0.isEmpty }
    }
}
