import Synchronization

/// A compiled pattern: a Thompson NFA, run as a Pike VM over the text's Unicode scalars, so that a match costs time
/// linear in the text whatever the pattern (`^(a+)+$` included); no backtracking, no exponential case.
///
/// Before the VM runs, literal facts found at compile time settle most texts: a pattern that is one literal
/// (`^/api/users$`, `xml`) is a comparison, an anchored literal prefix must start the text, and a literal every
/// match contains must be in it. Immutable once built, so event loops on several threads share it; each match
/// keeps its scratch on its own stack.
final class RegexProgram: Sendable {
    /// The largest program accepted, in instructions, counted after `{m,n}` repeats are expanded; about the
    /// pattern's length plus each repeat's body times its count.
    static let maximumInstructions = 20_000
    /// A match gives up after this much work (threads stepped) plus `workPerByte` for each byte of the text:
    /// generous for any pattern of a few hundred instructions, and a few milliseconds for a URL or header.
    static let baseWork = 1_000_000
    static let workPerByte = 8

    struct Instruction: Sendable {
        var opcode: Opcode
        /// The scalar, its fold, the set's index, the jump's target, the split's first branch or the assertion.
        var operand: Int32
        /// The split's second branch.
        var alternative: Int32 = 0
    }

    enum Opcode: UInt8, Sendable {
        case scalar, foldedScalar, set, anyScalar, anyButLineTerminator, split, jump, assertion, match
    }

    /// What a pattern amounts to when it is a single literal, anchors aside.
    enum LiteralShape: Sendable {
        /// `^literal$` or `^literal\z`.
        case whole(allowsFinalTerminator: Bool)
        /// `^literal`.
        case prefix
        /// `literal`, found anywhere.
        case substring
    }

    enum Outcome {
        case match, noMatch
        /// The work budget ran out: treated as no match, and reported.
        case abandoned
    }

    let instructions: [Instruction]
    let sets: [ScalarSet]
    /// Two words per set: which ASCII scalars it holds, so that ASCII text never evaluates a set.
    let setBits: [UInt64]
    let isAnchoredAtStart: Bool
    let literalShape: LiteralShape?
    /// UTF-8 bytes an anchored match must start with; for a literal shape, the literal itself.
    let prefix: [UInt8]
    /// UTF-8 bytes every match contains (or the literal of a `substring` shape), with its KMP failure table.
    let required: [UInt8]
    let requiredFailure: [Int32]
    /// Four words: the UTF-8 lead bytes a match can start with, to skip the rest; empty when any can.
    let firstBytes: [UInt64]
    /// The byte matcher, when the pattern is a sequence of single-scalar items: most texts never reach the VM.
    let linear: LinearByteMatcher?
    /// So that a pattern that keeps giving up is reported once, not on every request.
    let hasReportedAbandonment = Atomic<Bool>(false)

    /// The scalar before the program's start: the prefix's last, for `\b` right after it.
    let previousAtStart: UInt32

    init(_ pattern: String) throws(RegexSyntaxError) {
        let root = LiteralFacts.withoutOptionalEnds(try RegexParser.parse(pattern))
        let facts = LiteralFacts(root)
        linear = LinearByteMatcher(root)
        var compiler = Compiler()
        // After an anchored literal prefix, which is compared first, the VM runs only what follows it.
        try compiler.emit(facts.prefix.isEmpty ? root : .concatenation(facts.afterPrefix))
        compiler.append(Instruction(opcode: .match, operand: 0))
        instructions = compiler.instructions
        sets = compiler.sets
        setBits = compiler.sets.flatMap { set -> [UInt64] in
            var words: [UInt64] = [0, 0]
            for scalar in UInt32(0)..<128 where set.contains(scalar) { words[Int(scalar >> 6)] |= 1 << (scalar & 63) }
            return words
        }
        isAnchoredAtStart = facts.isAnchoredAtStart
        previousAtStart = facts.lastPrefixScalar ?? UInt32.max
        literalShape = facts.shape
        prefix = facts.prefix
        required = facts.required
        requiredFailure = Self.failureTable(facts.required)
        firstBytes = Self.firstBytes(instructions, sets: compiler.sets, setBits: setBits)
    }

    // MARK: - Compiling

    private struct Compiler {
        var instructions: [Instruction] = []
        var sets: [ScalarSet] = []

        @discardableResult
        mutating func append(_ instruction: Instruction) -> Int {
            instructions.append(instruction)
            return instructions.count - 1
        }

