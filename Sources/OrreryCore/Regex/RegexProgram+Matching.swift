extension RegexProgram {
    /// Whether the pattern matches anywhere in the text (at its start only when anchored there).
    func match(_ text: String) -> Outcome {
        if let outcome = text.utf8.withContiguousStorageIfAvailable({ match(utf8: $0) }) { return outcome }
        var contiguous = text
        contiguous.makeContiguousUTF8()
        return contiguous.utf8.withContiguousStorageIfAvailable { match(utf8: $0) } ?? .noMatch
    }

    /// Matches valid UTF-8 (a `String`'s bytes).
    func match(utf8 text: UnsafeBufferPointer<UInt8>) -> Outcome {
        if let literalShape {
            return matchesLiteral(literalShape, in: text) ? .match : .noMatch
        }
        if !prefix.isEmpty && !Self.hasPrefix(text, prefix) { return .noMatch }
        if let linear, let matched = linear.match(text) { return matched ? .match : .noMatch }
        if !required.isEmpty && !Self.contains(text, required, failure: requiredFailure) { return .noMatch }
        return run(text)
    }

    private func matchesLiteral(_ shape: LiteralShape, in text: UnsafeBufferPointer<UInt8>) -> Bool {
        switch shape {
        case .substring:
            return Self.contains(text, required, failure: requiredFailure)
        case .prefix:
            return Self.hasPrefix(text, prefix)
        case .whole(let allowsFinalTerminator):
            guard Self.hasPrefix(text, prefix) else { return false }
            if text.count == prefix.count { return true }
            return allowsFinalTerminator && Self.isFinalTerminator(text, at: prefix.count)
        }
    }

    private static func hasPrefix(_ text: UnsafeBufferPointer<UInt8>, _ prefix: [UInt8]) -> Bool {
        guard text.count >= prefix.count else { return false }
        for index in prefix.indices where text[index] != prefix[index] { return false }
        return true
    }

    /// Knuth-Morris-Pratt, so that no text and needle make the search quadratic; a plain scan for the first byte
    /// while nothing is matched.
    private static func contains(_ text: UnsafeBufferPointer<UInt8>, _ needle: [UInt8], failure: [Int32]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard text.count >= needle.count else { return false }
        return needle.withUnsafeBufferPointer { needle in
            failure.withUnsafeBufferPointer { failure in
                let first = needle[0]
                var matched = 0
                var index = 0
                while index < text.count {
                    if matched == 0 {
                        while index < text.count && text[index] != first { index += 1 }
                        guard index < text.count else { return false }
                    }
                    let byte = text[index]
                    while matched > 0 && byte != needle[matched] { matched = Int(failure[matched - 1]) }
                    if byte == needle[matched] { matched += 1 }
                    if matched == needle.count { return true }
                    index += 1
                }
                return false
            }
        }
    }

    /// Whether the rest of the text from `index` is one line terminator (`\r\n` counting as one).
    static func isFinalTerminator(_ text: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        guard index < text.count else { return false }
        // Between the CR and the LF of a final CRLF is inside the terminator, not before it (as ICU reads `\r$`).
        if index > 0 && text[index - 1] == 0x0D && text[index] == 0x0A { return false }
        if text[index] == 0x0D && index + 1 < text.count {
            return text[index + 1] == 0x0A && index + 2 == text.count
        }
        let (scalar, length) = PikeVM.decode(text, at: index)
        return RegexScalars.isLineTerminator(scalar) && index + length == text.count
    }

    private func run(_ text: UnsafeBufferPointer<UInt8>) -> Outcome {
        let size = instructions.count
        // Marks, two thread lists and a stack, each one slot per instruction: on the stack for usual programs,
        // so that a match allocates nothing.
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: 4 * size) { scratch in
            guard let base = scratch.baseAddress else { return .noMatch }
            // Only the marks are read before they are written.
            base.initialize(repeating: 0, count: size)
            return instructions.withUnsafeBufferPointer { program in
                setBits.withUnsafeBufferPointer { setBits in
                    firstBytes.withUnsafeBufferPointer { firstBytes in
                        var machine = PikeVM(
                            program: program, setBits: setBits, sets: sets, text: text, marks: base,
                            current: base + size, next: base + 2 * size, stack: base + 3 * size,
                            budget: Self.baseWork + Self.workPerByte * text.count)
                        return machine.run(
                            from: prefix.count, previous: previousAtStart, isAnchoredAtStart: isAnchoredAtStart,
                            firstBytes: firstBytes)
                    }
                }
            }
        }
    }
}

