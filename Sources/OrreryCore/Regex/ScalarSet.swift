/// A character class: ranges of scalars, Unicode general categories and nested classes, possibly negated and
/// possibly without regard to case.
///
/// Negation and case are kept as flags and applied when matching rather than by building the complement (which
/// for `[^a]` would be a million scalars): `(?i)[^a]` is "not a scalar whose fold is in {a, A}", as in ICU.
struct ScalarSet: Sendable {
    /// Sorted and merged once the class is complete (`normalize`).
    var ranges: [ClosedRange<UInt32>] = []
    /// General categories, one bit each (`CategoryMask`).
    var categories: UInt32 = 0
    var nested: [ScalarSet] = []
    var isNegated = false
    var isCaseInsensitive = false

    /// Classes larger than this are not closed over case when compiled: a range that large already holds both
    /// cases of what it holds, and closing it would cost more than it is worth.
    static let caseClosureLimit: UInt32 = 20_000

    init(ranges: [ClosedRange<UInt32>] = [], isNegated: Bool = false, isCaseInsensitive: Bool = false) {
        self.ranges = ranges
        self.isNegated = isNegated
        self.isCaseInsensitive = isCaseInsensitive
    }

    /// Sorts and merges the ranges, and with `(?i)` adds the fold of each member, so that matching needs only to
    /// look up a scalar and its fold (see `contains`).
    mutating func normalize() {
        if isCaseInsensitive {
            let size = ranges.reduce(UInt32(0)) { $0 &+ ($1.upperBound - $1.lowerBound + 1) }
            if size <= Self.caseClosureLimit {
                var folded: [ClosedRange<UInt32>] = []
                for range in ranges {
                    for value in range {
                        let fold = CaseFolding.fold(value)
                        if fold != value { folded.append(fold...fold) }
                    }
                }
                ranges += folded
            }
        }
        ranges = Self.merged(ranges)
        for index in nested.indices { nested[index].normalize() }
    }

