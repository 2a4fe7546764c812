/// A JSON body checked against compiled nodes as it is read, without building its tree: objects and arrays are
/// walked on the bytes, each member handed the node its `properties`, `additionalProperties` or `items` give it,
/// and only scalars (and the few containers whose keywords need the whole value, such as `enum` or `oneOf`) become
/// `JSONValue`s for `SchemaEvaluation`. It settles the usual case, a valid body, at a fraction of parsing the tree
/// and walking it.
///
/// It answers "valid" only when `JSONBodyParser` would read the body and `JSONSchemaValidator.isValid` would accept
/// it; at the first doubt (a violation, a key with an escape or a non-ASCII byte, a schema nested too deep) it
/// answers "unsettled", and the caller reads the body the long way, which also says what is wrong.
struct SchemaByteCheck {
    private let nodes: [SchemaNode]
    /// The nodes' keywords as plain values (`SchemaByteShapes`), read by index: no check is copied.
    private let tables: SchemaByteShapes
    private let direction: SchemaDirection?
    private var parser: JSONBodyParser.Parser
    private var evaluation: SchemaEvaluation
    /// The keys of the objects being read that no `properties` names, innermost last, as ranges of the bytes: for
    /// duplicates and `required` (named keys are bits of a mask instead).
    private var keys: [Range<Int>] = []

    init(program: SchemaProgram, bytes: UnsafeBufferPointer<UInt8>, direction: SchemaDirection?) {
        nodes = program.nodes
        tables = program.byteShapes
        self.direction = direction
        parser = JSONBodyParser.Parser(bytes: bytes)
        evaluation = SchemaEvaluation(nodes: nodes, direction: direction)
    }

    /// Whether the whole body is JSON and valid against the node.
    mutating func isSettledValid(_ root: Int) -> Bool {
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        guard value(root, frames: 0, depth: 0) else { return false }
        parser.skipWhitespace()
        return parser.index == parser.bytes.count
    }

    /// One value against a node (nil: no schema, only read); `frames` is how deep `SchemaEvaluation` would be.
    private mutating func value(_ node: Int?, frames: Int, depth: Int) -> Bool {
        parser.skipWhitespace()
        guard depth < JSONBodyParser.Parser.maximumDepth, let byte = parser.current else { return false }
        var node = node
        var frames = frames
        // Constants, and nodes that are only a `$ref`, as the evaluation follows them.
        while let current = node {
            let kind = tables.shapes[current].kind
            if kind == .anything {
                node = nil
                break
            }
            if kind == .nothing { return false }
            guard frames < SchemaEvaluation.maximumDepth else { return false }
            guard kind == .reference else { break }
            frames += 1
            node = tables.shapes[current].target
        }
        switch byte {
        case UInt8(ascii: "{"): return object(node, frames: frames, depth: depth)
        case UInt8(ascii: "["): return array(node, frames: frames, depth: depth)
        default:
            guard let node else { return whole(nil, frames: frames, depth: depth) }
            let start = parser.index
            if let settled = scalar(node, frames: frames) { return settled }
            parser.index = start
            return whole(node, frames: frames, depth: depth)
        }
    }

    /// A member of an object or an array: `value`, with the usual case, a scalar against a node with keywords,
    /// taken here without its round of checks.
    @inline(__always)
    private mutating func member(_ node: Int?, frames: Int, depth: Int) -> Bool {
        parser.skipWhitespace()
        guard let node, depth < JSONBodyParser.Parser.maximumDepth, let byte = parser.current,
            byte != UInt8(ascii: "{"), byte != UInt8(ascii: "["), tables.shapes[node].kind == .keywords
        else { return value(node, frames: frames, depth: depth) }
        let start = parser.index
        if let settled = scalar(node, frames: frames) { return settled }
        parser.index = start
        return whole(node, frames: frames, depth: depth)
    }

