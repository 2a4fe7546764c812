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
    private var parser: JSONBodyParser.Parser
    private var evaluation: SchemaEvaluation
    /// The keys of the objects being read, innermost last, as ranges of the bytes: for duplicates and `required`.
    private var keys: [Range<Int>] = []

    init(nodes: [SchemaNode], bytes: UnsafeBufferPointer<UInt8>, direction: SchemaDirection?) {
        self.nodes = nodes
        parser = JSONBodyParser.Parser(bytes: bytes)
        evaluation = SchemaEvaluation(nodes: nodes, direction: direction)
        keys.reserveCapacity(16)
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
            if let constant = nodes[current].constant {
                guard constant else { return false }
                node = nil
                break
            }
            guard frames < SchemaEvaluation.maximumDepth else { return false }
            let checks = nodes[current].checks
            guard checks.count == 1, case .reference(let target) = checks[0] else { break }
            frames += 1
            node = target
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
            guard parser.word("true") else { return nil }
            kind = .boolean
        case UInt8(ascii: "f"):
            guard parser.word("false") else { return nil }
            kind = .boolean
        case UInt8(ascii: "n"):
            guard parser.word("null") else { return nil }
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
        for check in nodes[node].checks {
            switch check {
            case .type(let types, let isNullable, _):
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
            case .enumeration(let values):
                guard kind == .string else { return nil }
                let isListed = values.contains { listed in
                    guard case .string(let name) = listed else { return false }
                    return name.utf8.elementsEqual(value)
                }
                guard isListed else { return nil }
            case .minLength(let limit):
                guard kind == .string else { continue }
                guard isASCII, value.count >= limit else { return nil }
            case .maxLength(let limit):
                guard kind == .string else { continue }
                guard isASCII, value.count <= limit else { return nil }
            case .pattern(let pattern):
                guard kind == .string else { continue }
                guard isASCII, pattern.matches(utf8: value) else { return nil }
            case .minimum(let bound, let isExclusive):
                guard kind == .number else { continue }
                guard let order = Self.compare(value, bound), isExclusive ? order > 0 : order >= 0 else { return nil }
            case .maximum(let bound, let isExclusive):
                guard kind == .number else { continue }
                guard let order = Self.compare(value, bound), isExclusive ? order < 0 : order <= 0 else { return nil }
            case .multipleOf(let step):
                guard kind == .number else { continue }
                guard let small = step.small, let number = SmallDecimal(bytes: value),
                    SmallDecimal.isMultiple(number, of: small) == true
                else { return nil }
            // Keywords that let a scalar through.
            case .minItems, .maxItems, .uniqueItems, .items, .contains, .minProperties, .maxProperties, .required,
                .dependentRequired, .properties, .propertyNames:
                continue
            default:
                return nil
            }
        }
        return true
    }

    /// The number against a bound without an allocation: -1, 0 or 1; nil when it needs more than 64 bits.
    private static func compare(_ text: UnsafeBufferPointer<UInt8>, _ bound: DecimalNumber) -> Int? {
        guard let small = bound.small, let value = SmallDecimal(bytes: text) else { return nil }
        return SmallDecimal.compare(value, small)
    }

    /// The value read as a tree and checked by the evaluation: scalars, and containers whose keywords need it.
    private mutating func whole(_ node: Int?, frames: Int, depth: Int) -> Bool {
        guard let instance = parser.value(depth: depth) else { return false }
        guard let node else { return true }
        evaluation.depth = frames
        return evaluation.check(node, instance, isCollecting: false)
    }

    private mutating func object(_ node: Int?, frames: Int, depth: Int) -> Bool {
        var properties: SchemaProperties?
        var required: Int?
        var minimum = 0
        var maximum = Int.max
        if let node {
            guard frames < SchemaEvaluation.maximumDepth else { return false }
            let checks = nodes[node].checks
            for position in checks.indices {
                switch checks[position] {
                case .type(let types, _, _):
                    guard types.contains(.object) else { return false }
                case .minProperties(let limit): minimum = limit
                case .maxProperties(let limit): maximum = limit
                case .required: required = position
                case .properties(let found):
                    guard properties == nil, found.patterns.isEmpty else {
                        return whole(node, frames: frames, depth: depth)
                    }
                    properties = found
                // Keywords that let an object through.
                case .minLength, .maxLength, .pattern, .minimum, .maximum, .multipleOf, .minItems, .maxItems,
                    .uniqueItems, .items, .contains:
                    break
                default:
                    return whole(node, frames: frames, depth: depth)
                }
            }
        }
        let inner = frames + 1
        let bytes = parser.bytes
        parser.index += 1
        let base = keys.count
        defer { keys.removeSubrange(base...) }
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
                for other in keys[base...] where Self.equal(bytes, other, key) { return false }
                keys.append(key)
                parser.skipWhitespace()
                guard parser.current == UInt8(ascii: ":") else { return false }
                parser.index += 1
                var child: Int?
                if let properties {
                    let named: Int?
                    if let names = properties.asciiNames {
                        named = names.first { $0.name.count == key.count && $0.name.elementsEqual(bytes[key]) }?.node
                    } else {
                        named =
                            properties.named[String(decoding: UnsafeBufferPointer(rebasing: bytes[key]), as: UTF8.self)]
                    }
                    if let named {
                        if evaluation.isExcludedByDirection(named) { return false }
                        child = named
                    } else if let additional = properties.additional {
                        if nodes[additional].constant == false { return false }
                        child = additional
                    }
                }
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
        let count = keys.count - base
        guard count >= minimum, count <= maximum else { return false }
        if let node, let required, case .required(let names) = nodes[node].checks[required] {
            for (name, _) in names {
                let utf8 = name.utf8
                guard keys[base...].contains(where: { $0.count == utf8.count && bytes[$0].elementsEqual(utf8) }) else {
                    return false
                }
            }
        }
        return true
    }

    private mutating func array(_ node: Int?, frames: Int, depth: Int) -> Bool {
        var prefix: [Int] = []
        var rest: Int?
        var minimum = 0
        var maximum = Int.max
        if let node {
            guard frames < SchemaEvaluation.maximumDepth else { return false }
            let checks = nodes[node].checks
            var hasItems = false
            for check in checks {
                switch check {
                case .type(let types, _, _):
                    guard types.contains(.array) else { return false }
                case .minItems(let limit): minimum = limit
                case .maxItems(let limit): maximum = limit
                case .items(let first, let after):
                    guard !hasItems else { return whole(node, frames: frames, depth: depth) }
                    hasItems = true
                    prefix = first
                    rest = after
                // Keywords that let an array through.
                case .minLength, .maxLength, .pattern, .minimum, .maximum, .multipleOf, .minProperties,
                    .maxProperties, .required, .dependentRequired, .properties, .propertyNames:
                    break
                default:
                    return whole(node, frames: frames, depth: depth)
                }
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
                let child: Int? = node == nil ? nil : count < prefix.count ? prefix[count] : rest
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
        return count >= minimum && count <= maximum
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
            var check = SchemaByteCheck(nodes: program.nodes, bytes: buffer, direction: direction)
            return check.isSettledValid(root)
        }
    }
}
