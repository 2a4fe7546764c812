import Foundation

/// Rewrites WireMock's Handlebars response templates as Orrery templates, which compile at load into literal bytes
/// and lookups on the request; what has no Orrery equivalent is refused with the tag and the reason.
///
/// Handled: `request.path`, `request.path.[n]` and `request.pathSegments.[n]`, path parameters by name
/// (`request.path.id`), `request.query.NAME` (and its first value, `.[0]`), `request.headers.NAME`,
/// `request.method`, `request.body`, `jsonPath request.body '$.a.b[0]'`, `randomValue type='UUID'`, `now`,
/// `{{#if x}}…{{else}}…{{/if}}` and `{{#unless x}}…{{/unless}}` on those values, and comments.
public struct HandlebarsTranslator: Sendable {
    /// Path parameters of the mapping's `urlPathTemplate`.
    public var parameterNames: [String]

    public init(parameterNames: [String] = []) {
        self.parameterNames = parameterNames
    }

    public struct Refusal: Error, Sendable, Equatable {
        public var tag: String
        public var reason: String
    }

    /// The template in Orrery's syntax.
    public func translate(_ text: String) throws(Refusal) -> String {
        try translateNotingEscapes(text).template
    }

    /// The template in Orrery's syntax, and whether it prints a value in double braces: Handlebars HTML-escapes
    /// those (`&` as `&amp;`), Orrery writes every value as it is.
    public func translateNotingEscapes(_ text: String) throws(Refusal) -> (template: String, escapes: Bool) {
        var escapes = false
        var out = ""
        var rest = Substring(text)
        // Open `#if`/`#unless` blocks: the Orrery name they test, and whether an `else` was seen.
        var blocks: [(helper: String, name: String, sawElse: Bool)] = []
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            let isTriple = rest[open.upperBound...].hasPrefix("{")
            let closing = isTriple ? "}}}" : "}}"
            let bodyStart = isTriple ? rest.index(after: open.upperBound) : open.upperBound
            guard let close = rest[bodyStart...].range(of: closing) else {
                throw Refusal(tag: String(rest[open.lowerBound...].prefix(40)), reason: "the tag is not closed")
            }
            let tag = String(rest[open.lowerBound..<close.upperBound])
            var inner = rest[bodyStart..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            rest = rest[close.upperBound...]
            // `{{~x~}}` trims whitespace around the tag; Orrery keeps it.
            if inner.hasPrefix("~") || inner.hasSuffix("~") {
                throw Refusal(tag: tag, reason: "whitespace control ('~') is not supported")
            }
            if inner.hasPrefix("!") { continue }
            if inner.hasPrefix("#") {
                inner.removeFirst()
                let words = try Self.words(inner, tag: tag)
                guard words.count == 2, words[0] == "if" || words[0] == "unless" else {
                    throw Refusal(tag: tag, reason: "block helper '\(words.first ?? "")' is not supported (only #if and #unless on a value)")
                }
                let name = try lookup(words[1], tag: tag)
                blocks.append((words[0], name, false))
                out += words[0] == "if" ? "{{#\(name)}}" : "{{^\(name)}}"
                continue
            }
            if inner == "else" {
                guard let block = blocks.last, !block.sawElse else { throw Refusal(tag: tag, reason: "'else' outside an #if or #unless block") }
                blocks[blocks.count - 1].sawElse = true
                out += block.helper == "if" ? "{{/\(block.name)}}{{^\(block.name)}}" : "{{/\(block.name)}}{{#\(block.name)}}"
                continue
            }
            if inner.hasPrefix("/") {
                let helper = inner.dropFirst().trimmingCharacters(in: .whitespaces)
                guard let block = blocks.popLast(), block.helper == helper else {
                    throw Refusal(tag: tag, reason: "'/\(helper)' closes no open block")
                }
                out += "{{/\(block.name)}}"
                continue
            }
            let name = try expression(inner, tag: tag)
            // A generated UUID or time holds nothing HTML escapes.
            if !isTriple, !inner.hasPrefix("&"), name != "uuid", name != "now" { escapes = true }
            out += "{{" + name + "}}"
        }
        if let block = blocks.last { throw Refusal(tag: "{{#\(block.helper)}}", reason: "the block is not closed") }
        out += rest
        return (out, escapes)
    }

