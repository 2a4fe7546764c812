// libFuzzer target: Orrery's regex engine (Sources/OrreryCore/Regex), with Swift's Regex and ICU
// (NSRegularExpression, whose syntax Orrery follows) as oracles on small inputs.
//
// Input: the pattern, then texts after 0x01 bytes. Every pattern is compiled and every text matched, whatever
// their size: nothing may crash, and the same text gives the same answer twice. Where the pattern has at most 48
// bytes and a text at most 16 bytes of ASCII (small enough for backtracking engines to answer at once, and where
// Orrery's ASCII-only \w, \d and \s agree with ICU's), the answer is compared with Swift's Regex (scalar semantics,
// ASCII-only classes, simple word boundaries, as the unit tests' oracle); when the two differ, ICU decides: a
// failure is an answer that differs from ICU's on a pattern ICU compiles (and that has no NUL, see below). Swift and ICU differ on their own in a
// few places (`$` before a final line break, case folding beyond ASCII), which is why Swift alone cannot decide.

import Foundation
@testable import OrreryCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let pieces = parts(Array(UnsafeBufferPointer(start: data, count: size))[...])
    let source = text(pieces[0])
    guard let program = try? RegexProgram(source) else { return 0 }
    // ICU reads property and class names as C strings: a NUL inside one cuts it short (`[[:^digit\0x:]]` is \D to
    // ICU), so patterns with a NUL are not compared.
    // A counted repeat above 16 of a group with empty branches (`(/|||u||\d){100}`) sends both oracles, which
    // backtrack, into exponential time on a text that fails; Orrery is checked on such patterns by the unit tests.
    let isComparable = pieces[0].count <= 48 && !pieces[0].contains(0) && largestRepeatCount(source) <= 16
    var swiftRegex: Regex<AnyRegexOutput>?? = nil
    var icuRegex: NSRegularExpression?? = nil
    for piece in pieces.dropFirst().prefix(8) {
        let subject = text(piece)
        let outcome = program.match(subject)
        require(outcome == program.match(subject), "\(source.debugDescription) answered differently twice on \(subject.debugDescription)")
        guard isComparable, piece.count <= 16, piece.allSatisfy({ $0 < 0x80 }) else { continue }
        require(outcome != RegexProgram.Outcome.abandoned, "\(source.debugDescription) gave up on \(subject.debugDescription)")
        let ours = outcome == RegexProgram.Outcome.match
        if swiftRegex == nil {
            swiftRegex = .some(
                try? Regex(source).matchingSemantics(.unicodeScalar).asciiOnlyWordCharacters().asciiOnlyDigits()
                    .asciiOnlyWhitespace().wordBoundaryKind(.simple))
        }
        if let reference = swiftRegex ?? nil, swiftAnswer(reference, subject) == ours { continue }
        if icuRegex == nil { icuRegex = .some(try? NSRegularExpression(pattern: source)) }
        guard let icu = icuRegex ?? nil else { continue }
        let range = NSRange(location: 0, length: (subject as NSString).length)
        let expected = icu.firstMatch(in: subject, range: range) != nil
        require(ours == expected, "\(source.debugDescription) on \(subject.debugDescription): Orrery says \(ours), ICU \(expected)")
    }
    return 0
}

/// Whether Swift's Regex finds a match; nil when it throws.
func swiftAnswer(_ regex: Regex<AnyRegexOutput>, _ subject: String) -> Bool? {
    do {
        return try regex.firstMatch(in: subject) != nil
    } catch {
        return nil
    }
}

/// The largest number written in a `{m}`, `{m,}` or `{m,n}` of the pattern (0 when there is none); a brace that is
/// not a repeat is read the same way, which only makes the check stricter.
func largestRepeatCount(_ pattern: String) -> Int {
    var largest = 0
    var number: Int? = nil
    var isInBraces = false
    for character in pattern {
        if character == "{" {
            isInBraces = true
            number = nil
        } else if isInBraces, let digit = character.wholeNumberValue, character.isASCII {
            number = min((number ?? 0) * 10 + digit, 1_000_000)
        } else if isInBraces, character == "," || character == "}" {
            largest = max(largest, number ?? 0)
            number = nil
            if character == "}" { isInBraces = false }
        } else {
            isInBraces = false
            number = nil
        }
    }
    return largest
}