    static func merged(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound &+ 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// Whether the class matches the scalar. With `(?i)` a scalar matches when it or its fold is a member: the
    /// members were closed over folding by `normalize`, so this finds every scalar of the same fold as a member.
    func contains(_ scalar: UInt32) -> Bool {
        var found = isMember(scalar)
        if !found && isCaseInsensitive {
            let fold = CaseFolding.fold(scalar)
            found = fold != scalar && isMember(fold)
        }
        return found != isNegated
    }

    private func isMember(_ scalar: UInt32) -> Bool {
        if rangesContain(scalar) { return true }
        if categories != 0, let value = Unicode.Scalar(scalar),
            categories & CategoryMask.bit(value.properties.generalCategory) != 0
        {
            return true
        }
        return nested.contains { $0.contains(scalar) }
    }

    private func rangesContain(_ scalar: UInt32) -> Bool {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            let range = ranges[middle]
            if scalar < range.lowerBound {
                high = middle
            } else if scalar > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}

extension ScalarSet {
    static let digits = ScalarSet(ranges: [0x30...0x39])
    static let wordCharacters = ScalarSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// `\s`: space, tab, line feed, vertical tab, form feed, carriage return.
    static let whitespace = ScalarSet(ranges: [0x09...0x0D, 0x20...0x20])
    /// `\h`, as ICU has it.
    static let horizontalWhitespace = ScalarSet(ranges: [
        0x09...0x09, 0x20...0x20, 0xA0...0xA0, 0x1680...0x1680, 0x180E...0x180E, 0x2000...0x200A, 0x202F...0x202F,
        0x205F...0x205F, 0x3000...0x3000,
    ])
    /// `\v`, as ICU has it: the line terminators.
    static let verticalWhitespace = ScalarSet(ranges: [0x0A...0x0D, 0x85...0x85, 0x2028...0x2029])

    /// `[[:name:]]`, with ASCII meanings as `\d`, `\w` and `\s` have.
    static func posix(_ name: String) -> ScalarSet? {
        let ranges: [ClosedRange<UInt32>]
        switch name {
        case "alpha": ranges = [0x41...0x5A, 0x61...0x7A]
        case "digit": ranges = [0x30...0x39]
        case "alnum": ranges = [0x30...0x39, 0x41...0x5A, 0x61...0x7A]
        case "upper": ranges = [0x41...0x5A]
        case "lower": ranges = [0x61...0x7A]
        case "space": ranges = [0x09...0x0D, 0x20...0x20]
        case "blank": ranges = [0x09...0x09, 0x20...0x20]
        case "punct": ranges = [0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E]
        case "xdigit": ranges = [0x30...0x39, 0x41...0x46, 0x61...0x66]
        case "word": ranges = [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A]
        case "cntrl": ranges = [0x00...0x1F, 0x7F...0x7F]
        case "print": ranges = [0x20...0x7E]
        case "graph": ranges = [0x21...0x7E]
        case "ascii": ranges = [0x00...0x7F]
        default: return nil
        }
        return ScalarSet(ranges: ranges)
    }
}

/// Unicode general categories as bits, so that a class with several of them tests a scalar once.
enum CategoryMask {
    static func bit(_ category: Unicode.GeneralCategory) -> UInt32 {
        1 << index(category)
    }

    private static func index(_ category: Unicode.GeneralCategory) -> UInt32 {
        switch category {
        case .uppercaseLetter: 0
        case .lowercaseLetter: 1
        case .titlecaseLetter: 2
        case .modifierLetter: 3
        case .otherLetter: 4
        case .nonspacingMark: 5
        case .spacingMark: 6
        case .enclosingMark: 7
        case .decimalNumber: 8
        case .letterNumber: 9
        case .otherNumber: 10
        case .connectorPunctuation: 11
        case .dashPunctuation: 12
        case .openPunctuation: 13
        case .closePunctuation: 14
        case .initialPunctuation: 15
        case .finalPunctuation: 16
        case .otherPunctuation: 17
        case .mathSymbol: 18
        case .currencySymbol: 19
        case .modifierSymbol: 20
        case .otherSymbol: 21
        case .spaceSeparator: 22
        case .lineSeparator: 23
        case .paragraphSeparator: 24
        case .control: 25
        case .format: 26
        case .surrogate: 27
        case .privateUse: 28
        case .unassigned: 29
        @unknown default: 29
        }
    }

    /// The categories a `\p{...}` name stands for: short (`Lu`) or long (`Uppercase_Letter`) names, compared
    /// without regard to case, spaces, `_` and `-`.
    static func named(_ name: String) -> UInt32? {
        let letters: UInt32 = 0b11111
        let marks: UInt32 = 0b111 << 5
        let numbers: UInt32 = 0b111 << 8
        let punctuation: UInt32 = 0b1111111 << 11
        let symbols: UInt32 = 0b1111 << 18
        let separators: UInt32 = 0b111 << 22
        let others: UInt32 = 0b11111 << 25
        switch name {
        case "l", "letter": return letters
        case "lc", "casedletter": return 0b111
        case "lu", "uppercaseletter": return 1 << 0
        case "ll", "lowercaseletter": return 1 << 1
        case "lt", "titlecaseletter": return 1 << 2
        case "lm", "modifierletter": return 1 << 3
        case "lo", "otherletter": return 1 << 4
        case "m", "mark", "combiningmark": return marks
        case "mn", "nonspacingmark": return 1 << 5
        case "mc", "spacingmark": return 1 << 6
        case "me", "enclosingmark": return 1 << 7
        case "n", "number": return numbers
        case "nd", "decimalnumber", "digit": return 1 << 8
        case "nl", "letternumber": return 1 << 9
        case "no", "othernumber": return 1 << 10
        case "p", "punctuation", "punct": return punctuation
        case "pc", "connectorpunctuation": return 1 << 11
        case "pd", "dashpunctuation": return 1 << 12
        case "ps", "openpunctuation": return 1 << 13
        case "pe", "closepunctuation": return 1 << 14
        case "pi", "initialpunctuation": return 1 << 15
        case "pf", "finalpunctuation": return 1 << 16
        case "po", "otherpunctuation": return 1 << 17
        case "s", "symbol": return symbols
        case "sm", "mathsymbol": return 1 << 18
        case "sc", "currencysymbol": return 1 << 19
        case "sk", "modifiersymbol": return 1 << 20
        case "so", "othersymbol": return 1 << 21
        case "z", "separator": return separators
        case "zs", "spaceseparator": return 1 << 22
        case "zl", "lineseparator": return 1 << 23
        case "zp", "paragraphseparator": return 1 << 24
        case "c", "other": return others
        case "cc", "control", "cntrl": return 1 << 25
        case "cf", "format": return 1 << 26
        case "cs", "surrogate": return 1 << 27
        case "co", "privateuse": return 1 << 28
        case "cn", "unassigned": return 1 << 29
        default: return nil
        }
    }
}
