/// A parsed pattern, as the compiler takes it. Groups leave no trace: nothing is captured, only "does it match".
indirect enum RegexNode: Sendable {
    case empty
    /// A scalar matched exactly.
    case scalar(UInt32)
    /// A scalar matched without regard to case; the value is its case fold (`CaseFolding.fold`).
    case foldedScalar(UInt32)
    case set(ScalarSet)
    /// `.` with `(?s)`: any scalar at all.
    case anyScalar
    /// `.`: any scalar but a line terminator.
    case anyButLineTerminator
    case concatenation([RegexNode])
    case alternation([RegexNode])
    /// `max` nil: no upper bound. Laziness is not kept: it changes which match is found, never whether one is.
    case repetition(RegexNode, min: Int, max: Int?)
    case assertion(RegexAssertion)
}

/// Zero-width conditions on a position, after ICU's meaning of each.
enum RegexAssertion: Int32, Sendable {
    /// `\A`, and `^` without `(?m)`.
    case startOfText
    /// `^` with `(?m)`: the start, or after a line terminator (not between `\r` and `\n`).
    case startOfLine
    /// `\z`.
    case endOfText
    /// `\Z`, and `$` without `(?m)`: the end, or before a line terminator that ends the text.
    case endOfTextOrFinalTerminator
    /// `$` with `(?m)`: the end, or before a line terminator (not between `\r` and `\n`).
    case endOfLine
    /// `\b`, with ASCII word characters as `\w` has them.
    case wordBoundary
    /// `\B`.
    case notWordBoundary
}

/// Scalar facts the parser, the compiler and the matcher share.
enum RegexScalars {
    /// ICU's line terminators: `\n`, `\v`, `\f`, `\r`, NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR.
    @inline(__always)
    static func isLineTerminator(_ scalar: UInt32) -> Bool {
        (scalar >= 0x0A && scalar <= 0x0D) || scalar == 0x85 || scalar == 0x2028 || scalar == 0x2029
    }

    /// `\w` as documented: ASCII letters, digits and `_`.
    @inline(__always)
    static func isWord(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F: true
        default: false
        }
    }
}
