/// A number written without an exponent and with at most 18 digits, as an integer and a count of decimal places:
/// bounds and `multipleOf` on the numbers requests carry, exactly and without allocating. Anything larger falls
/// back to `DecimalNumber`.
struct SmallDecimal: Sendable {
    var significand: Int64
    /// Digits after the point.
    var scale: Int

    init(significand: Int64, scale: Int) {
        self.significand = significand
        self.scale = scale
    }

    init?(_ text: String) {
        self.init(bytes: text.utf8)
    }

    /// The number from its UTF-8 text, as a request body holds it.
    init?<Bytes: Sequence<UInt8>>(bytes: Bytes) {
        var significand: Int64 = 0
        var scale = 0
        var digits = 0
        var isNegative = false
        var isFraction = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                guard digits <= 18 else { return nil }
                significand = significand * 10 + Int64(byte - UInt8(ascii: "0"))
                if isFraction { scale += 1 }
            case UInt8(ascii: "-") where digits == 0 && !isNegative && !isFraction:
                isNegative = true
            case UInt8(ascii: ".") where !isFraction:
                isFraction = true
            default:
                return nil
            }
        }
        guard digits > 0 else { return nil }
        self.significand = isNegative ? -significand : significand
        self.scale = scale
    }

    /// Both numbers as integers at the same scale; nil when that overflows.
    @inline(__always)
    private static func aligned(_ a: SmallDecimal, _ b: SmallDecimal) -> (Int64, Int64)? {
        guard let left = raised(a.significand, by: b.scale - a.scale),
            let right = raised(b.significand, by: a.scale - b.scale)
        else { return nil }
        return (left, right)
    }

    /// `value` times ten `places` times (none for zero or fewer); nil when that overflows. Scales differ by a few
    /// places at most in practice: a loop of multiplications, where a table would be a global looked up on every
    /// call.
    @inline(__always)
    private static func raised(_ value: Int64, by places: Int) -> Int64? {
        var value = value
        var places = places
        while places > 0 {
            let (product, overflow) = value.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            value = product
            places -= 1
        }
        return value
    }

    /// -1, 0 or 1; nil when the comparison needs more than 64 bits.
    @inline(__always)
    static func compare(_ a: SmallDecimal, _ b: SmallDecimal) -> Int? {
        guard let (left, right) = aligned(a, b) else { return nil }
        return left < right ? -1 : left == right ? 0 : 1
    }

    /// Whether `value / step` is an integer; nil when that needs more than 64 bits.
    @inline(__always)
    static func isMultiple(_ value: SmallDecimal, of step: SmallDecimal) -> Bool? {
        guard let (left, right) = aligned(value, step), right != 0 else { return nil }
        return left % right == 0
    }
}
