/// Reads a pattern in ICU syntax (the subset stubs use) into a `RegexNode`, refusing what cannot be matched in
/// time linear in the text: backreferences, lookaround, atomic groups, possessive quantifiers.
///
/// Offsets in messages count Unicode scalars from the start of the pattern, from 0.
struct RegexParser {
    /// The largest count a `{m,n}` quantifier may give.
    static let maximumRepeat = 1000
    /// Groups and classes nested deeper than this are refused, which also bounds the recursion of the parser and
    /// the compiler.
    static let maximumNesting = 100
    /// Patterns longer than this (in scalars) are refused before they are read.
    static let maximumLength = 32 * 1024

    /// The inline flags in force: `(?i)`, `(?s)`, `(?m)`.
    struct Flags {
        var isCaseInsensitive = false
        var isDotAll = false
        var isMultiline = false
    }

    private let scalars: [Unicode.Scalar]
    private var position = 0
    private var nesting = 0

    private init(_ pattern: String) {
        scalars = Array(pattern.unicodeScalars)
    }

    static func parse(_ pattern: String) throws(RegexSyntaxError) -> RegexNode {
        var parser = RegexParser(pattern)
        guard parser.scalars.count <= maximumLength else {
            throw RegexSyntaxError("the pattern is \(parser.scalars.count) characters long, more than \(maximumLength)")
        }
        return try parser.parseAlternation(flags: Flags(), openedAt: nil)
    }

    // MARK: - Structure

