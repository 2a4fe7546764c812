/// What `SchemaByteCheck` needs of each node, worked out once when the program is built: the keywords it can settle
/// on a body's bytes as plain values (limits, bounds as `SmallDecimal`s, property and required names as UTF-8
/// ranges of one pool), so that reading a body copies no `SchemaRule.Check` (whose payloads are counted
/// references) and compares no `String`.
///
/// The tables are buffers of their own, allocated once and never written after `init`: reading one costs a load,
/// where an array held by a class is retained and released around every read. (Hence `@unchecked Sendable`: the
/// buffers are immutable for the object's whole life.)
final class SchemaByteShapes: @unchecked Sendable {
    /// How a node is met before its keywords: the `true` or `false` schema, a node that is only a `$ref`, or one
    /// with keywords.
    enum Kind: UInt8, Sendable {
        case anything
        case nothing
        case reference
        case keywords
    }

    /// What a container's keywords let the byte check do: read it member by member, read it as a tree for the
    /// evaluation (a keyword needs the whole value), or refuse it (its `type` does not allow it; the caller then
    /// reads the body the long way, which says why).
    enum Reading: UInt8, Sendable {
        case members
        case whole
        case refused
    }

    /// One keyword a string, number, boolean or null is checked against on its bytes.
    enum ScalarTest: Sendable {
        case type(SchemaTypeSet, isNullable: Bool)
        /// The listed strings, as a range of `enumerations`.
        case enumeration(Range<Int>)
        case minLength(Int)
        case maxLength(Int)
        /// An index of `patterns`.
        case pattern(Int)
        case minimum(SmallDecimal, isExclusive: Bool)
        case maximum(SmallDecimal, isExclusive: Bool)
        case multipleOf(SmallDecimal)
        /// A bound or step too large for a `SmallDecimal`: a number needs the value itself; others pass.
        case numberNeedsValue
        /// A keyword that needs any scalar's value (`format`, `const`, `oneOf`, ...).
        case needsValue
    }

    /// A name in `bytes`: a property's (with its schema and flags) or a required one.
    struct Name: Sendable {
        var start: Int
        var count: Int
        /// The first eight bytes (fewer for a shorter name, the rest zero), little-endian: most names are told apart,
        /// or found equal, by this and the count alone.
        var word: UInt64
        var node: Int
        var isReadOnly: Bool
        var isWriteOnly: Bool
    }

    struct Shape: Sendable {
        var kind = Kind.keywords
        /// The node a reference-only node stands for.
        var target = 0
        var scalarTests = 0..<0
        var object = Reading.members
        var minProperties = 0
        var maxProperties = Int.max
        /// Whether `properties` applies: a member not named is then checked against `additional`, if any.
        var hasProperties = false
        var properties = 0..<0
        var additional: Int?
        var isAdditionalFalse = false
        /// The required names that are properties too, as bits of `properties` (by position); `required` holds
        /// the others.
        var requiredProperties: UInt64 = 0
        var required = 0..<0
        var array = Reading.members
        var minItems = 0
        var maxItems = Int.max
        /// Whether any `items` applies; `prefix` is a range of `prefixItems`.
        var hasItems = false
        var prefix = 0..<0
        var rest: Int?
    }

    let shapes: UnsafeBufferPointer<Shape>
    let scalarTests: UnsafeBufferPointer<ScalarTest>
    let names: UnsafeBufferPointer<Name>
    let bytes: UnsafeBufferPointer<UInt8>
    let enumerations: UnsafeBufferPointer<Name>
    let prefixItems: UnsafeBufferPointer<Int>
    let patterns: [Pattern]