        private mutating func checkSize() throws(RegexSyntaxError) {
            guard instructions.count <= RegexProgram.maximumInstructions else {
                throw RegexSyntaxError(
                    "the pattern is too large once its repeats are expanded (more than \(RegexProgram.maximumInstructions) steps); use smaller counts in '{m,n}'")
            }
        }

        private var next: Int32 { Int32(instructions.count) }

        mutating func emit(_ node: RegexNode) throws(RegexSyntaxError) {
            switch node {
            case .empty:
                break
            case .scalar(let value):
                append(Instruction(opcode: .scalar, operand: Int32(bitPattern: value)))
            case .foldedScalar(let value):
                append(Instruction(opcode: .foldedScalar, operand: Int32(bitPattern: value)))
            case .set(let set):
                sets.append(set)
                append(Instruction(opcode: .set, operand: Int32(sets.count - 1)))
            case .anyScalar:
                append(Instruction(opcode: .anyScalar, operand: 0))
            case .anyButLineTerminator:
                append(Instruction(opcode: .anyButLineTerminator, operand: 0))
            case .assertion(let assertion):
                append(Instruction(opcode: .assertion, operand: assertion.rawValue))
            case .concatenation(let items):
                for item in items { try emit(item) }
            case .alternation(let branches):
                var exits: [Int] = []
                for branch in branches.dropLast() {
                    let split = append(Instruction(opcode: .split, operand: next + 1))
                    try emit(branch)
                    exits.append(append(Instruction(opcode: .jump, operand: 0)))
                    instructions[split].alternative = next
                }
                if let last = branches.last { try emit(last) }
                for exit in exits { instructions[exit].operand = next }
            case .repetition(let body, let minimum, let maximum):
                if let maximum {
                    for _ in 0..<minimum { try emit(body) }
                    var skips: [Int] = []
                    for _ in minimum..<maximum {
                        skips.append(append(Instruction(opcode: .split, operand: next + 1)))
                        try emit(body)
                        try checkSize()
                    }
                    for skip in skips { instructions[skip].alternative = next }
                } else if minimum > 0 {
                    for _ in 1..<minimum { try emit(body) }
                    let loop = next
                    try emit(body)
                    append(Instruction(opcode: .split, operand: loop, alternative: next + 1))
                } else {
                    let loop = append(Instruction(opcode: .split, operand: next + 1))
                    try emit(body)
                    append(Instruction(opcode: .jump, operand: Int32(loop)))
                    instructions[loop].alternative = next
                }
            }
            try checkSize()
        }
    }

    /// The lead bytes the first scalar of a match can have, when the start needs no assertion and cannot match
    /// the empty text: when no thread is alive, the search jumps to the next such byte.
    private static func firstBytes(_ program: [Instruction], sets: [ScalarSet], setBits: [UInt64]) -> [UInt64] {
        var bits: [UInt64] = [0, 0, 0, 0]
        func add(_ byte: UInt32) { bits[Int(byte >> 6)] |= 1 << UInt64(byte & 63) }
        func addNonASCIILeads() { for byte in UInt32(0xC2)...0xF4 { add(byte) } }
        var seen = Set<Int32>()
        var pending: [Int32] = [0]
        while let pc = pending.popLast() {
            guard seen.insert(pc).inserted else { continue }
            let instruction = program[Int(pc)]
            switch instruction.opcode {
            case .jump: pending.append(instruction.operand)
            case .split: pending += [instruction.operand, instruction.alternative]
            case .assertion, .match, .anyScalar, .anyButLineTerminator: return []
            case .scalar:
                let value = UInt32(bitPattern: instruction.operand)
                add(Self.leadByte(value))
            case .foldedScalar:
                let value = UInt32(bitPattern: instruction.operand)
                if value < 0x80 {
                    add(value)
                    if value >= 0x61 && value <= 0x7A { add(value - 0x20) }
                } else {
                    add(Self.leadByte(value))
                }
                // Non-ASCII scalars can fold to ASCII ones (KELVIN SIGN to `k`).
                addNonASCIILeads()
            case .set:
                let index = Int(instruction.operand)
                bits[0] |= setBits[2 * index]
                bits[1] |= setBits[2 * index + 1]
                let set = sets[index]
                if set.isNegated || set.isCaseInsensitive || set.categories != 0 || !set.nested.isEmpty
                    || set.ranges.contains(where: { $0.upperBound >= 0x80 })
                {
                    addNonASCIILeads()
                }
            }
        }
        let count = bits.reduce(0) { $0 + $1.nonzeroBitCount }
        return count > 200 ? [] : bits
    }