    /// Alternatives up to the `)` that closes the group opened at `openedAt` (consumed), or to the end of the
    /// pattern. A flag set inside the group, `(?i)`, holds to the group's end, across later alternatives too.
    private mutating func parseAlternation(flags: Flags, openedAt: Int?) throws(RegexSyntaxError) -> RegexNode {
        var flags = flags
        var branches = [try parseSequence(&flags)]
        while peek() == "|" {
            position += 1
            branches.append(try parseSequence(&flags))
        }
        if let openedAt {
            guard peek() == ")" else {
                throw RegexSyntaxError("expected ')' at offset \(position) to close the group opened at offset \(openedAt)")
            }
            position += 1
        } else if position < scalars.count {
            throw RegexSyntaxError("unbalanced ')' at offset \(position)")
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseSequence(_ flags: inout Flags) throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = peek(), scalar != "|", scalar != ")" {
            let start = position
            guard let atom = try parseAtom(&flags) else { continue }
            // A bare anchor cannot be repeated (`^*`); one in a group can, as in other engines.
            var isQuantifiable = true
            if case .assertion = atom, scalars[start] != "(" { isQuantifiable = false }
            // A quantifier after `\Q...\E` repeats the last quoted character only, as ICU reads it (`\Qab\E?`).
            if case .concatenation(let quoted) = atom, scalars[start] == "\\", scalars[start + 1] == "Q",
                let last = quoted.last
            {
                items.append(contentsOf: quoted.dropLast())
                items.append(try parseQuantifiers(last, isQuantifiable: true, atomAt: start))
                continue
            }
            items.append(try parseQuantifiers(atom, isQuantifiable: isQuantifiable, atomAt: start))
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .concatenation(items)
        }
    }

    /// The atom at the current position; nil for what matches nothing and leaves nothing to repeat (a flag
    /// setting, a comment, an empty `\Q\E`).
    private mutating func parseAtom(_ flags: inout Flags) throws(RegexSyntaxError) -> RegexNode? {
        let start = position
        guard let scalar = next() else { return nil }
        switch scalar {
        case "(":
            return try parseGroup(&flags, openedAt: start)
        case "[":
            position = start
            var set: ScalarSet
            if var posix = try posixClass() {
                // ICU reads `[:digit:]` outside a class as the POSIX class (`[[:digit:]]`), not as `[:digt]`.
                posix.isCaseInsensitive = flags.isCaseInsensitive
                set = ScalarSet(isCaseInsensitive: flags.isCaseInsensitive)
                set.nested.append(posix)
            } else {
                set = try parseClass(flags)
            }
            set.normalize()
            return .set(set)
        case ".":
            return flags.isDotAll ? .anyScalar : .anyButLineTerminator
        case "^":
            return .assertion(flags.isMultiline ? .startOfLine : .startOfText)
        case "$":
            return .assertion(flags.isMultiline ? .endOfLine : .endOfTextOrFinalTerminator)
        case "\\":
            return try parseEscape(flags, at: start)
        case "*", "+", "?":
            throw RegexSyntaxError("'\(character(scalar))' at offset \(start) has nothing to repeat")
        case "{":
            if bounds(at: start) != nil {
                throw RegexSyntaxError("'{' at offset \(start) has nothing to repeat")
            }
            return literal(scalar, flags)
        default:
            return literal(scalar, flags)
        }
    }

    private mutating func parseGroup(_ flags: inout Flags, openedAt start: Int) throws(RegexSyntaxError) -> RegexNode? {
        guard peek() == "?" else { return try parseGroupBody(flags, openedAt: start) }
        position += 1
        guard let kind = next() else {
            throw RegexSyntaxError("expected ')' at offset \(position) to close the group opened at offset \(start)")
        }
        switch kind {
        case ":":
            return try parseGroupBody(flags, openedAt: start)
        case "<" where peek() == "=" || peek() == "!":
            throw RegexSyntaxError(
                "lookbehind cannot be matched in bounded time; '(?<\(character(peek() ?? " "))' at offset \(start) is not supported")
        case "<", "'":
            return try parseNamedGroup(closingWith: kind == "'" ? "'" : ">", flags, openedAt: start)
        case "P" where peek() == "<":
            position += 1
            return try parseNamedGroup(closingWith: ">", flags, openedAt: start)
        case "P" where peek() == "=":
            throw RegexSyntaxError("backreferences cannot be matched in bounded time; '(?P=' at offset \(start) is not supported")
        case "=", "!":
            throw RegexSyntaxError(
                "lookahead cannot be matched in bounded time; '(?\(character(kind))' at offset \(start) is not supported")
        case ">":
            throw RegexSyntaxError("atomic groups cannot be matched in bounded time; '(?>' at offset \(start) is not supported")
        case "#":
            while let scalar = next() {
                if scalar == ")" { return nil }
            }
            throw RegexSyntaxError("expected ')' at offset \(position) to close the comment opened at offset \(start)")
        case "(":
            throw RegexSyntaxError("conditionals '(?(' at offset \(start) are not supported")
        case "|":
            throw RegexSyntaxError("branch reset groups '(?|' at offset \(start) are not supported")
        case "R", "&", "0"..."9", "+":
            throw RegexSyntaxError("recursion cannot be matched in bounded time; '(?\(character(kind))' at offset \(start) is not supported")
        default:
            position -= 1
            return try parseFlags(&flags, openedAt: start)
        }
    }

    /// A named group, matched as a plain one: names only serve captures, which stubs do not use.
    private mutating func parseNamedGroup(
        closingWith close: Unicode.Scalar, _ flags: Flags, openedAt start: Int
    ) throws(RegexSyntaxError) -> RegexNode {
        let nameStart = position
        while let scalar = peek(), scalar != close {
            guard RegexScalars.isWord(scalar.value) else {
                throw RegexSyntaxError("invalid group name at offset \(position): only letters, digits and '_'")
            }
            position += 1
        }
        guard peek() == close, position > nameStart else {
            throw RegexSyntaxError("expected a group name ending in '\(character(close))' at offset \(position)")
        }
        position += 1
        return try parseGroupBody(flags, openedAt: start)
    }

    /// `(?ims-ims)` changes the flags for the rest of the enclosing group; `(?ims-ims:...)` for its own body.
    private mutating func parseFlags(_ flags: inout Flags, openedAt start: Int) throws(RegexSyntaxError) -> RegexNode? {
        var changed = flags
        var isTurningOff = false
        while let scalar = next() {
            switch scalar {
            case "i": changed.isCaseInsensitive = !isTurningOff
            case "s": changed.isDotAll = !isTurningOff
            case "m": changed.isMultiline = !isTurningOff
            case "-" where !isTurningOff: isTurningOff = true
            case ")":
                flags = changed
                return nil
            case ":":
                return try parseGroupBody(changed, openedAt: start)
            case "x":
                throw RegexSyntaxError("the free-spacing flag 'x' at offset \(position - 1) is not supported")
            default:
                throw RegexSyntaxError(
                    "unknown group or flag '(?\(character(scalar))' at offset \(position - 1); the flags are i, s and m")
            }
        }
        throw RegexSyntaxError("expected ')' at offset \(position) to close the group opened at offset \(start)")
    }

    private mutating func parseGroupBody(_ flags: Flags, openedAt start: Int) throws(RegexSyntaxError) -> RegexNode {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maximumNesting else {
            throw RegexSyntaxError("groups nested more than \(Self.maximumNesting) deep at offset \(start)")
        }
        return try parseAlternation(flags: flags, openedAt: start)
    }

    /// Quantifiers after an atom: `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}`, `{,n}`, each perhaps lazy (`*?`), which
    /// changes nothing here. A `{` that does not start a valid count is a literal, as in most engines.
    private mutating func parseQuantifiers(
        _ atom: RegexNode, isQuantifiable: Bool, atomAt atomStart: Int
    ) throws(RegexSyntaxError) -> RegexNode {
        let start = position
        guard let (minimum, maximum, end) = quantifier(at: start) else { return atom }
        guard isQuantifiable else {
            throw RegexSyntaxError(
                "'\(text(start..<end))' at offset \(start) has nothing to repeat (an anchor matches no text)")
        }
        position = end
        if peek() == "?" {
            position += 1
        } else if peek() == "+" {
            throw RegexSyntaxError(
                "possessive quantifiers cannot be matched in bounded time; '\(text(start..<position + 1))' at offset \(start) is not supported; use '\(text(start..<position))'")
        }
        if quantifier(at: position) != nil {
            throw RegexSyntaxError(
                "quantifier at offset \(position) follows another quantifier; put what it repeats in a group")
        }
        for count in [minimum, maximum ?? 0] where count > Self.maximumRepeat {
            throw RegexSyntaxError("repeat count \(count) at offset \(start) is above the limit of \(Self.maximumRepeat)")
        }
        if let maximum, minimum > maximum {
            throw RegexSyntaxError("'\(text(start..<end))' at offset \(start) has its minimum above its maximum")
        }
        if minimum == 1 && maximum == 1 { return atom }
        return .repetition(atom, min: minimum, max: maximum)
    }

    private func quantifier(at index: Int) -> (min: Int, max: Int?, end: Int)? {
        guard index < scalars.count else { return nil }
        switch scalars[index] {
        case "*": return (0, nil, index + 1)
        case "+": return (1, nil, index + 1)
        case "?": return (0, 1, index + 1)
        case "{": return bounds(at: index)
        default: return nil
        }
    }

    /// `{m}`, `{m,}`, `{m,n}` or `{,n}` at `index`, with counts capped so that huge numbers cannot overflow; the
    /// limit is checked by the caller.
    private func bounds(at index: Int) -> (min: Int, max: Int?, end: Int)? {
        var cursor = index + 1
        func number() -> Int? {
            var value: Int?
            while cursor < scalars.count, let digit = Self.digitValue(scalars[cursor], radix: 10) {
                value = min((value ?? 0) * 10 + digit, 1_000_000)
                cursor += 1
            }
            return value
        }
        let minimum = number()
        var maximum = minimum
        var isOpenEnded = false
        if cursor < scalars.count, scalars[cursor] == "," {
            cursor += 1
            maximum = number()
            isOpenEnded = maximum == nil
        }
        guard cursor < scalars.count, scalars[cursor] == "}", minimum != nil || maximum != nil else { return nil }
        return (minimum ?? 0, isOpenEnded ? nil : maximum, cursor + 1)
    }

    // MARK: - Escapes

    private mutating func parseEscape(_ flags: Flags, at start: Int) throws(RegexSyntaxError) -> RegexNode? {
        guard let scalar = peek() else { throw RegexSyntaxError("the pattern ends with a lone '\\' at offset \(start)") }
        switch scalar {
        case "A": position += 1; return .assertion(.startOfText)
        case "z": position += 1; return .assertion(.endOfText)
        case "Z": position += 1; return .assertion(.endOfTextOrFinalTerminator)
        case "b": position += 1; return .assertion(.wordBoundary)
        case "B": position += 1; return .assertion(.notWordBoundary)
        case "R":
            position += 1
            return .alternation([.concatenation([.scalar(0x0D), .scalar(0x0A)]), .set(ScalarSet.verticalWhitespace)])
        case "Q":
            position += 1
            var items: [RegexNode] = []
            while let quoted = next() {
                if quoted == "\\" && peek() == "E" {
                    position += 1
                    break
                }
                items.append(literal(quoted, flags))
            }
            return items.isEmpty ? nil : (items.count == 1 ? items[0] : .concatenation(items))
        case "E":
            // A stray end of quoting: ICU reads it as the letter E.
            position += 1
            return literal("E", flags)
        default:
            break
        }
        if var set = try shorthandSet(at: start) {
            set.isCaseInsensitive = flags.isCaseInsensitive
            set.normalize()
            return .set(set)
        }
        return literal(try escapedScalar(at: start, isInClass: false), flags)
    }

    /// A class escape at `start` (a `\`): `\d \D \w \W \s \S \h \H \v \V`, `\p{...}` and `\P{...}`; nil for others,
    /// with the position left at the `\`'s successor.
    private mutating func shorthandSet(at start: Int) throws(RegexSyntaxError) -> ScalarSet? {
        guard let scalar = peek() else { return nil }
        var set: ScalarSet
        switch scalar {
        case "d", "D": set = .digits
        case "w", "W": set = .wordCharacters
        case "s", "S": set = .whitespace
        case "h", "H": set = .horizontalWhitespace
        case "v", "V": set = .verticalWhitespace
        case "p", "P": return try propertySet(at: start)
        default: return nil
        }
        position += 1
        set.isNegated = scalar.value < 0x61  // the capital letter negates
        return set
    }

    /// `\p{L}`, `\p{Lu}`, `\p{Letter}`, `\p{gc=Lu}`, `\p{^L}`, `\P{L}`, `\p{Any}`, `\p{ASCII}`.
    private mutating func propertySet(at start: Int) throws(RegexSyntaxError) -> ScalarSet {
        let isNegatedEscape = next() == "P"
        guard next() == "{" else {
            throw RegexSyntaxError("expected '{' after '\\p' at offset \(position - 1) (write \\p{L})")
        }
        let nameStart = position
        while let scalar = peek(), scalar != "}" { position += 1 }
        guard peek() == "}" else {
            throw RegexSyntaxError("expected '}' at offset \(position) to close the property opened at offset \(start)")
        }
        let written = text(nameStart..<position)
        position += 1
        var name = String(written.unicodeScalars.filter { $0 != " " && $0 != "_" && $0 != "-" }).lowercased()
        var isNegated = isNegatedEscape
        if name.hasPrefix("^") {
            isNegated.toggle()
            name.removeFirst()
        }
        for prefix in ["gc=", "generalcategory="] where name.hasPrefix(prefix) { name.removeFirst(prefix.count) }
        var set: ScalarSet
        switch name {
        case "any": set = ScalarSet(ranges: [0...0x10FFFF])
        case "ascii": set = ScalarSet(ranges: [0...0x7F])
        default:
            guard let categories = CategoryMask.named(name) else {
                throw RegexSyntaxError(
                    "unknown Unicode property '\(written)' at offset \(start) (general categories such as L, Lu, Nd, P and Any, ASCII are supported)")
            }
            set = ScalarSet()
            set.categories = categories
        }
        set.isNegated = isNegated
        return set
    }

    /// The scalar an escape stands for, the `\` at `start`: `\t \n \r \f \a \e`, `\cX`, `\xHH`, `\x{H...}`, `\uHHHH`,
    /// `\u{H...}`, `\UHHHHHHHH`, `\0ooo`, and any escaped character that is not an ASCII letter or digit.
    private mutating func escapedScalar(at start: Int, isInClass: Bool) throws(RegexSyntaxError) -> UInt32 {
        guard let scalar = next() else { throw RegexSyntaxError("the pattern ends with a lone '\\' at offset \(start)") }
        switch scalar {
        case "t": return 0x09
        case "n": return 0x0A
        case "r": return 0x0D
        case "f": return 0x0C
        case "a": return 0x07
        case "e": return 0x1B
        case "b" where isInClass: return 0x08
        case "c":
            guard let control = next()?.value, (0x40...0x5F).contains(control) || (0x61...0x7A).contains(control) else {
                throw RegexSyntaxError("'\\c' at offset \(start) must be followed by a letter or one of @[\\]^_")
            }
            return control & 0x1F
        case "x":
            if peek() == "{" { return try bracedHex(at: start) }
            return try fixedHex(digits: 2, at: start, escape: "\\x")
        case "u":
            if peek() == "{" { return try bracedHex(at: start) }
            return try fixedHex(digits: 4, at: start, escape: "\\u")
        case "U":
            return try fixedHex(digits: 8, at: start, escape: "\\U")
        case "0":
            var value: UInt32 = 0
            for _ in 0..<3 {
                guard let digit = peek().flatMap({ Self.digitValue($0, radix: 8) }) else { break }
                value = value * 8 + UInt32(digit)
                position += 1
            }
            return value
        case "1"..."9":
            throw RegexSyntaxError(
                "backreferences cannot be matched in bounded time; '\\\(character(scalar))' at offset \(start) is not supported")
        case "k", "g":
            throw RegexSyntaxError(
                "backreferences cannot be matched in bounded time; '\\\(character(scalar))' at offset \(start) is not supported")
        case "X":
            throw RegexSyntaxError("'\\X' (a grapheme cluster) at offset \(start) is not supported: matching is on Unicode scalars")
        case "G", "K", "N", "C", "o", "O", "y", "Y":
            throw RegexSyntaxError("'\\\(character(scalar))' at offset \(start) is not supported")
        case "A"..."Z", "a"..."z", "0"..."9":
            throw RegexSyntaxError("unknown escape '\\\(character(scalar))' at offset \(start)")
        default:
            return scalar.value
        }
    }

    private mutating func fixedHex(digits: Int, at start: Int, escape: String) throws(RegexSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let digit = peek().flatMap({ Self.digitValue($0, radix: 16) }) else {
                throw RegexSyntaxError("'\(escape)' at offset \(start) needs \(digits) hex digits, or braces: \\x{...}")
            }
            value = value * 16 + UInt32(digit)
            position += 1
        }
        return try validScalar(value, at: start)
    }

