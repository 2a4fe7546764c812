/// One instance checked against compiled nodes: walks both, keeps the instance path, and gathers violations.
struct SchemaEvaluation {
    let nodes: [SchemaNode]
    let direction: SchemaDirection?
    private(set) var violations: [SchemaViolation] = []
    /// The instance path, as tokens; made into a pointer only when a violation is reported.
    private var path: [String] = []
    var depth = 0
    /// Schemas that refer to themselves without going deeper into the instance would recurse forever; the bound
    /// also keeps a hostile, deeply nested instance against a recursive schema well within a thread's stack.
    static let maximumDepth = 256

    init(nodes: [SchemaNode], direction: SchemaDirection?) {
        self.nodes = nodes
        self.direction = direction
    }

    private mutating func report(_ location: String, _ message: String) {
        violations.append(
            SchemaViolation(
                instancePointer: path.map { "/" + JSONPointer.escape($0) }.joined(), schemaPointer: location,
                message: message))
    }

    /// Whether the instance is valid against the node; reports every violation when collecting, and stops at the
    /// first one (reporting nothing) when not.
    mutating func check(_ index: Int, _ instance: JSONValue, isCollecting: Bool) -> Bool {
        if let constant = nodes[index].constant {
            if !constant && isCollecting { report(nodes[index].location, "no value is allowed here") }
            return constant
        }
        guard depth < Self.maximumDepth else {
            if isCollecting { report(nodes[index].location, "schema references nest deeper than \(Self.maximumDepth) levels") }
            return false
        }
        depth += 1
        defer { depth -= 1 }
        var isValid = true
        let checks = nodes[index].checks
        for position in checks.indices {
            if !apply(checks[position], at: Location(node: index, check: position), to: instance, isCollecting: isCollecting) {
                isValid = false
                if !isCollecting { return false }
            }
        }
        return isValid
    }

    /// Where a check is, looked up only when it reports.
    struct Location {
        var node: Int
        var check: Int
    }

    private mutating func descend(_ token: String, _ index: Int, _ instance: JSONValue, isCollecting: Bool) -> Bool {
        path.append(token)
        defer { path.removeLast() }
        return check(index, instance, isCollecting: isCollecting)
    }

    /// The flags of a node, following nodes that are only a reference.
    private func flags(_ index: Int) -> (isReadOnly: Bool, isWriteOnly: Bool) {
        var index = index
        var hops = 0
        while true {
            let node = nodes[index]
            if node.isReadOnly || node.isWriteOnly { return (node.isReadOnly, node.isWriteOnly) }
            guard let next = node.referenceOnly, hops < 16 else { return (false, false) }
            index = next
            hops += 1
        }
    }

    func isExcludedByDirection(_ index: Int) -> Bool {
        guard let direction else { return false }
        let flags = flags(index)
        return direction == .request ? flags.isReadOnly : flags.isWriteOnly
    }

