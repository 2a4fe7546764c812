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

    /// The keywords a string, number, boolean or null is checked against on its bytes, gathered in one value: the
    /// check reads the fields that apply to the scalar it met instead of walking a list of tests.
    struct ScalarPlan: Sendable {
        /// What `type` allows (every type without one); `null` also when OpenAPI 3.0's `nullable` says so.
        var types = SchemaTypeSet(rawValue: 0x7F)
        /// A keyword needs any scalar's value (`format`, `const`, `oneOf`, a keyword met twice, ...): the caller
        /// reads it as a `JSONValue`.
        var needsValue = false
        /// A bound or step too large for a `SmallDecimal`: a number needs its value; other scalars pass.
        var numberNeedsValue = false
        /// `enum`'s listed strings, as a range of `enumerations`; any other scalar needs its value.
        var enumeration: Range<Int>?
        var minLength = 0
        var maxLength = Int.max
        /// Indexes of `patterns`.
        var patterns = 0..<0
        var minimum: SmallDecimal?
        var exclusiveMinimum: SmallDecimal?
        var maximum: SmallDecimal?
        var exclusiveMaximum: SmallDecimal?
        var multipleOf: SmallDecimal?
        /// Whether a number is compared with a bound or a step (and so needs its significand read).
        var hasNumberTests = false
        /// Whether a string's length or text is tested.
        var hasStringTests = false

        /// Takes a bound: one too large for a `SmallDecimal` leaves numbers to the evaluation, a second of the same
        /// kind every scalar.
        mutating func set(_ bound: DecimalNumber, at field: WritableKeyPath<ScalarPlan, SmallDecimal?>) {
            guard let small = bound.small else {
                numberNeedsValue = true
                return
            }
            if self[keyPath: field] != nil { needsValue = true }
            self[keyPath: field] = small
        }
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
        /// The bits of a key's first eight bytes (read as one word) that `word` is compared with: the name's own
        /// bytes. Zero for a name a key cannot be written as plainly, between quotes (not printable ASCII, or a
        /// `"` or `\`, which need an escape the check leaves to the tree): its `word` is then never met.
        var mask: UInt64
    }

    struct Shape: Sendable {
        var kind = Kind.keywords
        /// The node a reference-only node stands for.
        var target = 0
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

    /// By node, and one more for a value no schema applies to (`unconstrained`).
    let shapes: UnsafeBufferPointer<Shape>
    /// By node.
    let scalars: UnsafeBufferPointer<ScalarPlan>
    let unconstrained: Int
    let names: UnsafeBufferPointer<Name>
    let bytes: UnsafeBufferPointer<UInt8>
    let enumerations: UnsafeBufferPointer<Name>
    let prefixItems: UnsafeBufferPointer<Int>
    let patterns: [Pattern]

    init(nodes: [SchemaNode]) {
        var shapes = ContiguousArray<Shape>()
        var scalars = ContiguousArray<ScalarPlan>()
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
            let count = bytes.count - start
            let isPlain = text.utf8.allSatisfy {
                $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
            }
            let mask: UInt64 = count >= 8 ? .max : (1 << UInt64(count * 8)) - 1
            return Name(
                start: start, count: count, word: isPlain ? Self.word(text.utf8.prefix(8)) : .max, node: node,
                isReadOnly: requests.isExcludedByDirection(node), isWriteOnly: responses.isExcludedByDirection(node),
                mask: isPlain ? mask : 0)
        }
        for node in nodes {
            var shape = Shape()
            if let constant = node.constant {
                shape.kind = constant ? .anything : .nothing
                shapes.append(shape)
                scalars.append(ScalarPlan())
                continue
            }
            if node.checks.count == 1, case .reference(let target) = node.checks[0] {
                shape.kind = .reference
                shape.target = target
            }
            // Scalars.
            var plan = ScalarPlan()
            var hasType = false
            var hasMultipleOf = false
            for check in node.checks {
                switch check {
                case .type(let types, let isNullable, _):
                    // Two `type`s are not one set (a number written as an integer may pass both `number` and
                    // `integer`): left to the evaluation.
                    if hasType { plan.needsValue = true }
                    hasType = true
                    plan.types = isNullable ? types.union(.null) : types
                case .enumeration(let values):
                    if plan.enumeration != nil { plan.needsValue = true }
                    let first = enumerations.count
                    for case .string(let listed) in values { enumerations.append(name(listed, node: 0)) }
                    plan.enumeration = first..<enumerations.count
                case .minLength(let limit):
                    plan.minLength = max(plan.minLength, limit)
                    plan.hasStringTests = true
                case .maxLength(let limit):
                    plan.maxLength = min(plan.maxLength, limit)
                    plan.hasStringTests = true
                case .pattern(let pattern):
                    // A node's patterns are appended one after the other: they stay one range.
                    if plan.patterns.isEmpty { plan.patterns = patterns.count..<patterns.count }
                    patterns.append(pattern)
                    plan.patterns = plan.patterns.lowerBound..<patterns.count
                    plan.hasStringTests = true
                case .minimum(let bound, let isExclusive):
                    plan.set(bound, at: isExclusive ? \.exclusiveMinimum : \.minimum)
                case .maximum(let bound, let isExclusive):
                    plan.set(bound, at: isExclusive ? \.exclusiveMaximum : \.maximum)
                case .multipleOf(let step):
                    if hasMultipleOf { plan.needsValue = true }
                    hasMultipleOf = true
                    if let small = step.small { plan.multipleOf = small } else { plan.numberNeedsValue = true }
                // Keywords that let a scalar through.
                case .minItems, .maxItems, .uniqueItems, .items, .contains, .minProperties, .maxProperties, .required,
                    .dependentRequired, .properties, .propertyNames:
                    continue
                default:
                    plan.needsValue = true
                }
            }
            plan.hasNumberTests =
                plan.minimum != nil || plan.exclusiveMinimum != nil || plan.maximum != nil
                || plan.exclusiveMaximum != nil || plan.multipleOf != nil
            scalars.append(plan)
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
        unconstrained = shapes.count
        shapes.append(Shape())
        self.shapes = Self.buffer(shapes)
        self.scalars = Self.buffer(scalars)
        self.names = Self.buffer(names)
        self.bytes = Self.buffer(bytes)
        self.enumerations = Self.buffer(enumerations)
        self.prefixItems = Self.buffer(prefixItems)
        self.patterns = patterns
    }

    deinit {
        shapes.deallocate()
        scalars.deallocate()
        names.deallocate()
        bytes.deallocate()
        enumerations.deallocate()
        prefixItems.deallocate()
    }

    /// The shape of a node, or of a value no schema applies to; read in place, not copied.
    @inline(__always)
    func shape(_ node: Int?) -> UnsafePointer<Shape> {
        shapes.baseAddress.unsafelyUnwrapped + (node ?? unconstrained)
    }

    /// The scalar keywords of a node, read in place.
    @inline(__always)
    func scalar(_ node: Int) -> UnsafePointer<ScalarPlan> {
        scalars.baseAddress.unsafelyUnwrapped + node
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
