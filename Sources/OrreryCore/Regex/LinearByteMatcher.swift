/// A pattern that is a sequence of single-scalar items, each repeated (`^[A-Z]{3}-[0-9]{4}$`, `^c-[0-9]+$`,
/// `\d+\.\d\d`), matched on ASCII text a byte at a time: its positions (64 at most, repeats expanded) are bits of
/// one word, and a byte moves the set of live positions forward with a table lookup and a few shifts (a Glushkov
/// automaton, simulated bit-parallel). No thread lists, no scalar decoding: the JSON Schema `pattern`s and path
/// patterns of API specs are almost all of this shape.
///
/// It answers only for text of printable ASCII and tabs (no byte at or above 0x80, no line terminator, where
/// `$`, `^` and case folding have more to say); `nil` sends anything else to the Pike VM, which gives the same
/// answer for every text.
struct LinearByteMatcher: Sendable {
    /// For each ASCII byte, the positions whose item accepts it.
    private let accepting: [UInt64]
    /// The positions reachable after each position (itself when it repeats, then the next ones, skipping those
    /// that may be left out).
    private let follow: [UInt64]
    /// The positions a match can start with.
    private let first: UInt64
    /// The positions a match can end with.
    private let last: UInt64
    /// Whether the empty text matches the sequence.
    private let isNullable: Bool
    private let isAnchoredAtStart: Bool
    private let isAnchoredAtEnd: Bool
    /// Whether no position may be left out (`^[A-Z]{3}-[0-9]{4}$`, `^c-[0-9]+$`): each position then follows only
    /// the one before it and, when it repeats, itself, and a byte moves the live set with a shift and a mask.
    private let isChain: Bool
    /// The positions that repeat, for a chain.
    private let repeating: UInt64
    /// For a chain anchored at both ends that repeats nothing (`^[A-Z]{3}-[0-9]{4}$`): the one length a match has,
    /// each byte then tested against its own position.
    private let fixedLength: Int?

    static let maximumPositions = 64

    /// The matcher for a parsed pattern, or nil when it is not such a sequence.
    init?(_ root: RegexNode) {
        var items = Self.flatten(root)
        var anchoredStart = false
        var anchoredEnd = false
        // Without line terminators in the text, `^` and `\A` are its start, `$`, `\Z` and `\z` its end.
        if case .assertion(let assertion)? = items.first, assertion == .startOfText || assertion == .startOfLine {
            anchoredStart = true
            items.removeFirst()
        }
        if case .assertion(let assertion)? = items.last,
            assertion == .endOfText || assertion == .endOfTextOrFinalTerminator || assertion == .endOfLine
        {
            anchoredEnd = true
            items.removeLast()
        }
        // Each position: the bytes it takes, whether it may be left out, whether it repeats.
        var positions: [(bytes: (UInt64, UInt64), isOptional: Bool, repeats: Bool)] = []
        for item in items {
            let atom: RegexNode
            var minimum = 1
            var maximum: Int? = 1
            if case .repetition(let body, let low, let high) = item {
                atom = body
                minimum = low
                maximum = high
            } else {
                atom = item
            }
            guard let bytes = Self.bytes(of: atom) else { return nil }
            if let maximum {
                guard maximum >= minimum else { return nil }
                for _ in 0..<minimum { positions.append((bytes, false, false)) }
                for _ in minimum..<maximum { positions.append((bytes, true, false)) }
            } else if minimum > 0 {
                for _ in 0..<minimum { positions.append((bytes, false, false)) }
                positions[positions.count - 1].repeats = true
            } else {
                positions.append((bytes, true, true))
            }
            guard positions.count <= Self.maximumPositions else { return nil }
        }
        let count = positions.count
        // closure[j]: the positions from j on that can come next, skipping optional ones; reachesEnd[j]: whether
        // the end can.
        var closure = [UInt64](repeating: 0, count: count + 1)
        var reachesEnd = [Bool](repeating: false, count: count + 1)
        reachesEnd[count] = true
        for index in stride(from: count - 1, through: 0, by: -1) {
            closure[index] = 1 << UInt64(index)
            if positions[index].isOptional {
                closure[index] |= closure[index + 1]
                reachesEnd[index] = reachesEnd[index + 1]
            }
        }
        var accepting = [UInt64](repeating: 0, count: 128)
        var follow = [UInt64](repeating: 0, count: count)
        var last: UInt64 = 0
        for (index, position) in positions.enumerated() {
            for byte in 0..<128 {
                let word = byte < 64 ? position.bytes.0 : position.bytes.1
                if word & (1 << UInt64(byte & 63)) != 0 { accepting[byte] |= 1 << UInt64(index) }
            }
            follow[index] = closure[index + 1] | (position.repeats ? 1 << UInt64(index) : 0)
            if reachesEnd[index + 1] { last |= 1 << UInt64(index) }
        }
        self.accepting = accepting
        self.follow = follow
        first = count > 0 ? closure[0] : 0
        self.last = last
        isNullable = reachesEnd[0]
        isAnchoredAtStart = anchoredStart
        isAnchoredAtEnd = anchoredEnd
        isChain = !positions.contains { $0.isOptional }
        fixedLength =
            isChain && anchoredStart && anchoredEnd && !positions.contains { $0.repeats } && count > 0 ? count : nil
        repeating = positions.enumerated().reduce(0) { mask, entry in
            entry.element.repeats ? mask | 1 << UInt64(entry.offset) : mask
        }
    }