    private mutating func bracedHex(at start: Int) throws(RegexSyntaxError) -> UInt32 {
        position += 1
        var value: UInt32 = 0
        var count = 0
        while let digit = peek().flatMap({ Self.digitValue($0, radix: 16) }) {
            guard count < 8 else { break }
            value = value * 16 + UInt32(digit)
            count += 1
            position += 1
        }
        guard count > 0, peek() == "}" else {
            throw RegexSyntaxError("expected hex digits and '}' at offset \(position) in the escape at offset \(start)")
        }
        position += 1
        return try validScalar(value, at: start)
    }

    private func validScalar(_ value: UInt32, at start: Int) throws(RegexSyntaxError) -> UInt32 {
        guard Unicode.Scalar(value) != nil else {
            throw RegexSyntaxError("the escape at offset \(start) names no Unicode scalar (\(String(value, radix: 16)))")
        }
        return value
    }

    // MARK: - Classes

    /// A class from its `[` (at the current position) to its `]`; its ranges are not yet normalized.
    private mutating func parseClass(_ flags: Flags) throws(RegexSyntaxError) -> ScalarSet {
        let start = position
        position += 1
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maximumNesting else {
            throw RegexSyntaxError("classes nested more than \(Self.maximumNesting) deep at offset \(start)")
        }
        var set = ScalarSet(isCaseInsensitive: flags.isCaseInsensitive)
        if peek() == "^" {
            set.isNegated = true
            position += 1
        }
        if peek() == "]" {
            throw RegexSyntaxError("empty class at offset \(start); write '\\]' for a literal ']'")
        }
        while true {
            guard let scalar = peek() else {
                throw RegexSyntaxError("expected ']' at offset \(position) to close the class opened at offset \(start)")
            }
            let itemStart = position
            switch scalar {
            case "]":
                position += 1
                return set
            case "[":
                if var posix = try posixClass() {
                    // Closed over case with the class around it, as ICU does (`(?i)[[:upper:]]` takes `a`).
                    posix.isCaseInsensitive = flags.isCaseInsensitive
                    set.nested.append(posix)
                } else {
                    set.nested.append(try parseClass(flags))
                }
                continue
            case "&" where peek(1) == "&", "-" where peek(1) == "-", "~" where peek(1) == "~":
                throw RegexSyntaxError(
                    "class operator '\(text(position..<position + 2))' at offset \(position) is not supported; escape the characters to mean them")
            default:
                break
            }
            let item = try classItem()
            guard peek() == "-", let after = peek(1), after != "]" else {
                switch item {
                case .scalar(let value): set.ranges.append(value...value)
                case .set(let nested): set.nested.append(nested)
                }
                continue
            }
            position += 1
            let upperStart = position
            guard case .scalar(let lower) = item else {
                throw RegexSyntaxError("a range cannot start with a class escape, at offset \(itemStart)")
            }
            guard after != "[", case .scalar(let upper) = try classItem() else {
                throw RegexSyntaxError("a range cannot end with a class, at offset \(upperStart)")
            }
            guard lower <= upper else {
                throw RegexSyntaxError("range '\(text(itemStart..<position))' at offset \(itemStart) is out of order")
            }
            set.ranges.append(lower...upper)
        }
    }