    /// A string, number, boolean or null checked on its bytes against the keywords that apply to it; nil when one
    /// needs the value itself (`format`, `const`, a non-ASCII string's length or pattern, a number with an
    /// exponent or too many digits for its bound, ...), and the caller reads it as a `JSONValue` instead.
    private mutating func scalar(_ node: Int, frames: Int) -> Bool? {
        guard frames < SchemaEvaluation.maximumDepth else { return nil }
        let plan = tables.scalar(node)
        if plan.pointee.needsValue { return nil }
        let bytes = parser.bytes
        let start = parser.index
        switch bytes[start] {
        case UInt8(ascii: "\""):
            guard plan.pointee.types.contains(.string) else { return nil }
            guard let (end, isASCII) = Self.stringEnd(bytes, from: start + 1) else { return nil }
            parser.index = end + 1
            guard plan.pointee.hasStringTests || plan.pointee.enumeration != nil else { return true }
            let value = UnsafeBufferPointer(rebasing: bytes[start + 1..<end])
            if let listed = plan.pointee.enumeration {
                var isListed = false
                for entry in listed where same(tables.enumerations[entry], value) {
                    isListed = true
                    break
                }
                guard isListed else { return nil }
            }
            guard plan.pointee.hasStringTests else { return true }
            // Lengths and patterns count characters: bytes only while the text is ASCII.
            guard isASCII, value.count >= plan.pointee.minLength, value.count <= plan.pointee.maxLength else {
                return nil
            }
            for index in plan.pointee.patterns where !tables.patterns[index].matches(utf8: value) { return nil }
            return true
        case UInt8(ascii: "t"):
            guard Self.literal(bytes, at: start, 0x6575_7274, count: 4) else { return nil }  // "true"
            parser.index = start + 4
            return plan.pointee.types.contains(.boolean) && plan.pointee.enumeration == nil ? true : nil
        case UInt8(ascii: "f"):
            guard Self.literal(bytes, at: start, 0x65_736C_6166, count: 5) else { return nil }  // "false"
            parser.index = start + 5
            return plan.pointee.types.contains(.boolean) && plan.pointee.enumeration == nil ? true : nil
        case UInt8(ascii: "n"):
            guard Self.literal(bytes, at: start, 0x6C6C_756E, count: 4) else { return nil }  // "null"
            parser.index = start + 4
            return plan.pointee.types.contains(.null) && plan.pointee.enumeration == nil ? true : nil
        default:
            return number(plan, bytes: bytes, start: start)
        }
    }