    /// An expression that prints a value.
    private func expression(_ inner: String, tag: String) throws(Refusal) -> String {
        let words = try Self.words(inner, tag: tag)
        guard let head = words.first else { throw Refusal(tag: tag, reason: "an empty tag") }
        switch head {
        case "now" where words.count == 1:
            return "now"
        case "randomValue":
            guard words.count == 2, words[1] == "type='UUID'" || words[1] == "type=\"UUID\"" else {
                throw Refusal(tag: tag, reason: "randomValue is supported with type='UUID' only")
            }
            return "uuid"
        case "jsonPath":
            guard words.count == 3, words[1] == "request.body" else {
                throw Refusal(tag: tag, reason: "jsonPath is supported on request.body only")
            }
            return try jsonPath(Self.unquoted(words[2]), tag: tag)
        default:
            guard words.count == 1 else { throw Refusal(tag: tag, reason: "helper '\(head)' is not supported") }
            return try lookup(head, tag: tag)
        }
    }

    /// A name of WireMock's request model as an Orrery name.
    private func lookup(_ name: String, tag: String) throws(Refusal) -> String {
        let parts = Self.segments(name)
        guard parts.first == "request", parts.count >= 2 else {
            throw Refusal(tag: tag, reason: "'\(name)' is not a field of the request model that Orrery knows")
        }
        let field = parts[1]
        let below = Array(parts.dropFirst(2))
        switch field {
        case "method" where below.isEmpty, "body" where below.isEmpty:
            return "request.\(field)"
        case "path", "pathSegments":
            if below.isEmpty { return field == "path" ? "request.path" : "request.pathSegments" }
            guard below.count == 1 else { break }
            if let index = Int(below[0]), index >= 0 { return "request.pathSegments.\(index)" }
            if field == "path", parameterNames.contains(below[0]) { return "params.\(below[0])" }
        case "pathParameters":
            if below.count == 1, parameterNames.contains(below[0]) { return "params.\(below[0])" }
        case "query":
            if below.count == 1 || (below.count == 2 && below[1] == "0") { return "request.query.\(below[0])" }
        case "headers":
            if below.count == 1 || (below.count == 2 && below[1] == "0") { return "request.headers.\(below[0].lowercased())" }
        default:
            break
        }
        throw Refusal(tag: tag, reason: "'\(name)' has no Orrery equivalent")
    }

    /// `$.a.b[0]` and `$['a'].b` as `request.json.a.b.0`.
    private func jsonPath(_ expression: String, tag: String) throws(Refusal) -> String {
        let refusal = Refusal(tag: tag, reason: "the JSONPath '\(expression)' is not a plain path of names and indexes")
        guard let path = try? JSONPath(expression) else { throw refusal }
        var names: [String] = []
        for step in path.steps {
            switch step {
            case .member(let name) where !name.contains(".") && !name.isEmpty: names.append(name)
            case .index(let index) where index >= 0: names.append(String(index))
            default: throw refusal
            }
        }
        return (["request", "json"] + names).joined(separator: ".")
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

    /// The words of a tag: names, `key=value` pairs and quoted strings.
    static func words(_ inner: String, tag: String) throws(Refusal) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        for character in inner {
            if let open = quote {
                current.append(character)
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
                current.append(character)
            } else if character == " " || character == "\t" || character == "\n" {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else if character == "(" || character == ")" {
                throw Refusal(tag: tag, reason: "subexpressions are not supported")
            } else {
                current.append(character)
            }
        }
        if quote != nil { throw Refusal(tag: tag, reason: "a quoted string is not closed") }
        if !current.isEmpty { words.append(current) }
        return words
    }

    static func unquoted(_ word: String) -> String {
        guard word.count >= 2, let first = word.first, first == "'" || first == "\"", word.last == first else { return word }
        return String(word.dropFirst().dropLast())
    }
}
