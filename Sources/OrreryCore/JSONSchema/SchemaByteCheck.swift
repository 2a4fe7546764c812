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

    /// A string, number, boolean or null checked on its bytes against the keywords that apply to it; nil when one
    /// needs the value itself (`format`, `const`, a non-ASCII string's length or pattern, a number with an
    /// exponent, ...), and the caller reads it as a `JSONValue` instead.
    private mutating func scalar(_ node: Int, frames: Int) -> Bool? {
        guard frames < SchemaEvaluation.maximumDepth else { return nil }
        let bytes = parser.bytes
        let start = parser.index
        let kind: SchemaTypeSet
        var text = start..<start
        var isASCII = true
        var isWrittenAsInteger = true
        switch bytes[start] {
        case UInt8(ascii: "\""):
            var end = start + 1
            while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\n") { return nil }
                if byte >= 0x80 { isASCII = false }
                end += 1
            }
            guard end < bytes.count else { return nil }
            kind = .string
            text = start + 1..<end
            parser.index = end + 1
        case UInt8(ascii: "t"):
            guard Self.literal(bytes, at: start, 0x6575_7274, count: 4) else { return nil }  // "true"
            parser.index = start + 4
            kind = .boolean
        case UInt8(ascii: "f"):
            guard Self.literal(bytes, at: start, 0x65_736C_6166, count: 5) else { return nil }  // "false"
            parser.index = start + 5
            kind = .boolean
        case UInt8(ascii: "n"):
            guard Self.literal(bytes, at: start, 0x6C6C_756E, count: 4) else { return nil }  // "null"
            parser.index = start + 4
            kind = .null
        default:
            // `-?(0|[1-9][0-9]*)(\.[0-9]+)?` as the tree parser reads it; an exponent goes the long way.
            var end = start
            if bytes[end] == UInt8(ascii: "-") { end += 1 }
            let integerStart = end
            while end < bytes.count, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") { end += 1 }
            let integerDigits = end - integerStart
            guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
            if end < bytes.count, bytes[end] == UInt8(ascii: ".") {
                end += 1
                let fractionStart = end
                while end < bytes.count, bytes[end] >= UInt8(ascii: "0"), bytes[end] <= UInt8(ascii: "9") { end += 1 }
                guard end > fractionStart else { return nil }
                isWrittenAsInteger = false
            }
            if end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                    || byte | 0x20 == UInt8(ascii: "e")
                {
                    return nil
                }
            }
            kind = .number
            text = start..<end
            parser.index = end
        }
        let value = UnsafeBufferPointer(rebasing: bytes[text])
        // The number, read once when a bound or a step asks for it.
        var number: SmallDecimal?
        for position in tables.shapes[node].scalarTests {
            switch tables.scalarTests[position] {
            case .type(let types, let isNullable):
                switch kind {
                case .number:
                    guard types.contains(.number) || (types.contains(.integer) && isWrittenAsInteger) else {
                        return nil
                    }
                case .null:
                    guard types.contains(.null) || isNullable else { return nil }
                default:
                    guard types.contains(kind) else { return nil }
                }
            case .enumeration(let listed):
                guard kind == .string else { return nil }
                var isListed = false
                for entry in listed where tables.enumerations[entry].count == value.count {
                    if same(tables.enumerations[entry], value) {
                        isListed = true
                        break
                    }
                }
                guard isListed else { return nil }
            case .minLength(let limit):
                guard kind == .string else { continue }
                guard isASCII, value.count >= limit else { return nil }
            case .maxLength(let limit):
                guard kind == .string else { continue }
                guard isASCII, value.count <= limit else { return nil }
            case .pattern(let index):
                guard kind == .string else { continue }
                guard isASCII, tables.patterns[index].matches(utf8: value) else { return nil }
            case .minimum(let bound, let isExclusive):
                guard kind == .number else { continue }
                if number == nil { number = SmallDecimal(bytes: value) }
                guard let number, let order = SmallDecimal.compare(number, bound), isExclusive ? order > 0 : order >= 0
                else { return nil }
            case .maximum(let bound, let isExclusive):
                guard kind == .number else { continue }
                if number == nil { number = SmallDecimal(bytes: value) }
                guard let number, let order = SmallDecimal.compare(number, bound), isExclusive ? order < 0 : order <= 0
                else { return nil }
            case .multipleOf(let step):
                guard kind == .number else { continue }
                if number == nil { number = SmallDecimal(bytes: value) }
                guard let number, SmallDecimal.isMultiple(number, of: step) == true else { return nil }
            case .numberNeedsValue:
                guard kind == .number else { continue }
                return nil
            case .needsValue:
                return nil
            }
        }
        return true
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
        var shape = SchemaByteShapes.Shape()
        if let node {
            guard frames < SchemaEvaluation.maximumDepth else { return false }
            shape = tables.shapes[node]
            switch shape.object {
            case .members: break
            case .whole: return whole(node, frames: frames, depth: depth)
            case .refused: return false
            }
        }
        let inner = frames + 1
        let bytes = parser.bytes
        parser.index += 1
        let base = keys.count
        defer { keys.removeLast(keys.count - base) }
        // The keys `properties` names, as bits by position: a bit seen twice is a duplicate key.
        var seen: UInt64 = 0
        parser.skipWhitespace()
        if parser.current == UInt8(ascii: "}") {
            parser.index += 1
        } else {
            while true {
                parser.skipWhitespace()
                guard parser.current == UInt8(ascii: "\"") else { return false }
                let start = parser.index + 1
                var end = start
                // Plain ASCII keys only: anything else is compared as the tree parser compares it, the long way.
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    let byte = bytes[end]
                    guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return false }
                    end += 1
                }
                guard end < bytes.count else { return false }
                parser.index = end + 1
                let key = start..<end
                let word = Self.word(bytes, key)
                var child: Int?
                var named = -1
                if shape.hasProperties {
                    for position in shape.properties {
                        let name = tables.names[position]
                        if name.word == word, name.count == key.count,
                            name.count <= 8 || same(name, UnsafeBufferPointer(rebasing: bytes[key]))
                        {
                            named = position
                            break
                        }
                    }
                }
                if named >= 0 {
                    let bit: UInt64 = 1 &<< UInt64(named &- shape.properties.lowerBound)
                    guard seen & bit == 0 else { return false }
                    seen |= bit
                    let name = tables.names[named]
                    if let direction, direction == .request ? name.isReadOnly : name.isWriteOnly { return false }
                    child = name.node
                } else {
                    for index in base..<keys.count where Self.equal(bytes, keys[index], key) { return false }
                    keys.append(key)
                    if shape.hasProperties, let additional = shape.additional {
                        if shape.isAdditionalFalse { return false }
                        child = additional
                    }
                }
                parser.skipWhitespace()
                guard parser.current == UInt8(ascii: ":") else { return false }
                parser.index += 1
                guard value(child, frames: inner, depth: depth + 1) else { return false }
                parser.skipWhitespace()
                if parser.current == UInt8(ascii: ",") {
                    parser.index += 1
                } else if parser.current == UInt8(ascii: "}") {
                    parser.index += 1
                    break
                } else {
                    return false
                }
            }
        }
        let count = keys.count - base + seen.nonzeroBitCount
        guard count >= shape.minProperties, count <= shape.maxProperties else { return false }
        guard seen & shape.requiredProperties == shape.requiredProperties else { return false }
        for position in shape.required {
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
        var shape = SchemaByteShapes.Shape()
        if let node {
            guard frames < SchemaEvaluation.maximumDepth else { return false }
            shape = tables.shapes[node]
            switch shape.array {
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
                    node == nil || !shape.hasItems
                    ? nil
                    : count < shape.prefix.count ? tables.prefixItems[shape.prefix.lowerBound + count] : shape.rest
                guard value(child, frames: inner, depth: depth + 1) else { return false }
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
        return count >= shape.minItems && count <= shape.maxItems
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
