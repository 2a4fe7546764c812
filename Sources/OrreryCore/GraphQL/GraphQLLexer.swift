/// Splits GraphQL source text into tokens, as the spec's lexical grammar has it: whitespace, line terminators,
/// commas, comments and a byte order mark are ignored; strings are decoded (escapes, block string indentation).
struct GraphQLLexer {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func error(_ message: String, at position: Int? = nil) -> GraphQLSyntaxError {
        GraphQLSyntaxError(line: line, column: (position ?? index) - lineStart + 1, message: message)
    }

    /// The next token, `.end` at the end of the text.
    mutating func next() throws(GraphQLSyntaxError) -> GraphQLToken {
        skipIgnored()
        let start = index
        let column = start - lineStart + 1
        func token(_ kind: GraphQLToken.Kind) -> GraphQLToken { GraphQLToken(kind: kind, line: line, column: column) }
        guard index < bytes.count else { return token(.end) }
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "]"),
            UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
            index += 1
            return token(.punctuator(String(decoding: [byte], as: UTF8.self)))
        case UInt8(ascii: "."):
            guard bytes[index...].starts(with: "...".utf8) else {
                throw error("'.' is not a token; did you mean '...'?")
            }
            index += 3
            return token(.punctuator("..."))
        case UInt8(ascii: "\""):
            let startLine = line
            if bytes[index...].starts(with: "\"\"\"".utf8) {
                let value = try blockString()
                return GraphQLToken(kind: .string(value, isBlock: true), line: startLine, column: column)
            }
            return token(.string(try string(), isBlock: false))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return token(try number())
        default:
            guard Self.isNameStart(byte) else {
                if byte < 0x20 || byte == 0x7F { throw error("unexpected control character \(byte)") }
                throw error("unexpected character '\(Self.character(at: index, in: bytes))'")
            }
            while index < bytes.count, Self.isNameContinue(bytes[index]) { index += 1 }
            return token(.name(String(decoding: bytes[start..<index], as: UTF8.self)))
        }
    }

    private static func character(at position: Int, in bytes: [UInt8]) -> String {
        var end = position + 1
        while end < bytes.count, end < position + 4, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }

    static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_")
    }

    static func isNameContinue(_ byte: UInt8) -> Bool {
        isNameStart(byte) || isDigit(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func newLine(after position: Int) {
        line += 1
        lineStart = position + 1
    }

    private mutating func skipIgnored() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "\n"):
                newLine(after: index)
                index += 1
            case UInt8(ascii: "\r"):
                // \r\n is one line terminator.
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { index += 1 }
                newLine(after: index)
                index += 1
            case UInt8(ascii: "#"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n"), bytes[index] != UInt8(ascii: "\r") {
                    index += 1
                }
            case 0xEF where bytes[index...].starts(with: [0xEF, 0xBB, 0xBF]):
                index += 3
            default:
                return
            }
        }
    }

    /// IntValue or FloatValue; neither may be followed by `.` or a name start (`1.`, `0x1`, `1e` are errors).
    private mutating func number() throws(GraphQLSyntaxError) -> GraphQLToken.Kind {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("a number needs a digit after '-'") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, Self.isDigit(bytes[index]) {
                throw error("a number may not start with 0 followed by another digit")
            }
        } else {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        var isFloat = false
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isFloat = true
            index += 1
            try digits("a fraction")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isFloat = true
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try digits("an exponent")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || Self.isNameStart(bytes[index]) {
            throw error("a number may not be followed by '\(Self.character(at: index, in: bytes))'")
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        return isFloat ? .float(text) : .int(text)
    }

    private mutating func digits(_ what: String) throws(GraphQLSyntaxError) {
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("\(what) needs at least one digit") }
        while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
    }

    /// A `"..."` string: no line terminator inside, escapes decoded.
    private mutating func string() throws(GraphQLSyntaxError) -> String {
        index += 1
        var out: [UInt8] = []
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                out += bytes[runStart..<index]
                index += 1
                return try Self.text(out, lexer: self)
            case UInt8(ascii: "\\"):
                out += bytes[runStart..<index]
                try escape(into: &out)
                runStart = index
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                throw error("a string ends at the end of its line; use a block string (\"\"\") for several lines")
            default:
                if byte < 0x20 && byte != UInt8(ascii: "\t") { throw error("control character \(byte) in a string") }
                index += 1
            }
        }
        throw error("a string is not closed")
    }

    private static func text(_ bytes: [UInt8], lexer: GraphQLLexer) throws(GraphQLSyntaxError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw lexer.error("a string is not valid UTF-8")
        }
        return text
    }

    /// One escape sequence, the backslash at `index`.
    private mutating func escape(into out: inout [UInt8]) throws(GraphQLSyntaxError) {
        guard index + 1 < bytes.count else { throw error("a string is not closed") }
        let start = index
        let code = bytes[index + 1]
        index += 2
        switch code {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(code)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try unicodeEscape(from: start)
            if (0xD800...0xDBFF).contains(scalar) {
                // A leading surrogate must be followed by an escaped trailing one: the pair is one character.
                guard bytes[index...].starts(with: "\\u".utf8) else {
                    throw error("a lone surrogate \\u escape", at: start)
                }
                index += 2
                let low = try unicodeEscape(from: start)
                guard (0xDC00...0xDFFF).contains(low) else { throw error("a lone surrogate \\u escape", at: start) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let character = Unicode.Scalar(scalar) else {
                throw error("\\u escape of an invalid character", at: start)
            }
            out += Array(String(Character(character)).utf8)
        default:
            throw error("unknown escape '\\\(Self.character(at: index - 1, in: bytes))' in a string", at: start)
        }
    }

    /// `XXXX` or `{X...}` after `\u`.
    private mutating func unicodeEscape(from start: Int) throws(GraphQLSyntaxError) -> UInt32 {
        func hex(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }
        var value: UInt32 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
            index += 1
            var count = 0
            while index < bytes.count, let digit = hex(bytes[index]) {
                value = value &* 16 &+ digit
                count += 1
                guard count <= 8, value <= 0x10FFFF else { throw error("\\u{...} escape beyond U+10FFFF", at: start) }
                index += 1
            }
            guard count > 0, index < bytes.count, bytes[index] == UInt8(ascii: "}") else {
                throw error("a \\u{...} escape needs hexadecimal digits and a closing '}'", at: start)
            }
            index += 1
            return value
        }
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hex(bytes[index]) else {
                throw error("a \\u escape needs four hexadecimal digits", at: start)
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    /// A `"""..."""` string: raw but for `\"""`, then its common indentation and blank first and last lines removed.
    private mutating func blockString() throws(GraphQLSyntaxError) -> String {
        index += 3
        var raw: [UInt8] = []
        while index < bytes.count {
            if bytes[index...].starts(with: "\"\"\"".utf8) {
                index += 3
                return Self.blockStringValue(try Self.text(raw, lexer: self))
            }
            if bytes[index...].starts(with: "\\\"\"\"".utf8) {
                raw += "\"\"\"".utf8
                index += 4
                continue
            }
            let byte = bytes[index]
            if byte < 0x20 && byte != UInt8(ascii: "\t") && byte != UInt8(ascii: "\n") && byte != UInt8(ascii: "\r") {
                throw error("control character \(byte) in a block string")
            }
            raw.append(byte)
            if byte == UInt8(ascii: "\n")
                || (byte == UInt8(ascii: "\r") && bytes[safe: index + 1] != UInt8(ascii: "\n"))
            {
                newLine(after: index)
            }
            index += 1
        }
        throw error("a block string is not closed")
    }

    /// The spec's BlockStringValue(): lines split at any line terminator, the common indentation of all lines but
    /// the first removed, blank leading and trailing lines dropped, joined with `\n`.
    static func blockStringValue(_ raw: String) -> String {
        var lines: [Substring] = []
        var current = raw.unicodeScalars.startIndex
        var lineStart = current
        let scalars = raw.unicodeScalars
        while current < scalars.endIndex {
            let scalar = scalars[current]
            if scalar == "\n" || scalar == "\r" {
                lines.append(Substring(scalars[lineStart..<current]))
                var after = scalars.index(after: current)
                if scalar == "\r", after < scalars.endIndex, scalars[after] == "\n" {
                    after = scalars.index(after: after)
                }
                current = after
                lineStart = current
            } else {
                current = scalars.index(after: current)
            }
        }
        lines.append(Substring(scalars[lineStart..<scalars.endIndex]))
        func indentation(_ line: Substring) -> Int {
            line.unicodeScalars.prefix { $0 == " " || $0 == "\t" }.count
        }
        var common: Int?
        for line in lines.dropFirst() {
            let indent = indentation(line)
            guard indent < line.unicodeScalars.count else { continue }
            common = min(common ?? indent, indent)
        }
        if let common, common > 0 {
            for position in lines.indices.dropFirst() {
                lines[position] = Substring(lines[position].unicodeScalars.dropFirst(common))
            }
        }
        func isBlank(_ line: Substring) -> Bool { indentation(line) == line.unicodeScalars.count }
        while let first = lines.first, isBlank(first) { lines.removeFirst() }
        while let last = lines.last, isBlank(last) { lines.removeLast() }
        return lines.joined(separator: "\n")
    }
}

extension Array {
    fileprivate subscript(safe position: Int) -> Element? {
        position < count ? self[position] : nil
    }
}
