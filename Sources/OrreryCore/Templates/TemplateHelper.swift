import Foundation

/// An argument of a Handlebars helper, or the expression of a tag: a name, a literal or a helper call.
indirect enum HelperArgument: Sendable {
    case lookup(TemplateLookup)
    case literal(HelperValue)
    case call(HelperCall)
}

/// A helper call compiled at load: its helper (with what can be prepared ahead, such as a regex or a date format),
/// its positional arguments and its `key=value` options.
struct HelperCall: Sendable {
    var helper: TemplateHelper
    var arguments: [HelperArgument]
    var options: [(String, HelperArgument)]

    func option(_ name: String) -> HelperArgument? {
        options.first { $0.0 == name }?.1
    }
}

/// The helpers of WireMock's Handlebars that Orrery runs, with what each needs prepared at load.
enum TemplateHelper: Sendable {
    case jsonPath(JSONPath)
    case regexExtract(NSRegularExpression)
    case randomValue(RandomValueKind, length: Int, uppercase: Bool)
    case now(TemplateDateFormat, offsetSeconds: Int)
    case date(TemplateDateFormat, offsetSeconds: Int)
    case base64(decode: Bool)
    case urlEncode(decode: Bool)
    case upper, lower, trim, size, pickRandom, formatJson
    case math(String)
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual, and, or, not
    case contains
    case matches(NSRegularExpression)

    /// What `randomValue type=...` makes.
    enum RandomValueKind: String, Sendable {
        case uuid = "UUID"
        case alphanumeric = "ALPHANUMERIC"
        case alphabetic = "ALPHABETIC"
        case numeric = "NUMERIC"
        case hexadecimal = "HEXADECIMAL"
        case alphanumericAndSymbols = "ALPHANUMERIC_AND_SYMBOLS"

        var alphabet: [UInt8] {
            switch self {
            // Lower case, as WireMock makes them (`uppercase=true` raises them).
            case .uuid, .alphanumeric: Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
            case .alphabetic: Array("abcdefghijklmnopqrstuvwxyz".utf8)
            case .numeric: Array("0123456789".utf8)
            case .hexadecimal: Array("0123456789abcdef".utf8)
            case .alphanumericAndSymbols:
                Array("abcdefghijklmnopqrstuvwxyz0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~".utf8)
            }
        }
    }
}

/// A value while a helper expression is evaluated.
enum HelperValue: Sendable {
    case missing
    case text(String)
    case number(Double)
    case bool(Bool)
    case json(JSONValue)

    static func whole(_ count: Int) -> HelperValue {
        .json(.number(Double(count), text: String(count)))
    }

    /// Handlebars' truth: missing, false, empty text, zero and empty lists are false.
    var isTruthy: Bool {
        switch self {
        case .missing: false
        case .text(let text): !text.isEmpty
        case .number(let number): number != 0
        case .bool(let flag): flag
        case .json(let json):
            switch json {
            case .null: false
            case .bool(let flag): flag
            case .string(let text): !text.isEmpty
            case .number(let number, _): number != 0
            case .array(let items): !items.isEmpty
            case .object: true
            }
        }
    }

