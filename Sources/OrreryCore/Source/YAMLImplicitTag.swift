import Yams

/// What an untagged plain YAML scalar stands for (null, bool, int, float or text), by YAML 1.1's rules as Yams'
/// default resolver spells them, read on bytes.
///
/// Yams resolves with NSRegularExpression, which loads ICU and costs several thousand instructions per scalar;
/// the parser asks Yams for no resolution (every scalar comes back as text) and decides here instead.
enum YAMLImplicitTag {
    static func of(_ text: String) -> Tag.Name {
        var text = text
        return text.withUTF8 { of($0[...]) }
    }

    private static func of(_ bytes: Bytes) -> Tag.Name {
        if isBool(bytes) { return .bool }
        if isInt(bytes) { return .int }
        if isFloat(bytes) { return .float }
        if isNull(bytes) { return .null }
        return .str  // and what YAML calls timestamps, merge keys (`<<`) and `=`: kept as text
    }

    private static let bools: Set<String> = [
        "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
        "on", "On", "ON", "off", "Off", "OFF",
    ]

    private static func isBool(_ bytes: Bytes) -> Bool {
        bytes.count <= 5 && bools.contains(bytes.string)
    }

    private static func isNull(_ bytes: Bytes) -> Bool {
        ["", "~", "null", "Null", "NULL"].contains(bytes.string)
    }

    /// `[-+]?` then `0b[01_]+`, `0o?[0-7_]+`, `0`, `[1-9][0-9_]*`, `0x[0-9a-fA-F_]+`, or `[1-9][0-9_]*(:[0-5]?[0-9])+`.
    private static func isInt(_ all: Bytes) -> Bool {
        var bytes = all
        bytes.skipSign()
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: "0") {
            bytes.removeFirst()
            if bytes.isEmpty { return true }
            switch bytes.first {
            case UInt8(ascii: "b"): bytes.removeFirst(); return bytes.isRun(of: { $0 == 0x30 || $0 == 0x31 || $0 == 0x5F })
            case UInt8(ascii: "x"): bytes.removeFirst(); return bytes.isRun(of: { $0.isHexDigit || $0 == 0x5F })
            case UInt8(ascii: "o"): bytes.removeFirst(); return bytes.isRun(of: { $0.isOctalDigit || $0 == 0x5F })
            default: return bytes.isRun(of: { $0.isOctalDigit || $0 == 0x5F })
            }
        }
        guard first.isDigit else { return false }
        bytes.skip(while: { $0.isDigit || $0 == 0x5F })
        return bytes.isEmpty || bytes.skipSexagesimal() && bytes.isEmpty
    }

    /// `[-+]?[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?`, `\.[0-9_]+([eE][-+][0-9]+)?`,
    /// `[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*`, `[-+]?\.(inf|Inf|INF)` or `\.(nan|NaN|NAN)`.
    private static func isFloat(_ all: Bytes) -> Bool {
        if ["nan", "NaN", "NAN"].contains(where: { all.string == "." + $0 }) { return true }
        var bytes = all
        let signed = bytes.skipSign()
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: ".") {
            bytes.removeFirst()
            if ["inf", "Inf", "INF"].contains(bytes.string) { return true }
            guard !signed, bytes.first.map({ $0.isDigit || $0 == 0x5F }) == true else { return false }
            bytes.skip(while: { $0.isDigit || $0 == 0x5F })
            if bytes.isEmpty { return true }
            guard bytes.removeFirst() | 0x20 == UInt8(ascii: "e"), let sign = bytes.first,
                sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+")
            else { return false }
            bytes.removeFirst()
            return bytes.isRun(of: \.isDigit)
        }
        guard first.isDigit else { return false }
        bytes.skip(while: { $0.isDigit || $0 == 0x5F })
        if bytes.first == UInt8(ascii: ":") {
            guard bytes.skipSexagesimal(), bytes.first == UInt8(ascii: ".") else { return false }
            bytes.removeFirst()
            bytes.skip(while: { $0.isDigit || $0 == 0x5F })
            return bytes.isEmpty
        }
        if bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            bytes.skip(while: { $0.isDigit || $0 == 0x5F })
        }
        if bytes.isEmpty { return true }
        guard bytes.removeFirst() | 0x20 == UInt8(ascii: "e") else { return false }
        bytes.skipSign()
        return bytes.isRun(of: \.isDigit)
    }
}

private typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

extension Bytes {
    fileprivate var string: String { String(decoding: self, as: UTF8.self) }

    @discardableResult
    fileprivate mutating func skipSign() -> Bool {
        guard let first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") else { return false }
        removeFirst()
        return true
    }

    fileprivate mutating func skip(while belongs: (UInt8) -> Bool) {
        while let first, belongs(first) { removeFirst() }
    }

    /// One or more bytes, all of them belonging.
    fileprivate func isRun(of belongs: (UInt8) -> Bool) -> Bool {
        !isEmpty && allSatisfy(belongs)
    }

    /// `(:[0-5]?[0-9])+`: at least one group, each a colon and one or two digits, the first of two at most 5.
    fileprivate mutating func skipSexagesimal() -> Bool {
        var groups = 0
        while first == UInt8(ascii: ":") {
            removeFirst()
            guard let tens = first, tens.isDigit else { return false }
            removeFirst()
            if tens <= UInt8(ascii: "5"), let units = first, units.isDigit { removeFirst() }
            groups += 1
        }
        return groups > 0
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= 0x30 && self <= 0x39 }
    fileprivate var isOctalDigit: Bool { self >= 0x30 && self <= 0x37 }
    fileprivate var isHexDigit: Bool { isDigit || (self | 0x20 >= 0x61 && self | 0x20 <= 0x66) }
}