    static func leadByte(_ scalar: UInt32) -> UInt32 {
        switch scalar {
        case ..<0x80: scalar
        case ..<0x800: 0xC0 | scalar >> 6
        case ..<0x10000: 0xE0 | scalar >> 12
        default: 0xF0 | scalar >> 18
        }
    }

    static func failureTable(_ needle: [UInt8]) -> [Int32] {
        var failure = [Int32](repeating: 0, count: needle.count)
        var length = 0
        var index = 1
        while index < needle.count {
            if needle[index] == needle[length] {
                length += 1
                failure[index] = Int32(length)
                index += 1
            } else if length > 0 {
                length = Int(failure[length - 1])
            } else {
                index += 1
            }
        }
        return failure
    }
}

/// What the pattern's top level says about literals: anchoring, a literal prefix, a required literal, and whether
/// the whole pattern is one literal.
private struct LiteralFacts {
    var isAnchoredAtStart = false
    var prefix: [UInt8] = []
    var lastPrefixScalar: UInt32?
    /// The top level's items after the anchor and the prefix.
    var afterPrefix: [RegexNode] = []
    var required: [UInt8] = []
    var shape: RegexProgram.LiteralShape?

    init(_ root: RegexNode) {
        isAnchoredAtStart = Self.isAnchoredAtStart(root)
        let items = Self.flatten(root)
        var index = 0
        if case .assertion(.startOfText)? = items.first {
            index = 1
            while index < items.count, case .scalar(let value) = items[index] {
                Self.appendUTF8(value, to: &prefix)
                lastPrefixScalar = value
                index += 1
            }
        }
        afterPrefix = Array(items[index...])
        // The whole pattern a literal: `^lit$`, `^lit\z`, `^lit` or `lit`.
        let rest = items[index...]
        if isAnchoredAtStart && !items.isEmpty {
            switch rest.first {
            case nil: shape = .prefix
            case .assertion(.endOfText)? where rest.count == 1: shape = .whole(allowsFinalTerminator: false)
            case .assertion(.endOfTextOrFinalTerminator)? where rest.count == 1:
                shape = .whole(allowsFinalTerminator: true)
            default: break
            }
        }
        if shape == nil, items.allSatisfy({ if case .scalar = $0 { true } else { false } }) {
            shape = .substring
            for case .scalar(let value) in items { Self.appendUTF8(value, to: &required) }
            return
        }
        guard shape == nil else { return }
        // The longest run of literal scalars after the prefix: every match contains it.
        var run: [UInt8] = []
        for item in rest {
            if case .scalar(let value) = item {
                Self.appendUTF8(value, to: &run)
            } else {
                if run.count > required.count { required = run }
                run = []
            }
        }
        if run.count > required.count { required = run }
        if required.count < 2 { required = [] }
    }

    /// The pattern without the repetitions that may match nothing at its ends (at its start only when it is not
    /// anchored there): whether a match exists anywhere does not depend on them, since they can always match
    /// the empty text. `.*\.png$` is searched as `\.png$`, which has a literal to look for.
    static func withoutOptionalEnds(_ root: RegexNode) -> RegexNode {
        var items = flatten(root)
        let count = items.count
        while case .repetition(_, 0, _)? = items.last { items.removeLast() }
        if !isAnchoredAtStart(root) {
            while case .repetition(_, 0, _)? = items.first { items.removeFirst() }
        }
        guard items.count != count else { return root }
        return items.count == 1 ? items[0] : .concatenation(items)
    }

    private static func flatten(_ node: RegexNode) -> [RegexNode] {
        switch node {
        case .empty: []
        case .concatenation(let items): items.flatMap(flatten)
        default: [node]
        }
    }

    private static func isAnchoredAtStart(_ node: RegexNode) -> Bool {
        switch node {
        case .assertion(.startOfText): true
        case .concatenation(let items):
            items.first { if case .empty = $0 { false } else { true } }.map(isAnchoredAtStart) ?? false
        case .alternation(let branches): branches.allSatisfy(isAnchoredAtStart)
        case .repetition(let body, let minimum, _): minimum > 0 && isAnchoredAtStart(body)
        default: false
        }
    }

    static func appendUTF8(_ value: UInt32, to bytes: inout [UInt8]) {
        guard let scalar = Unicode.Scalar(value) else { return }
        bytes.append(contentsOf: UTF8.encode(scalar).map { Array($0) } ?? [])
    }
}