    /// Applies one keyword's check; a switch over every kind of check, so that evaluation is one dispatch per rule.
    private mutating func apply(_ rule: SchemaRule.Check, at place: Location, to instance: JSONValue, isCollecting: Bool) -> Bool {
        func fail(_ message: @autoclosure () -> String) -> Bool {
            if isCollecting { report(nodes[place.node].checkLocations[place.check], message()) }
            return false
        }
        switch rule {
        case .type(let types, let isNullable, let isIntegerWritten):
            if Self.matches(instance, types, isIntegerWritten: isIntegerWritten) || (isNullable && instance == .null) {
                return true
            }
            return fail("must be \(types.description), not \(Self.kind(of: instance))")
        case .enumeration(let values):
            if values.contains(where: { SchemaEquality.isEqual($0, instance) }) { return true }
            return fail("must be one of \(values.prefix(10).map(\.encoded).joined(separator: ", "))\(values.count > 10 ? ", ..." : "")")
        case .constant(let value):
            return SchemaEquality.isEqual(value, instance) ? true : fail("must be \(value.encoded)")
        case .minLength(let limit):
            guard case .string(let text) = instance else { return true }
            return text.unicodeScalars.count >= limit ? true : fail("must be at least \(limit) characters long")
        case .maxLength(let limit):
            guard case .string(let text) = instance else { return true }
            return text.unicodeScalars.count <= limit ? true : fail("must be at most \(limit) characters long")
        case .pattern(let pattern):
            guard case .string(let text) = instance else { return true }
            return pattern.matches(text) ? true : fail("must match the pattern \(pattern.source)")
        case .format(let format):
            return format.accepts(instance) ? true : fail("is not a valid \(format.rawValue)")
        case .minimum(let bound, let isExclusive):
            guard case .number(_, let text) = instance, let order = Self.compare(text, bound) else { return true }
            if isExclusive { return order > 0 ? true : fail("must be greater than \(bound.text)") }
            return order < 0 ? fail("must be at least \(bound.text)") : true
        case .maximum(let bound, let isExclusive):
            guard case .number(_, let text) = instance, let order = Self.compare(text, bound) else { return true }
            if isExclusive { return order < 0 ? true : fail("must be less than \(bound.text)") }
            return order > 0 ? fail("must be at most \(bound.text)") : true
        case .multipleOf(let step):
            guard case .number(_, let text) = instance else { return true }
            if let small = step.small, let value = SmallDecimal(text), let isMultiple = SmallDecimal.isMultiple(value, of: small) {
                return isMultiple ? true : fail("must be a multiple of \(step.text)")
            }
            guard let number = DecimalNumber(text) else { return true }
            return number.isMultiple(of: step) ? true : fail("must be a multiple of \(step.text)")
        case .minItems(let limit):
            guard case .array(let items) = instance else { return true }
            return items.count >= limit ? true : fail("must have at least \(limit) items")
        case .maxItems(let limit):
            guard case .array(let items) = instance else { return true }
            return items.count <= limit ? true : fail("must have at most \(limit) items")
        case .uniqueItems:
            guard case .array(let items) = instance, items.count > 1 else { return true }
            for first in items.indices {
                for second in items.indices where second > first && SchemaEquality.isEqual(items[first], items[second]) {
                    return fail("items \(first) and \(second) are equal; items must be unique")
                }
            }
            return true
        case .items(let prefix, let rest):
            guard case .array(let items) = instance else { return true }
            var isValid = true
            for (index, item) in items.enumerated() {
                let node: Int
                if index < prefix.count {
                    node = prefix[index]
                } else if let rest {
                    node = rest
                } else {
                    break
                }
                if !descend(String(index), node, item, isCollecting: isCollecting) {
                    isValid = false
                    if !isCollecting { return false }
                }
            }
            return isValid
        case .contains(let node, let minimum, let maximum):
            guard case .array(let items) = instance else { return true }
            var matches = 0
            for (index, item) in items.enumerated() where descend(String(index), node, item, isCollecting: false) {
                matches += 1
            }
            if matches < minimum { return fail("must contain at least \(minimum) matching item\(minimum == 1 ? "" : "s")") }
            if let maximum, matches > maximum { return fail("must contain at most \(maximum) matching items") }
            return true
        case .minProperties(let limit):
            guard case .object(let members) = instance else { return true }
            return members.count >= limit ? true : fail("must have at least \(limit) properties")
        case .maxProperties(let limit):
            guard case .object(let members) = instance else { return true }
            return members.count <= limit ? true : fail("must have at most \(limit) properties")
        case .required(let names):
            guard case .object(let members) = instance else { return true }
            var isValid = true
            for (name, node) in names where !members.contains(where: { $0.0 == name }) {
                if let node, isExcludedByDirection(node) { continue }
                isValid = false
                guard isCollecting else { return false }
                report(nodes[place.node].checkLocations[place.check], "is missing the required property '\(name)'")
            }
            return isValid
        case .dependentRequired(let dependencies):
            guard case .object(let members) = instance else { return true }
            for (name, required) in dependencies where members.contains(where: { $0.0 == name }) {
                for other in required where !members.contains(where: { $0.0 == other }) {
                    return fail("has '\(name)', so it must have '\(other)'")
                }
            }
            return true
        case .properties(let properties):
            return checkProperties(properties, instance, isCollecting: isCollecting)
        case .propertyNames(let node):
            guard case .object(let members) = instance else { return true }
            for (name, _) in members where !check(node, .string(name), isCollecting: false) {
                return fail("has a property name '\(name)' that the propertyNames schema rejects")
            }
            return true
        case .allOf(let branches):
            var isValid = true
            for branch in branches where !check(branch, instance, isCollecting: isCollecting) {
                isValid = false
                if !isCollecting { return false }
            }
            return isValid
        case .anyOf(let branches):
            for branch in branches where check(branch, instance, isCollecting: false) { return true }
            return fail("matches none of the \(branches.count) schemas of anyOf")
        case .oneOf(let branches):
            var matched: [Int] = []
            for (index, branch) in branches.enumerated() where check(branch, instance, isCollecting: false) {
                matched.append(index)
                if matched.count > 1 { break }
            }
            if matched.count == 1 { return true }
            if matched.isEmpty { return fail("matches none of the \(branches.count) schemas of oneOf") }
            return fail("matches more than one schema of oneOf (\(matched[0]) and \(matched[1])); it must match exactly one")
        case .not(let node):
            return check(node, instance, isCollecting: false) ? fail("must not match the schema of not") : true
        case .conditional(let condition, let then, let otherwise):
            if check(condition, instance, isCollecting: false) {
                guard let then else { return true }
                return check(then, instance, isCollecting: isCollecting)
            }
            guard let otherwise else { return true }
            return check(otherwise, instance, isCollecting: isCollecting)
        case .reference(let node):
            return check(node, instance, isCollecting: isCollecting)
        case .discriminator(let property, let mapping, let branches, let isOneOf):
            guard case .object = instance else {
                return apply(isOneOf ? .oneOf(branches) : .anyOf(branches), at: place, to: instance, isCollecting: isCollecting)
            }
            guard case .string(let value)? = instance[property] else {
                return fail("is missing the discriminator property '\(property)' (a string)")
            }
            guard let target = mapping.first(where: { $0.value == value }) else {
                return fail("has '\(property)' = '\(value)', which is none of \(mapping.map { "'\($0.value)'" }.joined(separator: ", "))")
            }
            return check(target.node, instance, isCollecting: isCollecting)
        }
    }