    /// A number written `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, as the tree parser reads it, checked against its node's
    /// type, bounds and step; its significand is gathered while it is read. An exponent, or more digits than a
    /// `SmallDecimal` holds where a bound needs them, goes the long way.
    @inline(__always)
    private mutating func number(
        _ plan: UnsafePointer<SchemaByteShapes.ScalarPlan>, bytes: UnsafeBufferPointer<UInt8>, start: Int
    )
        -> Bool?
    {
        var end = start
        let isNegative = bytes[end] == UInt8(ascii: "-")
        if isNegative { end += 1 }
        let integerStart = end
        var significand: Int64 = 0
        while end < bytes.count, bytes[end] &- UInt8(ascii: "0") < 10 {
            significand = significand &* 10 &+ Int64(bytes[end] &- UInt8(ascii: "0"))
            end += 1
        }
        let integerDigits = end - integerStart
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        var scale = 0
        if end < bytes.count, bytes[end] == UInt8(ascii: ".") {
            end += 1
            let fractionStart = end
            while end < bytes.count, bytes[end] &- UInt8(ascii: "0") < 10 {
                significand = significand &* 10 &+ Int64(bytes[end] &- UInt8(ascii: "0"))
                end += 1
            }
            scale = end - fractionStart
            guard scale > 0 else { return nil }
        }
        if end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                || byte | 0x20 == UInt8(ascii: "e")
            {
                return nil
            }
        }
        parser.index = end
        guard plan.pointee.types.contains(.number) || (plan.pointee.types.contains(.integer) && scale == 0) else {
            return nil
        }
        guard plan.pointee.enumeration == nil, !plan.pointee.numberNeedsValue else { return nil }
        guard plan.pointee.hasNumberTests else { return true }
        // Eighteen digits at most: the significand cannot have wrapped.
        guard integerDigits + scale <= 18 else { return nil }
        let number = SmallDecimal(significand: isNegative ? -significand : significand, scale: scale)
        if let bound = plan.pointee.minimum {
            guard let order = SmallDecimal.compare(number, bound), order >= 0 else { return nil }
        }
        if let bound = plan.pointee.exclusiveMinimum {
            guard let order = SmallDecimal.compare(number, bound), order > 0 else { return nil }
        }
        if let bound = plan.pointee.maximum {
            guard let order = SmallDecimal.compare(number, bound), order <= 0 else { return nil }
        }
        if let bound = plan.pointee.exclusiveMaximum {
            guard let order = SmallDecimal.compare(number, bound), order < 0 else { return nil }
        }
        if let step = plan.pointee.multipleOf {
            guard SmallDecimal.isMultiple(number, of: step) == true else { return nil }
        }
        return true
    }

    /// Where a JSON string whose text starts at `start` ends (the index of its closing quote), and whether its text
    /// is ASCII; nil when an escape or a control character comes first (the tree parser's to read). Eight bytes
    /// are looked at a time where eight follow.
    @inline(__always)
    private static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (Int, Bool)? {
        var index = start
        var high: UInt64 = 0
        if let base = bytes.baseAddress {
            while index &+ 8 <= bytes.count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let special = stopBytes(word)
                if special != 0 {
                    // The bytes before the first stop byte (a quote, a backslash or a control character).
                    let before = special.trailingZeroBitCount &>> 3
                    high |= word & ((1 &<< UInt64(before &* 8)) &- 1)
                    index &+= before
                    break
                }
                high |= word
                index &+= 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            high |= UInt64(byte)
            index += 1
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        return (index, high & 0x8080_8080_8080_8080 == 0)
    }

    /// The high bit of each byte of the word that is a quote, a backslash or below 0x20; exact for the lowest such
    /// byte (a borrow can flag bytes above it only).
    @inline(__always)
    private static func stopBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let zeroQuote = (quotes &- ones) & ~quotes
        let zeroBackslash = (backslashes &- ones) & ~backslashes
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control) & highs
    }

    /// Whether `count` bytes at `start` are the literal, given as a little-endian word (`true`, `false`, `null`).
    @inline(__always)
    private static func literal(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, _ word: UInt64, count: Int) -> Bool
    {
        guard start &+ count <= bytes.count else { return false }
        return Self.word(bytes, start..<start &+ count) == word
    }

    /// Whether a name of the pool is the bytes.
    @inline(__always)
    private func same(_ name: SchemaByteShapes.Name, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count == text.count else { return false }
        var offset = 0
        while offset < text.count {
            if tables.bytes[name.start + offset] != text[offset] { return false }
            offset += 1
        }
        return true
    }

    /// The value read as a tree and checked by the evaluation: scalars, and containers whose keywords need it.
    private mutating func whole(_ node: Int?, frames: Int, depth: Int) -> Bool {
        guard let instance = parser.value(depth: depth) else { return false }
        guard let node else { return true }
        evaluation.depth = frames
        return evaluation.check(node, instance, isCollecting: false)
    }

    private mutating func object(_ node: Int?, frames: Int, depth: Int) -> Bool {
        let shape = tables.shape(node)
        if let node {
            guard frames < SchemaEvaluation.maximumDepth else { return false }
            switch shape.pointee.object {
            case .members: break
            case .whole: return whole(node, frames: frames, depth: depth)
            case .refused: return false
            }
        }
        let inner = frames + 1
        let bytes = parser.bytes
        // The index is a local between members (a register, where the parser's is written to memory at each step).
        var index = JSONBodyParser.Parser.firstNonWhitespace(bytes, from: parser.index + 1)
        let base = keys.count
        defer { if keys.count > base { keys.removeLast(keys.count - base) } }
        // The keys `properties` names, as bits by position: a bit seen twice is a duplicate key.
        var seen: UInt64 = 0
        // Bodies mostly list their members in the schema's order: the name after the last one met is tried first.
        let properties = shape.pointee.properties
        var next = properties.lowerBound
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            parser.index = index + 1
        } else {
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return false }
                let start = index + 1
                var child: Int?
                var named = -1
                if shape.pointee.hasProperties {
                    var position = next
                    for _ in 0..<properties.count {
                        if isName(position, at: start) {
                            named = position
                            break
                        }
                        position += 1
                        if position == properties.upperBound { position = properties.lowerBound }
                    }
                }
                if named >= 0 {
                    let name = tables.names[named]
                    index = start + name.count + 1
                    let bit: UInt64 = 1 &<< UInt64(named &- properties.lowerBound)
                    guard seen & bit == 0 else { return false }
                    seen |= bit
                    if let direction, direction == .request ? name.isReadOnly : name.isWriteOnly { return false }
                    child = name.node
                    next = named + 1 == properties.upperBound ? properties.lowerBound : named + 1
                } else {
                    // A key no plain name is: plain ASCII only, anything else is compared as the tree parser
                    // compares it, the long way.
                    guard let (end, isASCII) = Self.stringEnd(bytes, from: start), isASCII else { return false }
                    index = end + 1
                    let key = start..<end
                    for earlier in base..<keys.count where Self.equal(bytes, keys[earlier], key) { return false }
                    keys.append(key)
                    if shape.pointee.hasProperties, let additional = shape.pointee.additional {
                        if shape.pointee.isAdditionalFalse { return false }
                        child = additional
                    }
                }
                index = JSONBodyParser.Parser.firstNonWhitespace(bytes, from: index)
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
                parser.index = index + 1
                guard member(child, frames: inner, depth: depth + 1) else { return false }
                index = JSONBodyParser.Parser.firstNonWhitespace(bytes, from: parser.index)
                guard index < bytes.count else { return false }
                if bytes[index] == UInt8(ascii: ",") {
                    index = JSONBodyParser.Parser.firstNonWhitespace(bytes, from: index + 1)
                } else if bytes[index] == UInt8(ascii: "}") {
                    parser.index = index + 1
                    break
                } else {
                    return false
                }
            }
        }
        let count = keys.count - base + seen.nonzeroBitCount
        guard count >= shape.pointee.minProperties, count <= shape.pointee.maxProperties else { return false }
        guard seen & shape.pointee.requiredProperties == shape.pointee.requiredProperties else { return false }
        for position in shape.pointee.required {
            let name = tables.names[position]
            var isPresent = false
            for index in base..<keys.count where keys[index].count == name.count {
                if same(name, UnsafeBufferPointer(rebasing: bytes[keys[index]])) {
                    isPresent = true
                    break
                }
            }
            guard isPresent else { return false }
        }
        return true
    }

    private mutating func array(_ node: Int?, frames: Int, depth: Int) -> Bool {
        let shape = tables.shape(node)
        if let node {
            guard frames < SchemaEvaluation.maximumDepth else { return false }
            switch shape.pointee.array {
            case .members: break
            case .whole: return whole(node, frames: frames, depth: depth)
            case .refused: return false
            }
        }
        let inner = frames + 1
        parser.index += 1
        var count = 0
        parser.skipWhitespace()
        if parser.current == UInt8(ascii: "]") {
            parser.index += 1
        } else {
            while true {
                let child: Int? =
                    node == nil || !shape.pointee.hasItems
                    ? nil
                    : count < shape.pointee.prefix.count
                        ? tables.prefixItems[shape.pointee.prefix.lowerBound + count] : shape.pointee.rest
                guard member(child, frames: inner, depth: depth + 1) else { return false }
                count += 1
                parser.skipWhitespace()
                if parser.current == UInt8(ascii: ",") {
                    parser.index += 1
                } else if parser.current == UInt8(ascii: "]") {
                    parser.index += 1
                    break
                } else {
                    return false
                }
            }
        }
        return count >= shape.pointee.minItems && count <= shape.pointee.maxItems
    }

    /// Whether the body's key starting at `start` (after its opening quote) is the plain name at `position` of
    /// the names: the name's bytes, then the closing quote.
    @inline(__always)
    private func isName(_ position: Int, at start: Int) -> Bool {
        let name = tables.names[position]
        let bytes = parser.bytes
        let end = start &+ name.count
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return false }
        // Eight bytes follow the key's start but where the body ends within a short key's last bytes.
        let loaded: UInt64
        if start &+ 8 <= bytes.count, let base = bytes.baseAddress {
            loaded = UInt64(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
        } else {
            loaded = Self.word(bytes, start..<end)
        }
        guard loaded & name.mask == name.word else { return false }
        guard name.count > 8 else { return true }
        var offset = 8
        while offset < name.count {
            if tables.bytes[name.start &+ offset] != bytes[start &+ offset] { return false }
            offset &+= 1
        }
        return true
    }

    /// A key's first eight bytes (fewer for a shorter key, the rest zero) as a little-endian word, as
    /// `SchemaByteShapes.word` makes a name's: one load where eight bytes follow the key's start.
    @inline(__always)
    private static func word(_ bytes: UnsafeBufferPointer<UInt8>, _ key: Range<Int>) -> UInt64 {
        guard let base = bytes.baseAddress, key.lowerBound &+ 8 <= bytes.count else {
            return SchemaByteShapes.word(UnsafeBufferPointer(rebasing: bytes[key]))
        }
        let loaded = UInt64(littleEndian: UnsafeRawPointer(base + key.lowerBound).loadUnaligned(as: UInt64.self))
        return key.count >= 8 ? loaded : loaded & ((1 &<< UInt64(key.count &* 8)) &- 1)
    }

    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        for offset in 0..<a.count where bytes[a.lowerBound + offset] != bytes[b.lowerBound + offset] { return false }
        return true
    }
}

extension JSONSchemaValidator {
    /// Whether a JSON body (UTF-8) is certainly JSON and valid, read on its bytes without building its tree:
    /// `true` only where `JSONBodyParser.parse` reads it and `isValid` would accept it; `false` when it is not,
    /// or when that cannot be settled on the bytes, and the body must be read and checked the usual way.
    public func isSettledValid(json bytes: [UInt8], direction: SchemaDirection? = nil) -> Bool {
        guard !bytes.isEmpty else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            var check = SchemaByteCheck(program: program, bytes: buffer, direction: direction)
            return check.isSettledValid(root)
        }
    }
}