    init(nodes: [SchemaNode]) {
        var shapes = ContiguousArray<Shape>()
        var scalarTests = ContiguousArray<ScalarTest>()
        var names = ContiguousArray<Name>()
        var bytes = ContiguousArray<UInt8>()
        var enumerations = ContiguousArray<Name>()
        var prefixItems = ContiguousArray<Int>()
        var patterns: [Pattern] = []
        let requests = SchemaEvaluation(nodes: nodes, direction: .request)
        let responses = SchemaEvaluation(nodes: nodes, direction: .response)
        func name(_ text: String, node: Int) -> Name {
            let start = bytes.count
            bytes.append(contentsOf: text.utf8)
            return Name(
                start: start, count: bytes.count - start, word: Self.word(text.utf8.prefix(8)), node: node,
                isReadOnly: requests.isExcludedByDirection(node), isWriteOnly: responses.isExcludedByDirection(node))
        }
        for node in nodes {
            var shape = Shape()
            if let constant = node.constant {
                shape.kind = constant ? .anything : .nothing
                shapes.append(shape)
                continue
            }
            if node.checks.count == 1, case .reference(let target) = node.checks[0] {
                shape.kind = .reference
                shape.target = target
            }
            // Scalars.
            let firstTest = scalarTests.count
            for check in node.checks {
                switch check {
                case .type(let types, let isNullable, _):
                    scalarTests.append(.type(types, isNullable: isNullable))
                case .enumeration(let values):
                    let first = enumerations.count
                    for case .string(let listed) in values { enumerations.append(name(listed, node: 0)) }
                    scalarTests.append(.enumeration(first..<enumerations.count))
                case .minLength(let limit): scalarTests.append(.minLength(limit))
                case .maxLength(let limit): scalarTests.append(.maxLength(limit))
                case .pattern(let pattern):
                    patterns.append(pattern)
                    scalarTests.append(.pattern(patterns.count - 1))
                case .minimum(let bound, let isExclusive):
                    scalarTests.append(bound.small.map { .minimum($0, isExclusive: isExclusive) } ?? .numberNeedsValue)
                case .maximum(let bound, let isExclusive):
                    scalarTests.append(bound.small.map { .maximum($0, isExclusive: isExclusive) } ?? .numberNeedsValue)
                case .multipleOf(let step):
                    scalarTests.append(step.small.map { .multipleOf($0) } ?? .numberNeedsValue)
                // Keywords that let a scalar through.
                case .minItems, .maxItems, .uniqueItems, .items, .contains, .minProperties, .maxProperties, .required,
                    .dependentRequired, .properties, .propertyNames:
                    continue
                default:
                    scalarTests.append(.needsValue)
                }
            }
            shape.scalarTests = firstTest..<scalarTests.count
            // Objects.
            var requiredNames: [String] = []
            for check in node.checks where shape.object != .refused {
                switch check {
                case .type(let types, _, _):
                    if !types.contains(.object) { shape.object = .refused }
                case .minProperties(let limit): shape.minProperties = max(shape.minProperties, limit)
                case .maxProperties(let limit): shape.maxProperties = min(shape.maxProperties, limit)
                case .required(let required):
                    requiredNames += required.map { $0.name }
                case .properties(let found):
                    // Names compared on bytes only when every name is ASCII: Unicode equivalence is the
                    // dictionary's to judge, so anything else is read as a tree.
                    guard !shape.hasProperties, found.patterns.isEmpty, let ascii = found.asciiNames else {
                        shape.object = .whole
                        continue
                    }
                    shape.hasProperties = true
                    let first = names.count
                    for (text, child) in ascii {
                        names.append(name(String(decoding: text, as: UTF8.self), node: child))
                    }
                    shape.properties = first..<names.count
                    shape.additional = found.additional
                    shape.isAdditionalFalse = found.additional.map { nodes[$0].constant == false } ?? false
                // Keywords that let an object through.
                case .minLength, .maxLength, .pattern, .minimum, .maximum, .multipleOf, .minItems, .maxItems,
                    .uniqueItems, .items, .contains:
                    break
                default:
                    shape.object = .whole
                }
            }
            let firstRequired = names.count
            for text in requiredNames {
                let utf8 = Array(text.utf8)
                let property = shape.properties.first { position in
                    let named = names[position]
                    return bytes[named.start..<named.start + named.count].elementsEqual(utf8)
                }
                if let property, property - shape.properties.lowerBound < 64 {
                    shape.requiredProperties |= 1 << UInt64(property - shape.properties.lowerBound)
                } else {
                    names.append(name(text, node: 0))
                }
            }
            shape.required = firstRequired..<names.count
            // Arrays.
            for check in node.checks where shape.array != .refused {
                switch check {
                case .type(let types, _, _):
                    if !types.contains(.array) { shape.array = .refused }
                case .minItems(let limit): shape.minItems = max(shape.minItems, limit)
                case .maxItems(let limit): shape.maxItems = min(shape.maxItems, limit)
                case .items(let first, let after):
                    guard !shape.hasItems else {
                        shape.array = .whole
                        continue
                    }
                    shape.hasItems = true
                    let start = prefixItems.count
                    prefixItems.append(contentsOf: first)
                    shape.prefix = start..<prefixItems.count
                    shape.rest = after
                // Keywords that let an array through.
                case .minLength, .maxLength, .pattern, .minimum, .maximum, .multipleOf, .minProperties,
                    .maxProperties, .required, .dependentRequired, .properties, .propertyNames:
                    break
                default:
                    shape.array = .whole
                }
            }
            shapes.append(shape)
        }
        self.shapes = Self.buffer(shapes)
        self.scalarTests = Self.buffer(scalarTests)
        self.names = Self.buffer(names)
        self.bytes = Self.buffer(bytes)
        self.enumerations = Self.buffer(enumerations)
        self.prefixItems = Self.buffer(prefixItems)
        self.patterns = patterns
    }

    deinit {
        shapes.deallocate()
        scalarTests.deallocate()
        names.deallocate()
        bytes.deallocate()
        enumerations.deallocate()
        prefixItems.deallocate()
    }

    /// Up to eight bytes as a little-endian word, as `SchemaByteCheck` gathers a key's while reading it.
    static func word(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var word: UInt64 = 0
        for (offset, byte) in bytes.enumerated() where offset < 8 { word |= UInt64(byte) << UInt64(offset * 8) }
        return word
    }

    /// A buffer of its own holding the elements (all plain values: nothing to deinitialize).
    private static func buffer<Element>(_ elements: ContiguousArray<Element>) -> UnsafeBufferPointer<Element> {
        let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: max(elements.count, 1))
        _ = buffer.initialize(from: elements)
        return UnsafeBufferPointer(rebasing: buffer[..<elements.count])
    }
}