/// One match in progress: the NFA's live states as a list per text position, with no order kept (only whether a
/// match exists is asked, so no thread needs priority over another).
private struct PikeVM {
    let program: UnsafeBufferPointer<RegexProgram.Instruction>
    let setBits: UnsafeBufferPointer<UInt64>
    let sets: [ScalarSet]
    let text: UnsafeBufferPointer<UInt8>
    /// The generation in which each instruction was last added: an instruction is in a list at most once.
    let marks: UnsafeMutablePointer<Int32>
    var current: UnsafeMutablePointer<Int32>
    var next: UnsafeMutablePointer<Int32>
    let stack: UnsafeMutablePointer<Int32>
    let budget: Int
    var nextCount = 0
    var generation: Int32 = 1
    var work = 0

    /// Stands for "no scalar" before the text's start.
    static let noScalar = UInt32.max

    init(
        program: UnsafeBufferPointer<RegexProgram.Instruction>, setBits: UnsafeBufferPointer<UInt64>, sets: [ScalarSet],
        text: UnsafeBufferPointer<UInt8>, marks: UnsafeMutablePointer<Int32>, current: UnsafeMutablePointer<Int32>,
        next: UnsafeMutablePointer<Int32>, stack: UnsafeMutablePointer<Int32>, budget: Int
    ) {
        self.program = program
        self.setBits = setBits
        self.sets = sets
        self.text = text
        self.marks = marks
        self.current = current
        self.next = next
        self.stack = stack
        self.budget = budget
    }

    /// Runs the program from `start` (past a prefix already compared), `previous` being the scalar before it.
    mutating func run(
        from start: Int, previous: UInt32, isAnchoredAtStart: Bool, firstBytes: UnsafeBufferPointer<UInt64>
    ) -> RegexProgram.Outcome {
        let end = text.count
        var position = start
        var previous = previous
        while true {
            // `next` holds the threads at `position`; a search not anchored starts one more here.
            if position == start || !isAnchoredAtStart {
                if nextCount == 0 && !firstBytes.isEmpty && !isAnchoredAtStart {
                    while position < end && !Self.contains(firstBytes, text[position]) { position += 1 }
                    // With first bytes known, the start cannot match without a scalar.
                    guard position < end else { return .noMatch }
                }
                if add(0, at: position, previous: previous) { return .match }
            }
            if position == end { return .noMatch }
            let (scalar, length) = Self.decode(text, at: position)
            if nextCount == 0 {
                if isAnchoredAtStart { return .noMatch }
                // A new position: the start may be added again.
                generation += 1
                previous = scalar
                position += length
                continue
            }
            swap(&current, &next)
            let count = nextCount
            nextCount = 0
            generation += 1
            work += count
            if work > budget { return .abandoned }
            for index in 0..<count {
                let pc = Int(current[index])
                if Self.consumes(program[pc], scalar, setBits: setBits, sets: sets)
                    && add(Int32(pc + 1), at: position + length, previous: scalar)
                {
                    return .match
                }
            }
            previous = scalar
            position += length
        }
    }

