import Foundation
import Testing
@testable import OrreryCore

@Suite("The regex engine: ICU syntax, linear time")
struct RegexEngineTests {
    @Test("The syntax stubs use", arguments: [
        // Literals and escapes.
        (#"^/a\.b$"#, "/a.b", true), (#"^/a\.b$"#, "/axb", false), (#"^\/x\\y$"#, "/x\\y", true),
        (#"^a\tb\nc\rd$"#, "a\tb\nc\rd", true), (#"^\x41\x{42}\u0043\u{44}\U00000045$"#, "ABCDE", true),
        (#"^\0101$"#, "A", true), (#"^\cA$"#, "\u{01}", true), (#"^\e\a\f$"#, "\u{1B}\u{07}\u{0C}", true),
        (#"\Qa.b*\E+"#, "a.b**", true), (#"\Qa.b\E"#, "axb", false), (#"^caf\u00E9$"#, "café", true),
        // Dot, classes, shorthands.
        ("^a.c$", "abc", true), ("^a.c$", "a\nc", false), ("(?s)^a.c$", "a\nc", true), ("^a.c$", "a\u{2028}c", false),
        ("^[a-c]+$", "abcba", true), ("^[^a-c]+$", "xyz", true), ("^[^a-c]+$", "xaz", false), ("^[a-]$", "-", true),
        (#"^[\]\[]+$"#, "][", true), (#"^[\d.]+$"#, "1.5", true), (#"^\d+$"#, "٣", false), (#"^\w+$"#, "a_Z9", true),
        (#"^\w$"#, "é", false), (#"^\s$"#, "\u{0B}", true), (#"^\s$"#, "\u{A0}", false), (#"^\S\D\W$"#, "xx-", true),
        ("^[[:alpha:]]+$", "abC", true), ("^[[:^digit:]]+$", "ab", true), (#"^\p{L}+$"#, "éa", true),
        (#"^\p{Lu}$"#, "É", true), (#"^\P{L}$"#, "1", true), (#"^\p{^N}$"#, "1", false), (#"^[\p{Nd}x]+$"#, "x٣", true),
        (#"^\h$"#, "\u{A0}", true), (#"^\v$"#, "\n", true), (#"^a\Rb$"#, "a\r\nb", true), ("^[a[bc]]+$", "abc", true),
        // Anchors.
        ("^abc$", "abc\n", true), ("^abc$", "abc\r\n", true), (#"^abc\z"#, "abc\n", false), (#"\Aabc\Z"#, "abc\n", true),
        ("(?m)^b$", "a\nb\nc", true), ("^b$", "a\nb\nc", false), (#"\bcat\b"#, "a cat!", true), (#"\bcat\b"#, "scatter", false),
        (#"\Bat\B"#, "scatter", true), ("a$", "ba", true), ("^$", "", true), ("", "anything", true),
        // Groups, alternation, quantifiers.
        ("^(GET|HEAD)$", "HEAD", true), ("^(?:ab)+$", "ababab", true), ("^(?<id>[0-9]+)$", "42", true),
        ("^(?P<id>x)y$", "xy", true), ("^(?'id'x)y$", "xy", true), ("^a{2,3}$", "aaaa", false), ("^a{2,}$", "aaaaa", true),
        ("^a{,2}$", "aa", true), ("^a{3}$", "aaa", true), ("^a*?b+?c??$", "aabbc", true), ("^a{2,3}?$", "aa", true),
        ("^(a|ab)(c|bcd)(d*)$", "abcd", true), ("^(?:a*)*$", "aaa", true), ("^(|a)+b$", "aab", true),
        ("/a{b}", "/a{b}", true), ("x{", "x{", true), ("^a(?#note)b$", "ab", true),
        // Case.
        ("(?i)^application/json", "Application/JSON; charset=utf-8", true), ("(?i)^[a-z]+$", "ABC", true),
        ("(?i)^k$", "\u{212A}", true), ("(?i)^\u{212A}$", "K", true), ("(?i)^s$", "\u{17F}", true), ("(?i)^σ$", "ς", true),
        ("(?i)^ß$", "ẞ", true), ("(?i)^é$", "É", true), ("(?i)^[^a]$", "A", false), ("(?i)^[é]$", "É", true),
        ("a(?i)b", "aB", true), ("a(?i)b", "AB", false), ("(?i:a)b", "Ab", true), ("(?i:a)b", "AB", false),
        ("(?i)a(?-i)b", "Ab", true), ("(?i)a(?-i)b", "AB", false), ("x(?i)y|z", "Z", true),
    ])
    func matches(pattern: String, text: String, expected: Bool) throws {
        #expect(try Pattern(pattern).matches(text) == expected, "/\(pattern)/ on \(text.debugDescription)")
    }

    @Test("Refused: what cannot be matched in bounded time, and malformed patterns, each saying what and where",
        arguments: [
            (#"(a)\1"#, "backreferences cannot be matched in bounded time; '\\1' at offset 3 is not supported"),
            (#"(?<x>a)\k<x>"#, "backreferences cannot be matched in bounded time; '\\k' at offset 7 is not supported"),
            ("a(?=b)", "lookahead cannot be matched in bounded time; '(?=' at offset 1 is not supported"),
            ("a(?!b)", "lookahead cannot be matched in bounded time; '(?!' at offset 1 is not supported"),
            ("(?<=a)b", "lookbehind cannot be matched in bounded time; '(?<=' at offset 0 is not supported"),
            ("(?<!a)b", "lookbehind cannot be matched in bounded time; '(?<!' at offset 0 is not supported"),
            ("(?>a+)b", "atomic groups cannot be matched in bounded time; '(?>' at offset 0 is not supported"),
            ("a++b", "possessive quantifiers cannot be matched in bounded time; '++' at offset 1 is not supported; use '+'"),
            ("a{2,3}+", "possessive quantifiers cannot be matched in bounded time; '{2,3}+' at offset 1 is not supported; use '{2,3}'"),
            ("^/users/([0-9]+$", "expected ')' at offset 16 to close the group opened at offset 8"),
            ("/a)b", "unbalanced ')' at offset 2"),
            ("[a-", "expected ']' at offset 3 to close the class opened at offset 0"),
            ("[z-a]", "range 'z-a' at offset 1 is out of order"),
            ("[]", "empty class at offset 0; write '\\]' for a literal ']'"),
            ("*a", "'*' at offset 0 has nothing to repeat"),
            ("a|+", "'+' at offset 2 has nothing to repeat"),
            ("^*", "'*' at offset 1 has nothing to repeat (an anchor matches no text)"),
            ("a**", "quantifier at offset 2 follows another quantifier; put what it repeats in a group"),
            ("a{3,2}", "'{3,2}' at offset 1 has its minimum above its maximum"),
            ("a{1001}", "repeat count 1001 at offset 1 is above the limit of 1000"),
            ("(a{1000}){1000}", "the pattern is too large once its repeats are expanded (more than 20000 steps); use smaller counts in '{m,n}'"),
            (#"\q"#, "unknown escape '\\q' at offset 0"),
            (#"a\"#, "the pattern ends with a lone '\\' at offset 1"),
            (#"\x4"#, "'\\x' at offset 0 needs 2 hex digits, or braces: \\x{...}"),
            (#"\p{Klingon}"#, "unknown Unicode property 'Klingon' at offset 0 (general categories such as L, Lu, Nd, P and Any, ASCII are supported)"),
            ("(?x)a b", "the free-spacing flag 'x' at offset 2 is not supported"),
            ("(?w)a", "unknown group or flag '(?w' at offset 2; the flags are i, s and m"),
            ("[a&&b]", "class operator '&&' at offset 2 is not supported; escape the characters to mean them"),
            ("[[:klingon:]]", "unknown POSIX class '[:klingon:]' at offset 1"),
            ("(?#open", "expected ')' at offset 7 to close the comment opened at offset 0"),
        ])
    func refused(pattern: String, message: String) {
        #expect(throws: RegexSyntaxError(message)) { try Pattern(pattern) }
    }

    @Test("A refused pattern is a load error with the file and line, wherever a regex stands", arguments: StubFormat.allCases)
    func loadError(format: StubFormat) throws {
        let text = format == .json
            ? #"{ "request": { "urlPattern": "^/re/(a)\\1$", "headers": { "X": { "matches": "a(?=b)" } } }, "response": {} }"#
            : "request:\n  urlPattern: '^/re/(a)\\1$'\n  headers: { X: { matches: 'a(?=b)' } }\nresponse: {}\n"
        let errors = StubText.errors(text, as: format)
        #expect(errors.map(\.description) == [
            "\(format.fileName):\(format == .json ? 1 : 2): 'urlPattern' is not a valid regular expression (backreferences cannot be matched in bounded time; '\\1' at offset 8 is not supported): ^/re/(a)\\1$",
            "\(format.fileName):\(format == .json ? 1 : 3): 'matches' is not a valid regular expression (lookahead cannot be matched in bounded time; '(?=' at offset 1 is not supported): a(?=b)",
        ])
    }

    @Test("Groups nested past the limit are refused, not a stack overflow")
    func deepNesting() {
        let deep = String(repeating: "(", count: 5000) + "a" + String(repeating: ")", count: 5000)
        #expect(throws: RegexSyntaxError("groups nested more than 100 deep at offset 100")) { try Pattern(deep) }
        let classes = String(repeating: "[", count: 5000)
        #expect(throws: RegexSyntaxError("classes nested more than 100 deep at offset 100")) { try Pattern(classes) }
    }

    @Test("Patterns that make backtracking engines take exponential time complete in milliseconds", arguments: [
        ("^/re/(a+)+$", "/re/" + String(repeating: "a", count: 30_000) + "!"),
        ("^(a|a)*$", String(repeating: "a", count: 30_000) + "!"),
        ("^(a*)*b$", String(repeating: "a", count: 30_000)),
        ("(x+x+)+y", String(repeating: "x", count: 30_000)),
        ("^(\\w+\\s?)*$", String(repeating: "word ", count: 6_000) + "!"),
        ("(.*a){12}", String(repeating: "a", count: 11) + String(repeating: "b", count: 30_000)),
        ("^(a{0,100}){1,10}$", String(repeating: "a", count: 1_500) + "!"),
        // From the regex fuzz target, where ICU and Swift's Regex (its oracles) ran out of time on it.
        ("(/|||||u||\\d){100},'}n0", ""),
        ("(/|||||u||\\d){100},'}n0", String(repeating: "u", count: 30_000)),
    ])
    func pathological(pattern: String, text: String) throws {
        let compiled = try Pattern(pattern)
        let clock = ContinuousClock()
        let elapsed = clock.measure { #expect(!compiled.matches(text)) }
        #expect(elapsed < .milliseconds(500), "/\(pattern)/ took \(elapsed)")
    }

    @Test("A match that exceeds its work budget is no match, and is reported once for the pattern")
    func abandoned() throws {
        let reports = ReportedPatterns()
        // A class repeated up to 1000 times after a start at every letter keeps about 1000 threads alive on every
        // byte of a long text of letters: well over the budget.
        let pattern = try Pattern("[a-z][a-z]{0,999}0")
        let text = String(repeating: "a", count: 200_000)
        Pattern.onAbandonedMatch { source, bytes in reports.append("\(source) \(bytes)") }
        defer { Pattern.onAbandonedMatch(nil) }
        #expect(!pattern.matches(text))
        #expect(!pattern.matches(text))
        #expect(reports.all == ["[a-z][a-z]{0,999}0 200000"])
        #expect(pattern.matches(String(repeating: "a", count: 100) + "0"))
    }

    /// With line feeds in the texts, patterns use `\z` for `$`: ICU's `$` also matches before a final line
    /// terminator, Swift's does not.
    @Test("Agrees with Swift's Regex on generated patterns and texts", arguments: [false, true])
    func oracle(withLineFeeds: Bool) throws {
        var random = SeededRandom(seed: withLineFeeds ? 0x0A0A_5EED : 0x5EED_0F0E_2E27)
        var compared = 0
        var disagreements: [String] = []
        for _ in 0..<3_000 {
            var pattern = PatternGenerator.pattern(&random)
            if withLineFeeds { pattern = pattern.replacingOccurrences(of: "$", with: "\\z") }
            // Grapheme semantics: the texts are ASCII, where they equal scalar semantics, and Swift's simple word
            // boundaries on scalars take digits for non-word characters.
            guard
                let reference = try? Regex(pattern).asciiOnlyWordCharacters().asciiOnlyDigits().asciiOnlyWhitespace()
                    .wordBoundaryKind(.simple)
            else { continue }
            let ours: Pattern
            do {
                ours = try Pattern(pattern)
            } catch {
                disagreements.append("/\(pattern)/ refused: \(error)")
                continue
            }
            for _ in 0..<12 {
                let text = PatternGenerator.text(&random, withLineFeeds: withLineFeeds)
                let expected = (try? reference.firstMatch(in: text)) != nil
                compared += 1
                if ours.matches(text) != expected {
                    disagreements.append("/\(pattern)/ on \(text.debugDescription): Swift says \(expected)")
                }
            }
        }
        #expect(compared > 20_000)
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements, first: \(disagreements.prefix(10))")
    }

    /// Sequences of single-scalar items, each repeated, are matched a byte at a time (`LinearByteMatcher`) on
    /// ASCII text; the Pike VM takes the rest. Both must say what Swift's Regex says.
    @Test("Sequences of repeated single scalars: the byte matcher agrees with Swift's Regex")
    func linearSequences() throws {
        var random = SeededRandom(seed: 0x11AE_A2B7_7E5)
        let atoms = ["a", "b", "-", "\\.", "[a-c]", "[^b]", "\\d", ".", "[A-Z]", "(?:1)", "[ _]"]
        let quantifiers = ["", "", "?", "*", "+", "{2}", "{1,3}", "{0,2}", "{2,}"]
        var compared = 0
        var byBytes = 0
        var disagreements: [String] = []
        for _ in 0..<1_500 {
            var pattern = random.next(3) == 0 ? "" : "^"
            for _ in 0..<random.next(5) {
                pattern += atoms[random.next(atoms.count)] + quantifiers[random.next(quantifiers.count)]
            }
            if random.next(3) != 0 { pattern += ["$", "\\z", "\\Z"][random.next(3)] }
            let reference = try Regex(pattern).asciiOnlyDigits()
            let ours = try Pattern(pattern)
            if LinearByteMatcher(try RegexParser.parse(pattern)) != nil { byBytes += 1 }
            for _ in 0..<12 {
                let alphabet = Array("aabbcAB.1-- _x9")
                let text = String((0..<random.next(9)).map { _ in alphabet[random.next(alphabet.count)] })
                let expected = (try? reference.firstMatch(in: text)) != nil
                compared += 1
                if ours.matches(text) != expected {
                    disagreements.append("/\(pattern)/ on \(text.debugDescription): Swift says \(expected)")
                }
            }
        }
        #expect(byBytes > 1_400, "most generated patterns are sequences the byte matcher takes")
        #expect(compared > 15_000)
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements, first: \(disagreements.prefix(10))")
        // Texts the byte matcher leaves to the VM: non-ASCII, and a line terminator before `$`.
        #expect(try Pattern("^[a-z]+$").matches("abc\n"))
        #expect(try !Pattern("^[a-z]+\\z").matches("abc\n"))
        #expect(try Pattern("^.{3}$").matches("héé"))
        #expect(try !Pattern("^[a-z]{3}$").matches("héé"))
        #expect(try Pattern("(?i)^k[0-9]$").matches("\u{212A}9"))
        // A chain's answer found before the end of the text holds only where the rest is plain; a chain of fixed
        // length answers by position.
        for (pattern, text) in [
            ("^[a-z]{2}", "ab\né"), ("^x[a-z]", "ab\nxy"), ("[0-9]-", "1-\u{e9}"), ("^[a-z]{2}\\z", "ab\n"),
            ("^[0-9]{2}-\\z", "12-"), ("^[0-9]{2}\\z", "1x"), ("^[0-9]{2}\\z", "1é"), ("^[0-9]{2}\\z", "123"),
        ] {
            let expected = (try? Regex(pattern).firstMatch(in: text)) != nil
            #expect(try Pattern(pattern).matches(text) == expected, "/\(pattern)/ on \(text.debugDescription)")
        }
    }

    @Test("Escaped literals match themselves through the literal fast paths and the VM alike", arguments: [
        "/api/v1.0", "/a+b/(c)", "/x[1]{2}", "/cost$|^/free", "/back\\slash", "/*?", "é/ü", "",
    ])
    func literals(literal: String) throws {
        for (prefix, suffix) in [("^", "$"), ("^", ""), ("", ""), ("^", "\\z"), ("^(?:", ")$")] {
            let pattern = try Pattern(prefix + Pattern.escaped(literal) + suffix)
            #expect(pattern.matches(literal), "\(pattern)")
            #expect(pattern.matches(literal + "x") == (suffix.isEmpty), "\(pattern)")
            let isFoundAfterText = prefix.isEmpty || (literal.isEmpty && suffix.isEmpty)
            #expect(pattern.matches("x" + literal) == isFoundAfterText, "\(pattern)")
        }
    }

    @Test("Repetitions that may match nothing at the ends of a pattern change nothing about whether it matches",
        arguments: [
            (".*\\.png$", "/a/b.png", true), (".*\\.png$", "/a/b.png/x", false), ("a*", "", true), ("^a*$", "b", false),
            ("^Bearer .*", "Bearer ", true), ("x*^b", "ab", false), ("x*^b", "b", true), ("[0-9]*users/.*?", "/users/", true),
            ("(?s).*end", "a\nend", true), (".*\\bend", "x end", true), (".*\\bend", "xend", false),
        ])
    func optionalEnds(pattern: String, text: String, expected: Bool) throws {
        #expect(try Pattern(pattern).matches(text) == expected, "/\(pattern)/ on \(text.debugDescription)")
    }

    @Test("Required literals and first bytes only skip work: matches later in long texts are found")
    func prefilters() throws {
        let filler = String(repeating: "zq/", count: 2_000)
        #expect(try Pattern("users/[0-9]+").matches(filler + "users/42"))
        #expect(try !Pattern("users/[0-9]+").matches(filler + "users/x"))
        #expect(try Pattern("[0-9]{3}-x").matches(filler + "123-x"))
        #expect(try Pattern("(?i)needle").matches(filler + "NeEdLe"))
        #expect(try Pattern("(?i)k9").matches(filler + "\u{212A}9"))
        #expect(try Pattern("é+t").matches(filler + "éét"))
        #expect(try Pattern(#"\bword"#).matches(filler + " word"))
        #expect(try Pattern("ab(cd|ef)gh").matches(filler + "abefgh"))
        #expect(try !Pattern("ab(cd|ef)gh").matches(filler + "abcdef"))
    }
}

/// Patterns over a small alphabet, in the part of the syntax where ICU, Swift's Regex and Orrery agree.
private enum PatternGenerator {
    static func pattern(_ random: inout SeededRandom) -> String {
        var pattern = ["(?i)", "(?s)", "(?m)", "(?is)", "", "", "", "", "", "", "", ""][random.next(12)]
        if random.next(4) == 0 { pattern += "^" }
        pattern += alternation(&random, depth: 0)
        if random.next(4) == 0 { pattern += random.next(2) == 0 ? "$" : "\\z" }
        return pattern
    }

    static func text(_ random: inout SeededRandom, withLineFeeds: Bool) -> String {
        let alphabet = Array("aabbcAB/.1 _-" + (withLineFeeds ? "\n\n" : ""))
        return String((0..<random.next(11)).map { _ in alphabet[random.next(alphabet.count)] })
    }

    private static func alternation(_ random: inout SeededRandom, depth: Int) -> String {
        (0..<1 + (random.next(3) == 0 ? random.next(3) : 0)).map { _ in sequence(&random, depth: depth) }
            .joined(separator: "|")
    }

    private static func sequence(_ random: inout SeededRandom, depth: Int) -> String {
        (0..<1 + random.next(4)).map { _ in
            if random.next(12) == 0 { return ["\\b", "\\B", "^", "$"][random.next(4)] }
            return atom(&random, depth: depth) + quantifier(&random)
        }.joined()
    }

    private static func atom(_ random: inout SeededRandom, depth: Int) -> String {
        switch random.next(depth < 2 ? 10 : 8) {
        case 0...2: return ["a", "b", "c", "/", "\\.", "A", "1", " "][random.next(8)]
        case 3: return "."
        case 4: return ["[ab]", "[^a]", "[a-c]", "[/.]", "[^b-c1]", "[A-Bb]", "[_-]"][random.next(7)]
        case 5: return ["\\d", "\\w", "\\s", "\\W", "\\D", "\\S"][random.next(6)]
        case 6: return ["(?i:a)", "(?:b|)", "()"][random.next(3)]
        case 7: return "a"
        default: return (random.next(2) == 0 ? "(" : "(?:") + alternation(&random, depth: depth + 1) + ")"
        }
    }

    private static func quantifier(_ random: inout SeededRandom) -> String {
        guard random.next(3) == 0 else { return "" }
        let base = ["*", "+", "?", "{2}", "{0,2}", "{1,}", "{2,3}"][random.next(7)]
        return random.next(4) == 0 ? base + "?" : base
    }
}

/// A small, seeded generator, so that a failure can be reproduced.
private struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A number in `0..<bound`.
    mutating func next(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

/// Collects what a `@Sendable` handler is told.
final class ReportedPatterns: @unchecked Sendable {
    // Guarded by `lock`; the handler runs on whichever thread matched.
    private var reports: [String] = []
    private let lock = NSLock()

    func append(_ report: String) {
        lock.withLock { reports.append(report) }
    }

    var all: [String] { lock.withLock { reports } }
}
