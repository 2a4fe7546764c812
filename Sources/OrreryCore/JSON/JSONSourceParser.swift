/// A JSON syntax error with the line it was found on.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public var line: Int
    public var message: String
}

/// Parses JSON into `SourceNode`s that remember their line numbers (Foundation's decoders do not).
enum JSONSourceParser {
    /// Whether `text` is a number as JSON spells it.
    static func isJSONNumber(_ text: String) -> Bool {
        Parser.isJSONNumber(ArraySlice(text.utf8))
    }

    static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> SourceNode {
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        // A UTF-8 byte order mark is tolerated at the very start.
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        let node = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return node
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        /// Deep nesting is refused instead of overflowing the stack on hostile input.
        static let maximumDepth = 512

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        func error(_ message: String) -> JSONSyntaxError {
            JSONSyntaxError(line: line, message: message)
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\n"): line += 1
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
                default: return
                }
                index += 1
            }
        }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> SourceNode {
            skipWhitespace()
            guard depth < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
            guard let byte = current else { throw error("unexpected end of JSON") }
            let startLine = line
            switch byte {
            case UInt8(ascii: "{"): return try parseObject(depth: depth)
            case UInt8(ascii: "["): return try parseArray(depth: depth)
            case UInt8(ascii: "\""): return SourceNode(.string(try parseString()), line: startLine)
            case UInt8(ascii: "t"): try expectWord("true"); return SourceNode(.bool(true), line: startLine)
            case UInt8(ascii: "f"): try expectWord("false"); return SourceNode(.bool(false), line: startLine)
            case UInt8(ascii: "n"): try expectWord("null"); return SourceNode(.null, line: startLine)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("unexpected character '\(Self.describe(byte))'")
            }
        }

        mutating func expectWord(_ word: String) throws(JSONSyntaxError) {
            let utf8 = Array(word.utf8)
            guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
                throw error("unexpected word; expected '\(word)'")
            }
            index += utf8.count
        }

        mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> SourceNode {
            let startLine = line
            index += 1
            var members: [(key: String, keyLine: Int, value: SourceNode)] = []
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return SourceNode(.object(members), line: startLine)
            }
            while true {
                skipWhitespace()
                guard current == UInt8(ascii: "\"") else { throw error("expected a quoted key") }
                let keyLine = line
                let key = try parseString()
                if members.contains(where: { $0.key == key }) { throw error("duplicate key '\(key)'") }
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { throw error("expected ':' after key '\(key)'") }
                index += 1
                let value = try parseValue(depth: depth + 1)
                members.append((key, keyLine, value))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"): index += 1; return SourceNode(.object(members), line: startLine)
                case nil: throw error("unexpected end of JSON; an object is not closed")
                default: throw error("expected ',' or '}' after the value of '\(key)'")
                }
            }
        }

        mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> SourceNode {
            let startLine = line
            index += 1
            var items: [SourceNode] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return SourceNode(.array(items), line: startLine)
            }
            while true {
                items.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"): index += 1; return SourceNode(.array(items), line: startLine)
                case nil: throw error("unexpected end of JSON; a list is not closed")
                default: throw error("expected ',' or ']' in a list")
                }
            }
        }

        mutating func parseNumber() throws(JSONSyntaxError) -> SourceNode {
            let start = index
            if current == UInt8(ascii: "-") { index += 1 }
            var sawDigit = false
            while let byte = current, Self.isNumberByte(byte) {
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { sawDigit = true }
                index += 1
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard sawDigit, Self.isJSONNumber(bytes[start..<index]), let number = Double(text) else {
                throw error("malformed number '\(text)'")
            }
            return SourceNode(.number(number, text: text), line: line)
        }

        /// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
        static func isJSONNumber(_ text: ArraySlice<UInt8>) -> Bool {
            var index = text.startIndex
            func digits() -> Int {
                let start = index
                while index < text.endIndex, text[index] >= UInt8(ascii: "0"), text[index] <= UInt8(ascii: "9") { index += 1 }
                return index - start
            }
            if index < text.endIndex, text[index] == UInt8(ascii: "-") { index += 1 }
            guard index < text.endIndex else { return false }
            if text[index] == UInt8(ascii: "0") {
                index += 1
            } else if digits() == 0 {
                return false
            }
            if index < text.endIndex, text[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return false }
            }
            if index < text.endIndex, text[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < text.endIndex, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return false }
            }
            return index == text.endIndex
        }

        static func isHexDigit(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
            default: false
            }
        }

        static func isNumberByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"),
                UInt8(ascii: "+"), UInt8(ascii: "-"):
                true
            default: false
            }
        }

        mutating func parseString() throws(JSONSyntaxError) -> String {
            index += 1  // opening quote
            let start = index
            // Most strings hold no escape: one scan, one copy.
            while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte != UInt8(ascii: "\n") {
                index += 1
            }
            if current == UInt8(ascii: "\"") {
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                index += 1
                return text
            }
            var utf8 = Array(bytes[start..<index])
            while true {
                guard let byte = current else { throw error("unexpected end of JSON inside a string") }
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let escape = current else { throw error("unexpected end of JSON inside a string") }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"): UTF8.encode(try parseUnicodeEscape()) { utf8.append($0) }
                    default: throw error("invalid escape '\\\(Self.describe(escape))' in a string")
                    }
                case UInt8(ascii: "\n"):
                    throw error("line break inside a string; write it as \\n")
                default:
                    utf8.append(byte)
                    index += 1
                }
            }
        }

        mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
            guard index + 4 <= bytes.count, bytes[index..<index + 4].allSatisfy(Self.isHexDigit),
                let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { throw error("invalid \\u escape in a string") }
            index += 4
            return value
        }

        mutating func parseUnicodeEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
            let first = try parseHex4()
            if (0xD800...0xDBFF).contains(first) {
                guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in a \\u escape") }
                index += 2
                let second = try parseHex4()
                guard (0xDC00...0xDFFF).contains(second),
                    let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
                else { throw error("invalid surrogate pair in a \\u escape") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw error("unpaired surrogate in a \\u escape") }
            return scalar
        }

        static func describe(_ byte: UInt8) -> String {
            byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
        }
    }
}