    /// The text a template writes for the value.
    var text: String {
        switch self {
        case .missing: ""
        case .text(let text): text
        // A result of decimals, as Java's BigDecimal prints it for the usual cases (`5.0`, `2.5`).
        case .number(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .json(let json):
            switch json {
            case .string(let text): text
            case .number(let number, let text): Self.isInteger(text) ? text : String(number)
            case .null: ""
            case .object: Self.jackson(json, depth: 0)
            default: json.encoded
            }
        }
    }

    /// Whether a number was written without a fraction or exponent.
    static func isInteger(_ text: String) -> Bool {
        !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
    }

    /// An object as WireMock writes one (Jackson's pretty printer): members on their own lines, two spaces deep,
    /// ` : ` between name and value, lists on one line (`[ 1, 2 ]`).
    static func jackson(_ value: JSONValue, depth: Int) -> String {
        switch value {
        case .object(let members):
            guard !members.isEmpty else { return "{ }" }
            let inner = String(repeating: "  ", count: depth + 1)
            let lines = members.map { inner + JSONValue.string($0.0).encoded + " : " + jackson($0.1, depth: depth + 1) }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + String(repeating: "  ", count: depth) + "}"
        case .array(let items):
            guard !items.isEmpty else { return "[ ]" }
            return "[ " + items.map { jackson($0, depth: depth) }.joined(separator: ", ") + " ]"
        case .number(let number, let text):
            return isInteger(text) ? text : String(number)
        default:
            return value.encoded
        }
    }

    /// The value as a number, when it reads as one.
    var number: Double? {
        switch self {
        case .number(let number): number
        case .json(.number(let number, _)): number
        case .bool, .missing, .json: Self.parseNumber(text)
        case .text(let text): Self.parseNumber(text)
        }
    }

    /// A number written as text, spaces around it allowed.
    static func parseNumber(_ text: String) -> Double? {
        if let number = Double(text) { return number }
        let trimmed = text.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
            .reversed()
        return Double(String(decoding: Array(trimmed), as: UTF8.self))
    }
}

extension HelperCall {
    /// Runs the helper on the request of `context`.
    func evaluate<Generator>(_ context: inout TemplateContext<Generator>, stack: [TemplateValue]) -> HelperValue {
        func argument(_ index: Int) -> HelperValue {
            index < arguments.count
                ? TemplateRenderer.evaluate(arguments[index], context: &context, stack: stack) : .missing
        }
        func option(_ name: String) -> HelperValue {
            self.option(name).map { TemplateRenderer.evaluate($0, context: &context, stack: stack) } ?? .missing
        }
        switch helper {
        case .jsonPath(let path):
            let root: JSONValue?
            if case .lookup(.root(.body))? = arguments.first {
                // The request's body is parsed once per response, however many helpers read it.
                root = context.json()
            } else {
                let source = argument(0)
                switch source {
                case .json(let json): root = json
                case .missing: root = nil
                default: root = JSONBodyParser.parse(Array(source.text.utf8))
                }
            }
            guard let root else { return .missing }
            let selected = path.select(in: root)
            guard let first = selected.first else { return option("default") }
            return path.isDefinite ? .json(first) : .json(.array(selected))
        case .regexExtract(let regex):
            let text = argument(0).text
            let range = NSRange(text.startIndex..., in: text)
            guard let match = regex.firstMatch(in: text, range: range), let found = Range(match.range, in: text) else {
                // WireMock writes what went wrong into the body when no default is given.
                guard self.option("default") != nil else { return .text("[ERROR: Nothing matched \(regex.pattern)]") }
                return option("default")
            }
            return .text(String(text[found]))
        case .randomValue(let kind, let length, let uppercase):
            if kind == .uuid {
                return .text(
                    String(
                        decoding: TemplateRenderer.uuid(high: context.generator.next(), low: context.generator.next()),
                        as: UTF8.self))
            }
            let alphabet = kind.alphabet
            var bytes: [UInt8] = []
            bytes.reserveCapacity(length)
            for _ in 0..<length {
                bytes.append(alphabet[Int(context.generator.next(upperBound: UInt64(alphabet.count)))])
            }
            let text = String(decoding: bytes, as: UTF8.self)
            return .text(uppercase ? text.uppercased() : text)
        case .now(let format, let offset):
            return .text(format.format(milliseconds: context.nowMilliseconds + Int64(offset) * 1000))
        case .date(let format, let offset):
            guard let milliseconds = TemplateDateFormat.parseISO(argument(0).text) else { return .missing }
            return .text(format.format(milliseconds: milliseconds + Int64(offset) * 1000))
        case .base64(let decode):
            let text = argument(0).text
            if decode {
                guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { return .missing }
                return .text(String(decoding: data, as: UTF8.self))
            }
            return .text(Data(text.utf8).base64EncodedString())
        case .urlEncode(let decode):
            let text = argument(0).text
            if decode { return .text(text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text) }
            return .text(Self.formEncoded(text))
        case .upper: return .text(argument(0).text.uppercased())
        case .lower: return .text(argument(0).text.lowercased())
        case .trim: return .text(argument(0).text.trimmingCharacters(in: .whitespacesAndNewlines))
        case .size:
            switch argument(0) {
            case .json(.array(let items)): return .whole(items.count)
            case .json(.object(let members)): return .whole(members.count)
            case .missing: return .missing
            case let value: return .whole(value.text.count)
            }
        case .pickRandom:
            var choices: [HelperValue] = []
            for index in arguments.indices {
                if case .json(.array(let items)) = argument(index) {
                    choices += items.map { .json($0) }
                } else {
                    choices.append(argument(index))
                }
            }
            guard !choices.isEmpty else { return .missing }
            return choices[Int(context.generator.next(upperBound: UInt64(choices.count)))]
        case .formatJson:
            let source = argument(0)
            if case .json(let json) = source { return .text(HelperValue.jackson(json, depth: 0)) }
            guard let json = JSONBodyParser.parse(Array(source.text.utf8)) else { return source }
            return .text(HelperValue.jackson(json, depth: 0))
        case .math(let operation):
            let leftValue = argument(0)
            let rightValue = argument(1)
            guard let left = leftValue.number, let right = rightValue.number else { return .missing }
            if Self.isWhole(leftValue), Self.isWhole(rightValue) {
                // Two whole numbers give a whole number, as WireMock's: a quotient rounded half up (7 / 2 is 4).
                let a = Int64(left)
                let b = Int64(right)
                switch operation {
                case "+": return .json(.number(Double(a &+ b), text: String(a &+ b)))
                case "-": return .json(.number(Double(a &- b), text: String(a &- b)))
                case "*": return .json(.number(Double(a &* b), text: String(a &* b)))
                case "/":
                    guard b != 0 else { return .missing }
                    let quotient = Int64((left / right).rounded(.toNearestOrAwayFromZero))
                    return .json(.number(Double(quotient), text: String(quotient)))
                case "%":
                    guard b != 0 else { return .missing }
                    return .json(.number(Double(a % b), text: String(a % b)))
                default: return .missing
                }
            }
            switch operation {
            case "+": return .number(left + right)
            case "-": return .number(left - right)
            case "*": return .number(left * right)
            case "/": return right == 0 ? .missing : .number(left / right)
            case "%": return right == 0 ? .missing : .number(left.truncatingRemainder(dividingBy: right))
            default: return .missing
            }
        case .equal: return .bool(Self.compare(argument(0), argument(1)) == .orderedSame)
        case .notEqual: return .bool(Self.compare(argument(0), argument(1)) != .orderedSame)
        case .less: return .bool(Self.compare(argument(0), argument(1)) == .orderedAscending)
        case .lessOrEqual: return .bool(Self.compare(argument(0), argument(1)) != .orderedDescending)
        case .greater: return .bool(Self.compare(argument(0), argument(1)) == .orderedDescending)
        case .greaterOrEqual: return .bool(Self.compare(argument(0), argument(1)) != .orderedAscending)
        case .and: return .bool(arguments.indices.allSatisfy { argument($0).isTruthy })
        case .or: return .bool(arguments.indices.contains { argument($0).isTruthy })
        case .not: return .bool(!argument(0).isTruthy)
        case .contains:
            let container = argument(0)
            let part = argument(1).text
            if case .json(.array(let items)) = container {
                return .bool(items.contains { HelperValue.json($0).text == part })
            }
            return .bool(container.text.contains(part))
        case .matches(let regex):
            let text = argument(0).text
            return .bool(
                regex.firstMatch(in: text, options: [.anchored], range: NSRange(text.startIndex..., in: text)).map {
                    $0.range.length == (text as NSString).length
                } ?? false)
        }
    }

    /// Whether a value is a whole number as written (`7`, `"7"`), not `7.0`.
    static func isWhole(_ value: HelperValue) -> Bool {
        switch value {
        case .json(.number(_, let text)): HelperValue.isInteger(text)
        case .text(let text), .json(.string(let text)):
            HelperValue.parseNumber(text).map { $0 == $0.rounded() && !text.contains(".") } ?? false
        default: false
        }
    }

    /// Numbers compare as numbers, the rest as text.
    static func compare(_ left: HelperValue, _ right: HelperValue) -> ComparisonResult {
        if let a = left.number, let b = right.number, !(left.isTextual && right.isTextual) {
            return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        }
        let a = left.text
        let b = right.text
        return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    }

    /// `application/x-www-form-urlencoded`, as Java's URLEncoder writes it: letters, digits and `.-*_` kept, a
    /// space as `+`, the rest as `%XX` of their UTF-8 bytes.
    static func formEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension HelperValue {
    /// Text both ways: two texts compare as text even when they read as numbers ("10" < "9"), as Java's do.
    var isTextual: Bool {
        switch self {
        case .text, .json(.string): true
        default: false
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