    private enum ClassItem {
        case scalar(UInt32)
        case set(ScalarSet)
    }

    private mutating func classItem() throws(RegexSyntaxError) -> ClassItem {
        let start = position
        guard let scalar = next() else {
            throw RegexSyntaxError("expected ']' at offset \(position) to close the class")
        }
        guard scalar == "\\" else { return .scalar(scalar.value) }
        if peek() == "Q" || peek() == "E" {
            throw RegexSyntaxError("'\\\(character(peek() ?? " "))' inside a class at offset \(start) is not supported")
        }
        if let set = try shorthandSet(at: start) { return .set(set) }
        return .scalar(try escapedScalar(at: start, isInClass: true))
    }

    /// `[:alpha:]` (or `[:^alpha:]`) at the current `[`; nil, with nothing consumed, when it is a nested class.
    private mutating func posixClass() throws(RegexSyntaxError) -> ScalarSet? {
        guard peek(1) == ":" else { return nil }
        let start = position
        var cursor = position + 2
        var isNegated = false
        if cursor < scalars.count, scalars[cursor] == "^" {
            isNegated = true
            cursor += 1
        }
        let nameStart = cursor
        // ICU reads the name without regard to case (`[:Digit:]`); read otherwise, it would be a nested class.
        while cursor < scalars.count, ("a"..."z").contains(scalars[cursor]) || ("A"..."Z").contains(scalars[cursor]) {
            cursor += 1
        }
        guard cursor + 1 < scalars.count, scalars[cursor] == ":", scalars[cursor + 1] == "]" else { return nil }
        let name = text(nameStart..<cursor)
        guard var set = ScalarSet.posix(name.lowercased()) else {
            throw RegexSyntaxError("unknown POSIX class '[:\(name):]' at offset \(start)")
        }
        position = cursor + 2
        set.isNegated = isNegated
        return set
    }