    /// Whether the pattern matches the text; nil for text this matcher leaves to the Pike VM.
    func match(_ text: UnsafeBufferPointer<UInt8>) -> Bool? {
        if let fixedLength { return fixedMatch(text, length: fixedLength) }
        if isChain && !isNullable { return chainMatch(text) }
        guard Self.isPlain(text[...]) else { return nil }
        if isNullable && (!isAnchoredAtEnd || text.isEmpty || !isAnchoredAtStart) {
            // The empty match: anywhere when the end is free, at the end when only the end is anchored.
            return true
        }
        return accepting.withUnsafeBufferPointer { accepting in
            follow.withUnsafeBufferPointer { follow in
                var live: UInt64 = 0
                for (offset, byte) in text.enumerated() {
                    var reach: UInt64 = isAnchoredAtStart && offset > 0 ? 0 : first
                    var rest = live
                    while rest != 0 {
                        reach |= follow[rest.trailingZeroBitCount]
                        rest &= rest - 1
                    }
                    live = reach & accepting[Int(byte)]
                    if live == 0 && isAnchoredAtStart { return false }
                    if !isAnchoredAtEnd && live & last != 0 { return true }
                }
                return live & last != 0
            }
        }
    }

    /// A chain's match, the text's bytes looked at in the same pass: an answer found before the end holds only
    /// when the rest of the text is plain too.
    private func chainMatch(_ text: UnsafeBufferPointer<UInt8>) -> Bool? {
        accepting.withUnsafeBufferPointer { accepting in
            var live: UInt64 = 0
            var offset = 0
            while offset < text.count {
                let byte = text[offset]
                if !Self.isPlain(byte) { return nil }
                let start: UInt64 = isAnchoredAtStart && offset > 0 ? 0 : first
                live = ((live &<< 1) | (live & repeating) | start) & accepting[Int(byte)]
                offset += 1
                if live == 0 && isAnchoredAtStart { return Self.isPlain(text[offset...]) ? false : nil }
                if !isAnchoredAtEnd && live & last != 0 { return Self.isPlain(text[offset...]) ? true : nil }
            }
            return live & last != 0
        }
    }

    /// A fixed-length chain's match: byte `i` must be one position `i` takes.
    private func fixedMatch(_ text: UnsafeBufferPointer<UInt8>, length: Int) -> Bool? {
        guard text.count == length else { return Self.isPlain(text[...]) ? false : nil }
        return accepting.withUnsafeBufferPointer { accepting in
            for offset in 0..<length {
                let byte = text[offset]
                if !Self.isPlain(byte) { return nil }
                if accepting[Int(byte)] & (1 &<< UInt64(offset)) == 0 {
                    return Self.isPlain(text[(offset + 1)...]) ? false : nil
                }
            }
            return true
        }
    }

    /// Text this matcher answers for: ASCII with no line terminator.
    private static func isPlain(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        text.allSatisfy { isPlain($0) }
    }

    /// ASCII and no line terminator (LF, VT, FF, CR).
    @inline(__always)
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte < 0x80 && byte &- 0x0A >= 4
    }

    private static func flatten(_ node: RegexNode) -> [RegexNode] {
        switch node {
        case .concatenation(let items): items.flatMap(flatten)
        case .empty: []
        default: [node]
        }
    }

    /// The ASCII bytes a single-scalar item takes, as two words; nil for anything else (groups, alternations,
    /// assertions).
    private static func bytes(of node: RegexNode) -> (UInt64, UInt64)? {
        var words: (UInt64, UInt64) = (0, 0)
        func add(_ byte: UInt32) {
            if byte < 64 { words.0 |= 1 << UInt64(byte) } else { words.1 |= 1 << UInt64(byte - 64) }
        }
        switch node {
        case .scalar(let value):
            if value < 0x80 { add(value) }
        case .foldedScalar(let fold):
            for byte in UInt32(0)..<0x80 where CaseFolding.fold(byte) == fold { add(byte) }
        case .set(let set):
            for byte in UInt32(0)..<0x80 where set.contains(byte) { add(byte) }
        case .anyScalar:
            for byte in UInt32(0)..<0x80 { add(byte) }
        case .anyButLineTerminator:
            for byte in UInt32(0)..<0x80 where !RegexScalars.isLineTerminator(byte) { add(byte) }
        case .concatenation(let items) where items.count == 1:
            return bytes(of: items[0])
        default:
            return nil
        }
        return words
    }
}