    /// Adds an instruction to `next` with every instruction reachable from it without consuming, evaluating
    /// assertions at `position`; true when that reaches the match.
    private mutating func add(_ start: Int32, at position: Int, previous: UInt32) -> Bool {
        guard marks[Int(start)] != generation else { return false }
        marks[Int(start)] = generation
        stack[0] = start
        var depth = 1
        while depth > 0 {
            depth -= 1
            var pc = stack[depth]
            // Follows one branch in place and stacks the other: most steps push nothing. Each instruction is
            // marked when first reached, so it is visited once and the stack never outgrows the program.
            following: while true {
                let instruction = program[Int(pc)]
                switch instruction.opcode {
                case .jump:
                    pc = instruction.operand
                case .split:
                    let alternative = instruction.alternative
                    if marks[Int(alternative)] != generation {
                        marks[Int(alternative)] = generation
                        stack[depth] = alternative
                        depth += 1
                    }
                    pc = instruction.operand
                case .assertion:
                    guard Self.holds(instruction.operand, at: position, previous: previous, in: text) else {
                        break following
                    }
                    pc += 1
                case .match:
                    return true
                default:
                    next[nextCount] = pc
                    nextCount += 1
                    break following
                }
                guard marks[Int(pc)] != generation else { break following }
                marks[Int(pc)] = generation
            }
        }
        return false
    }

    // The steps below are static, taking what they read: as methods, each call copied the whole machine.

    @inline(__always)
    private static func consumes(
        _ instruction: RegexProgram.Instruction, _ scalar: UInt32, setBits: UnsafeBufferPointer<UInt64>,
        sets: [ScalarSet]
    ) -> Bool {
        switch instruction.opcode {
        case .scalar:
            return scalar == UInt32(bitPattern: instruction.operand)
        case .foldedScalar:
            let fold = scalar < 0x80 ? (scalar >= 0x41 && scalar <= 0x5A ? scalar | 0x20 : scalar) : CaseFolding.fold(scalar)
            return fold == UInt32(bitPattern: instruction.operand)
        case .set:
            let index = Int(instruction.operand)
            if scalar < 0x80 { return setBits[2 * index + Int(scalar >> 6)] & (1 << UInt64(scalar & 63)) != 0 }
            return sets[index].contains(scalar)
        case .anyScalar:
            return true
        case .anyButLineTerminator:
            return !RegexScalars.isLineTerminator(scalar)
        case .split, .jump, .assertion, .match:
            return false
        }
    }

    private static func holds(
        _ assertion: Int32, at position: Int, previous: UInt32, in text: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        let end = text.count
        switch RegexAssertion(rawValue: assertion) {
        case .startOfText:
            return position == 0
        case .startOfLine:
            return position == 0
                || (RegexScalars.isLineTerminator(previous) && !(previous == 0x0D && position < end && text[position] == 0x0A))
        case .endOfText:
            return position == end
        case .endOfTextOrFinalTerminator:
            return position == end || RegexProgram.isFinalTerminator(text, at: position)
        case .endOfLine:
            guard position < end else { return true }
            if previous == 0x0D && text[position] == 0x0A { return false }
            return RegexScalars.isLineTerminator(decode(text, at: position).scalar)
        case .wordBoundary:
            return isWord(previous) != (position < end && RegexScalars.isWord(UInt32(text[position])))
        case .notWordBoundary:
            return isWord(previous) == (position < end && RegexScalars.isWord(UInt32(text[position])))
        case nil:
            return false
        }
    }

    private static func isWord(_ scalar: UInt32) -> Bool {
        scalar != noScalar && RegexScalars.isWord(scalar)
    }

    @inline(__always)
    private static func contains(_ bits: UnsafeBufferPointer<UInt64>, _ byte: UInt8) -> Bool {
        bits[Int(byte >> 6)] & (1 << UInt64(byte & 63)) != 0
    }

    /// The scalar starting at `index` of valid UTF-8, and its length in bytes. A sequence cut short (which a
    /// `String` never has) reads as U+FFFD, one byte long, rather than past the end.
    @inline(__always)
    static func decode(_ text: UnsafeBufferPointer<UInt8>, at index: Int) -> (scalar: UInt32, length: Int) {
        let lead = UInt32(text[index])
        if lead < 0x80 { return (lead, 1) }
        let length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        guard index + length <= text.count else { return (0xFFFD, 1) }
        var scalar = lead & (lead < 0xE0 ? 0x1F : lead < 0xF0 ? 0x0F : 0x07)
        for offset in 1..<length { scalar = scalar << 6 | UInt32(text[index + offset] & 0x3F) }
        return (scalar, length)
    }
}