    // MARK: - Scalars

    private func literal(_ scalar: Unicode.Scalar, _ flags: Flags) -> RegexNode {
        literal(scalar.value, flags)
    }

    private func literal(_ value: UInt32, _ flags: Flags) -> RegexNode {
        flags.isCaseInsensitive && CaseFolding.hasCase(value) ? .foldedScalar(CaseFolding.fold(value)) : .scalar(value)
    }

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        position + ahead < scalars.count ? scalars[position + ahead] : nil
    }

    private mutating func next() -> Unicode.Scalar? {
        guard position < scalars.count else { return nil }
        position += 1
        return scalars[position - 1]
    }

    private func text(_ range: Range<Int>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[range.clamped(to: 0..<scalars.count)])
        return text
    }

    private func character(_ scalar: Unicode.Scalar) -> String {
        String(Character(scalar))
    }

    private static func digitValue(_ scalar: Unicode.Scalar, radix: Int) -> Int? {
        let value: Int
        switch scalar.value {
        case 0x30...0x39: value = Int(scalar.value - 0x30)
        case 0x41...0x46: value = Int(scalar.value - 0x41 + 10)
        case 0x61...0x66: value = Int(scalar.value - 0x61 + 10)
        default: return nil
        }
        return value < radix ? value : nil
    }
}
