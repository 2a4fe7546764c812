/// A JSON number read exactly from its text, so that bounds, `multipleOf` and integer checks hold for numbers a
/// `Double` cannot carry (`12345678910111213141516171819` is an integer; `0.3` is a multiple of `0.1`).
struct DecimalNumber: Sendable, Comparable {
    var isNegative: Bool
    /// Significant digits (0...9), with no leading or trailing zeros; empty for zero.
    var digits: [UInt8]
    /// The value is `digits` read as an integer times ten to this power.
    var exponent: Int
    /// The same number, when it is small enough for the allocation-free path (bounds compiled from a schema).
    var small: SmallDecimal?

    /// Reads JSON's number syntax (and the plain forms YAML adds, such as `+1` or `.5`); nil for anything else.
    init?(_ text: String) {
        var isNegative = false
        var digits: [UInt8] = []
        var fractionDigits = 0
        var exponent = 0
        var bytes = Substring(text).utf8[...]
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            isNegative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var sawDigit = false
        var inFraction = false
        while let byte = bytes.first {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                sawDigit = true
                if !(digits.isEmpty && byte == UInt8(ascii: "0")) { digits.append(byte - UInt8(ascii: "0")) }
                if inFraction { fractionDigits += 1 }
            } else if byte == UInt8(ascii: "."), !inFraction {
                inFraction = true
            } else {
                break
            }
            bytes = bytes.dropFirst()
        }
        guard sawDigit else { return nil }
        if let marker = bytes.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            var isExponentNegative = false
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                isExponentNegative = sign == UInt8(ascii: "-")
                bytes = bytes.dropFirst()
            }
            guard !bytes.isEmpty else { return nil }
            for byte in bytes {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
                // Beyond a billion the number is out of any range a schema can name; saturate instead of trapping.
                exponent = min(exponent * 10 + Int(byte - UInt8(ascii: "0")), 1_000_000_000)
            }
            if isExponentNegative { exponent = -exponent }
            bytes = bytes[bytes.endIndex...]
        }
        guard bytes.isEmpty else { return nil }
        // Leading zeros dropped above leave the significand's value as it was; every fraction digit still counts.
        exponent -= fractionDigits
        while let last = digits.last, last == 0 {
            digits.removeLast()
            exponent += 1
        }
        self.isNegative = isNegative && !digits.isEmpty
        self.digits = digits
        self.exponent = digits.isEmpty ? 0 : exponent
        small = SmallDecimal(text)
    }

    var isZero: Bool { digits.isEmpty }

    /// Whether the number has no fractional part (`1.0` and `1e2` are integers).
    var isInteger: Bool { digits.isEmpty || exponent >= 0 }

    /// The integer value, when it is an integer that fits in an `Int64`.
    var int64Value: Int64? {
        guard isInteger, digits.count + exponent <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for digit in digits + Array(repeating: 0, count: exponent) {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1 && !overflow2 else { return nil }
            magnitude = sum
        }
        if isNegative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// Equal in value, however written (`1`, `1.0`, `10e-1`).
    static func == (lhs: DecimalNumber, rhs: DecimalNumber) -> Bool {
        lhs.isNegative == rhs.isNegative && lhs.digits == rhs.digits && lhs.exponent == rhs.exponent
    }

    static func < (lhs: DecimalNumber, rhs: DecimalNumber) -> Bool {
        if lhs.isNegative != rhs.isNegative { return lhs.isNegative }
        let isMagnitudeLess = lessInMagnitude(lhs, rhs)
        let isMagnitudeGreater = lessInMagnitude(rhs, lhs)
        return lhs.isNegative ? isMagnitudeGreater : isMagnitudeLess
    }

    private static func lessInMagnitude(_ lhs: DecimalNumber, _ rhs: DecimalNumber) -> Bool {
        if lhs.isZero || rhs.isZero { return lhs.isZero && !rhs.isZero }
        // The place of the leading digit decides first; then the digits, read left to right.
        let lhsPlace = lhs.digits.count + lhs.exponent
        let rhsPlace = rhs.digits.count + rhs.exponent
        if lhsPlace != rhsPlace { return lhsPlace < rhsPlace }
        return lhs.digits.lexicographicallyPrecedes(rhs.digits)
    }

    /// Whether `self / divisor` is an integer, computed exactly.
    func isMultiple(of divisor: DecimalNumber) -> Bool {
        if isZero { return true }
        guard !divisor.isZero else { return false }
        let shift = exponent - divisor.exponent
        // Neither significand ends in zero, so a divisor with more decimal places than the number never divides it.
        guard shift >= 0 else { return false }
        guard divisor.digits.count <= 18 else { return isMultipleApproximately(of: divisor) }
        var modulus: UInt64 = 0
        for digit in divisor.digits { modulus = modulus * 10 + UInt64(digit) }
        if modulus == 1 { return true }
        var remainder: UInt64 = 0
        for digit in digits { remainder = (remainder * 10 + UInt64(digit)) % modulus }
        return Self.multiplyModulo(remainder, Self.powerOf10(shift, modulo: modulus), modulus) == 0
    }

    private func isMultipleApproximately(of divisor: DecimalNumber) -> Bool {
        guard let value = Double(text), let step = Double(divisor.text) else { return false }
        let quotient = value / step
        return quotient.isFinite && quotient == quotient.rounded()
    }

    private static func multiplyModulo(_ a: UInt64, _ b: UInt64, _ modulus: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return modulus.dividingFullWidth((high: product.high, low: product.low)).remainder
    }

    private static func powerOf10(_ exponent: Int, modulo modulus: UInt64) -> UInt64 {
        var result: UInt64 = 1 % modulus
        var base: UInt64 = 10 % modulus
        var exponent = exponent
        while exponent > 0 {
            if exponent & 1 == 1 { result = multiplyModulo(result, base, modulus) }
            base = multiplyModulo(base, base, modulus)
            exponent >>= 1
        }
        return result
    }

    /// The number in scientific notation, for messages and the rare approximate path.
    var text: String {
        guard !digits.isEmpty else { return "0" }
        let significand = digits.map { String($0) }.joined()
        if exponent >= 0 && digits.count + exponent <= 21 {
            return (isNegative ? "-" : "") + significand + String(repeating: "0", count: exponent)
        }
        if exponent < 0 && -exponent < digits.count {
            let point = digits.count + exponent
            return (isNegative ? "-" : "") + significand.prefix(point) + "." + significand.dropFirst(point)
        }
        return (isNegative ? "-" : "") + significand + "e" + String(exponent)
    }
}