    private mutating func checkProperties(_ properties: SchemaProperties, _ instance: JSONValue, isCollecting: Bool) -> Bool {
        guard case .object(let members) = instance else { return true }
        var isValid = true
        for (name, value) in members {
            var isDescribed = false
            if let node = properties.named[name] {
                isDescribed = true
                if let direction, isExcludedByDirection(node) {
                    isValid = false
                    guard isCollecting else { return false }
                    path.append(name)
                    let kind = direction == .request ? "read-only: it belongs in responses" : "write-only: it belongs in requests"
                    report(nodes[node].location, "is \(kind), not in a \(direction == .request ? "request" : "response")")
                    path.removeLast()
                    continue
                }
                if !descend(name, node, value, isCollecting: isCollecting) {
                    isValid = false
                    if !isCollecting { return false }
                }
            }
            for entry in properties.patterns where entry.pattern.matches(name) {
                isDescribed = true
                if !descend(name, entry.node, value, isCollecting: isCollecting) {
                    isValid = false
                    if !isCollecting { return false }
                }
            }
            guard !isDescribed, let additional = properties.additional else { continue }
            if nodes[additional].constant == false {
                isValid = false
                guard isCollecting else { return false }
                report(properties.additionalLocation, "has the property '\(name)', which the schema does not allow")
            } else if !descend(name, additional, value, isCollecting: isCollecting) {
                isValid = false
                if !isCollecting { return false }
            }
        }
        return isValid
    }

    /// The instance's number against a bound: -1, 0 or 1; nil for text that is not a number.
    static func compare(_ text: String, _ bound: DecimalNumber) -> Int? {
        if let small = bound.small, let value = SmallDecimal(text), let order = SmallDecimal.compare(value, small) {
            return order
        }
        guard let number = DecimalNumber(text) else { return nil }
        return number < bound ? -1 : bound < number ? 1 : 0
    }

    static func matches(_ instance: JSONValue, _ types: SchemaTypeSet, isIntegerWritten: Bool) -> Bool {
        switch instance {
        case .null: return types.contains(.null)
        case .bool: return types.contains(.boolean)
        case .string: return types.contains(.string)
        case .array: return types.contains(.array)
        case .object: return types.contains(.object)
        case .number(_, let text):
            if types.contains(.number) { return true }
            guard types.contains(.integer) else { return false }
            let isWrittenAsInteger = !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") })
            if isIntegerWritten || isWrittenAsInteger { return isWrittenAsInteger }
            return DecimalNumber(text)?.isInteger ?? false
        }
    }

    static func kind(of instance: JSONValue) -> String {
        switch instance {
        case .null: "null"
        case .bool: "a boolean"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        case .number(_, let text): text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? "a number" : "an integer"
        }
    }
}
