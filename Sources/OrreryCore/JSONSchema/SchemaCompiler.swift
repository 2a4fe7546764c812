/// Turns schemas in a set of documents into `SchemaNode`s once: keywords become checks, `$ref`s become node
/// indices (across documents, cycles included), `$id` and `$anchor` name resources and places in them.
struct SchemaCompiler {
    let dialect: JSONSchemaDialect
    /// Documents by URI (no fragment).
    let documents: [String: JSONValue]
    /// Embedded resources (`$id`), by absolute URI: the document and the pointer to the resource's root.
    private var resources: [String: (document: String, tokens: [String])] = [:]
    /// `$anchor`s, by the resource's URI, `#` and the anchor's name.
    private var anchors: [String: (document: String, tokens: [String])] = [:]
    private(set) var nodes: [SchemaNode] = []
    private var indexByLocation: [String: Int] = [:]
    private var pending: [(index: Int, document: String, tokens: [String])] = []
    /// Keywords seen that no check implements, with where they were seen.
    private(set) var unsupported: [(keyword: String, location: String)] = []

    /// Keywords that only annotate (or that OpenAPI defines around the schema): nothing to check.
    static let annotations: Set<String> = [
        "$schema", "$comment", "$defs", "definitions", "title", "description", "default", "examples", "example",
        "deprecated", "externalDocs", "xml", "contentEncoding", "contentMediaType", "$vocabulary", "$id", "$anchor",
        "discriminator", "readOnly", "writeOnly", "nullable", "id",
    ]

    /// Keywords of JSON Schema that are not checked (reported, so a spec that relies on them is known).
    static let unsupportedKeywords: Set<String> = [
        "dependentSchemas", "dependencies", "unevaluatedItems", "unevaluatedProperties", "$dynamicRef",
        "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor", "contentSchema",
    ]

    init(dialect: JSONSchemaDialect, documents: [String: JSONValue]) {
        self.dialect = dialect
        self.documents = documents
        if dialect == .draft2020_12 {
            for (uri, document) in documents.sorted(by: { $0.key < $1.key }) {
                scan(document, document: uri, tokens: [], base: uri)
            }
        }
    }

    // MARK: identifiers

    /// Registers every `$id` and `$anchor` in a document. Every member is walked, not only the keywords that hold
    /// subschemas, so that identifiers inside an OpenAPI 3.1 document's `components` are found too; a schema is
    /// never an identifier's value, so walking `properties` maps or `enum` values adds nothing false in practice.
    private mutating func scan(_ value: JSONValue, document: String, tokens: [String], base: String) {
        switch value {
        case .object(let members):
            var base = base
            if case .string(let id)? = value["$id"] {
                base = SchemaURI.withoutFragment(SchemaURI.resolve(id, against: base))
                if resources[base] == nil { resources[base] = (document, tokens) }
            }
            if case .string(let anchor)? = value["$anchor"] {
                anchors[base + "#" + anchor] = (document, tokens)
            }
            for (key, child) in members where key != "enum" && key != "const" && key != "examples" && key != "example" {
                scan(child, document: document, tokens: tokens + [key], base: base)
            }
        case .array(let items):
            for (index, item) in items.enumerated() {
                scan(item, document: document, tokens: tokens + [String(index)], base: base)
            }
        default:
            break
        }
    }

    /// The base URI in force at a place in a document: the document's URI, changed by each `$id` on the way down.
    private func base(document: String, tokens: [String]) -> String {
        var base = document
        guard dialect == .draft2020_12, var current = documents[document] else { return base }
        if case .string(let id)? = current["$id"] { base = SchemaURI.withoutFragment(SchemaURI.resolve(id, against: base)) }
        for token in tokens {
            guard let next = JSONPointer.resolve([token], in: current) else { break }
            current = next
            if case .string(let id)? = current["$id"] {
                base = SchemaURI.withoutFragment(SchemaURI.resolve(id, against: base))
            }
        }
        return base
    }

    /// Where a reference leads: a document and the tokens of a pointer in it.
    private func target(of reference: String, base: String) -> (document: String, tokens: [String])? {
        let resolved = SchemaURI.resolve(reference, against: base)
        let resource = SchemaURI.withoutFragment(resolved)
        let fragment = SchemaURI.fragment(resolved) ?? ""
        let root: (document: String, tokens: [String])
        if let embedded = resources[resource] {
            root = embedded
        } else if documents[resource] != nil {
            root = (resource, [])
        } else {
            return nil
        }
        let place: (document: String, tokens: [String])?
        if fragment.isEmpty {
            place = root
        } else if let tokens = JSONPointer.tokens(fragment) {
            place = (root.document, root.tokens + tokens)
        } else {
            place = anchors[resource + "#" + fragment]
        }
        // A pointer to nothing is the reference's error, reported where the reference is.
        guard let place, let document = documents[place.document], JSONPointer.resolve(place.tokens, in: document) != nil
        else { return nil }
        return place
    }

    static func location(document: String, tokens: [String]) -> String {
        document + "#" + tokens.map { "/" + JSONPointer.escape($0) }.joined()
    }

    // MARK: compiling

    /// Compiles the schema at a URI (`spec.yaml#/components/schemas/Pet`) and everything it reaches; its node index.
    mutating func compile(_ uri: String) throws(SchemaCompileError) -> Int {
        guard let place = target(of: uri, base: SchemaURI.withoutFragment(uri)) else {
            throw SchemaCompileError(schemaPointer: uri, message: "no schema at this location")
        }
        let root = node(document: place.document, tokens: place.tokens)
        while let next = pending.popLast() {
            let compiled = try compileNode(document: next.document, tokens: next.tokens)
            nodes[next.index] = compiled
        }
        return root
    }

    /// The index of the node for a place, allocated (and queued for compiling) the first time it is asked for.
    private mutating func node(document: String, tokens: [String]) -> Int {
        let location = Self.location(document: document, tokens: tokens)
        if let index = indexByLocation[location] { return index }
        let index = nodes.count
        // A placeholder until the queue reaches it; references to it are already good.
        nodes.append(SchemaNode(location: location, constant: true))
        indexByLocation[location] = index
        pending.append((index, document, tokens))
        return index
    }

    private mutating func compileNode(document: String, tokens: [String]) throws(SchemaCompileError) -> SchemaNode {
        let location = Self.location(document: document, tokens: tokens)
        guard let root = documents[document], let value = JSONPointer.resolve(tokens, in: root) else {
            throw SchemaCompileError(schemaPointer: location, message: "no schema at this location")
        }
        var schema = Keywords(
            compiler: takeOut(), value: value, document: document, tokens: tokens, location: location,
            base: base(document: document, tokens: tokens))
        defer { self = schema.compiler }
        return try schema.compile()
    }

    /// The compiler's state, moved out so that the copy a `Keywords` holds is the only one: its arrays and
    /// dictionaries grow in place instead of being copied for every node.
    private mutating func takeOut() -> SchemaCompiler {
        let state = self
        nodes = []
        indexByLocation = [:]
        pending = []
        unsupported = []
        return state
    }

    /// One schema object's keywords being compiled; holds the compiler so that subschemas get their nodes.
    private struct Keywords {
        var compiler: SchemaCompiler
        let value: JSONValue
        let document: String
        let tokens: [String]
        let location: String
        let base: String

        init(compiler: SchemaCompiler, value: JSONValue, document: String, tokens: [String], location: String, base: String) {
            self.compiler = compiler
            self.value = value
            self.document = document
            self.tokens = tokens
            self.location = location
            self.base = base
        }

        func error(_ keyword: String, _ message: String) -> SchemaCompileError {
            SchemaCompileError(schemaPointer: at(keyword), message: message)
        }

        func at(_ keyword: String, _ more: String...) -> String {
            location + "/" + ([keyword] + more).map(JSONPointer.escape).joined(separator: "/")
        }

        mutating func child(_ path: String...) -> Int {
            compiler.node(document: document, tokens: tokens + path)
        }

        mutating func compile() throws(SchemaCompileError) -> SchemaNode {
            switch value {
            case .bool(let flag):
                return SchemaNode(location: location, constant: flag)
            case .object:
                break
            default:
                throw SchemaCompileError(schemaPointer: location, message: "a schema must be an object or a boolean")
            }
            var node = SchemaNode(location: location)
            if case .bool(true)? = value["readOnly"] { node.isReadOnly = true }
            if case .bool(true)? = value["writeOnly"] { node.isWriteOnly = true }
            if case .string(let reference)? = value["$ref"] {
                guard let place = compiler.target(of: reference, base: base) else {
                    throw error("$ref", "cannot resolve '\(reference)'")
                }
                let target = compiler.node(document: place.document, tokens: place.tokens)
                node.append(SchemaRule(location: at("$ref"), check: .reference(target)))
                // OpenAPI 3.0 (as draft 4) ignores a reference's siblings.
                if compiler.dialect == .openAPI30 || value.objectMembers?.count == 1 {
                    node.referenceOnly = target
                    return node
                }
            }
            try compileKeywords(into: &node)
            return node
        }

        private func integer(_ keyword: String) throws(SchemaCompileError) -> Int? {
            guard let raw = value[keyword] else { return nil }
            guard case .number(_, let text) = raw, let number = DecimalNumber(text), number.isInteger,
                !number.isNegative
            else { throw error(keyword, "must be a non-negative integer") }
            return number.int64Value.map { Int($0) } ?? Int.max
        }

        private func number(_ keyword: String) throws(SchemaCompileError) -> DecimalNumber? {
            guard let raw = value[keyword] else { return nil }
            guard case .number(_, let text) = raw, let number = DecimalNumber(text) else {
                throw error(keyword, "must be a number")
            }
            return number
        }

        private mutating func schemas(_ keyword: String) throws(SchemaCompileError) -> [Int]? {
            guard let raw = value[keyword] else { return nil }
            guard case .array(let items) = raw, !items.isEmpty else {
                throw error(keyword, "must be a non-empty list of schemas")
            }
            var indices: [Int] = []
            for index in items.indices { indices.append(child(keyword, String(index))) }
            return indices
        }

        private mutating func compileKeywords(into node: inout SchemaNode) throws(SchemaCompileError) {
            let dialect = compiler.dialect
            var rules: [SchemaRule] = []
            func add(_ keyword: String, _ check: SchemaRule.Check) { rules.append(SchemaRule(location: at(keyword), check: check)) }

            let isNullable = dialect == .openAPI30 && value["nullable"] == .bool(true)
            if let raw = value["type"] {
                var types: SchemaTypeSet = []
                let names: [JSONValue]
                if case .array(let list) = raw { names = list } else { names = [raw] }
                for name in names {
                    guard case .string(let text) = name, let type = SchemaTypeSet.names.first(where: { $0.0 == text }) else {
                        throw error("type", "unknown type \(name.encoded)")
                    }
                    types.insert(type.1)
                }
                add("type", .type(types, isNullable: isNullable, isIntegerWritten: dialect == .openAPI30))
            }
            if let raw = value["enum"] {
                guard case .array(let values) = raw else { throw error("enum", "must be a list") }
                // As OpenAPI 3.0.3 reads `nullable`: it widens `type` only, so an `enum` must list null to allow it.
                add("enum", .enumeration(values))
            }
            if dialect == .draft2020_12, let constant = value["const"] { add("const", .constant(constant)) }

            // Strings
            if let limit = try integer("minLength") { add("minLength", .minLength(limit)) }
            if let limit = try integer("maxLength") { add("maxLength", .maxLength(limit)) }
            if let raw = value["pattern"] {
                guard case .string(let source) = raw else { throw error("pattern", "must be a string") }
                do {
                    add("pattern", .pattern(try Pattern(source)))
                } catch {
                    throw self.error("pattern", "'\(source)' is not a pattern Orrery can match: \(error.message)")
                }
            }
            if case .string(let name)? = value["format"], let format = SchemaFormat(rawValue: name) {
                add("format", .format(format))
            }

            // Numbers: draft 4 and OpenAPI 3.0 make the exclusive forms booleans beside minimum and maximum.
            if dialect == .openAPI30 {
                if let bound = try number("minimum") {
                    add("minimum", .minimum(bound, isExclusive: value["exclusiveMinimum"] == .bool(true)))
                }
                if let bound = try number("maximum") {
                    add("maximum", .maximum(bound, isExclusive: value["exclusiveMaximum"] == .bool(true)))
                }
            } else {
                if let bound = try number("minimum") { add("minimum", .minimum(bound, isExclusive: false)) }
                if let bound = try number("maximum") { add("maximum", .maximum(bound, isExclusive: false)) }
                if let bound = try number("exclusiveMinimum") { add("exclusiveMinimum", .minimum(bound, isExclusive: true)) }
                if let bound = try number("exclusiveMaximum") { add("exclusiveMaximum", .maximum(bound, isExclusive: true)) }
            }
            if let step = try number("multipleOf") {
                guard !step.isNegative && !step.isZero else { throw error("multipleOf", "must be greater than 0") }
                add("multipleOf", .multipleOf(step))
            }

            // Arrays
            if let limit = try integer("minItems") { add("minItems", .minItems(limit)) }
            if let limit = try integer("maxItems") { add("maxItems", .maxItems(limit)) }
            if value["uniqueItems"] == .bool(true) { add("uniqueItems", .uniqueItems) }
            if let items = try compileItems() { add("items", items) }
            if dialect == .draft2020_12, value["contains"] != nil {
                let minimum = try integer("minContains") ?? 1
                add("contains", .contains(child("contains"), minimum: minimum, maximum: try integer("maxContains")))
            }

            // Objects
            if let limit = try integer("minProperties") { add("minProperties", .minProperties(limit)) }
            if let limit = try integer("maxProperties") { add("maxProperties", .maxProperties(limit)) }
            var properties = SchemaProperties()
            if let raw = value["properties"] {
                guard case .object(let members) = raw else { throw error("properties", "must be a mapping") }
                for (name, _) in members { properties.named[name] = child("properties", name) }
                if members.count <= 64, members.allSatisfy({ $0.0.utf8.allSatisfy { $0 < 0x80 } }) {
                    let named = properties.named
                    properties.asciiNames = members.compactMap { name, _ in named[name].map { (Array(name.utf8), $0) } }
                }
            }
            if let raw = value["patternProperties"] {
                guard case .object(let members) = raw else { throw error("patternProperties", "must be a mapping") }
                for (source, _) in members {
                    do {
                        properties.patterns.append((try Pattern(source), child("patternProperties", source), at("patternProperties", source)))
                    } catch {
                        throw self.error("patternProperties", "'\(source)' is not a pattern Orrery can match: \(error.message)")
                    }
                }
            }
            if value["additionalProperties"] != nil {
                properties.additional = child("additionalProperties")
                properties.additionalLocation = at("additionalProperties")
            }
            if !properties.named.isEmpty || !properties.patterns.isEmpty || properties.additional != nil {
                add("properties", .properties(properties))
            }
            if let raw = value["required"] {
                guard case .array(let names) = raw else { throw error("required", "must be a list of names") }
                var required: [(name: String, node: Int?)] = []
                for name in names {
                    guard case .string(let text) = name else { throw error("required", "must be a list of names") }
                    required.append((text, properties.named[text]))
                }
                if !required.isEmpty { add("required", .required(required)) }
            }
            if dialect == .draft2020_12, let raw = value["dependentRequired"] {
                var dependencies: [(name: String, required: [String])] = []
                for (name, list) in raw.objectMembers ?? [] {
                    guard case .array(let names) = list else { throw error("dependentRequired", "must map names to lists") }
                    dependencies.append((name, names.compactMap(\.stringValue)))
                }
                add("dependentRequired", .dependentRequired(dependencies))
            }
            if dialect == .draft2020_12, value["propertyNames"] != nil {
                add("propertyNames", .propertyNames(child("propertyNames")))
            }

            // Combinations
            if let branches = try schemas("allOf") { add("allOf", .allOf(branches)) }
            let anyOf = try schemas("anyOf")
            let oneOf = try schemas("oneOf")
            if case .object(let discriminator)? = value["discriminator"],
                let property = discriminator.first(where: { $0.0 == "propertyName" })?.1.stringValue,
                let union = oneOf.map({ (keyword: "oneOf", branches: $0) }) ?? anyOf.map({ (keyword: "anyOf", branches: $0) })
            {
                let mapping = try discriminatorMapping(
                    discriminator.first(where: { $0.0 == "mapping" })?.1, keyword: union.keyword)
                add("discriminator", .discriminator(
                    property: property, mapping: mapping, branches: union.branches, isOneOf: union.keyword == "oneOf"))
                if union.keyword == "oneOf", let anyOf { add("anyOf", .anyOf(anyOf)) }
            } else {
                if let anyOf { add("anyOf", .anyOf(anyOf)) }
                if let oneOf { add("oneOf", .oneOf(oneOf)) }
            }
            if value["not"] != nil { add("not", .not(child("not"))) }
            if dialect == .draft2020_12, value["if"] != nil {
                add("if", .conditional(
                    if: child("if"), then: value["then"] != nil ? child("then") : nil,
                    else: value["else"] != nil ? child("else") : nil))
            }

            for (keyword, _) in value.objectMembers ?? [] where Self.isUnsupported(keyword, dialect: dialect) {
                compiler.unsupported.append((keyword, at(keyword)))
            }
            for rule in rules { node.append(rule) }
        }

        private static func isUnsupported(_ keyword: String, dialect: JSONSchemaDialect) -> Bool {
            if SchemaCompiler.unsupportedKeywords.contains(keyword) { return true }
            // Draft 2020-12's keywords that OpenAPI 3.0's schema object lacks: ignored there, and reported.
            return dialect == .openAPI30 && ["if", "then", "else", "contains", "minContains", "maxContains",
                "dependentRequired", "propertyNames", "prefixItems", "const"].contains(keyword)
        }

        private mutating func compileItems() throws(SchemaCompileError) -> SchemaRule.Check? {
            switch (compiler.dialect, value["items"]) {
            case (.openAPI30, .array(let list)?):
                // Draft 4's tuples, which 3.0 forbids but older documents still write.
                let prefix = list.indices.map { child("items", String($0)) }
                let rest = value["additionalItems"] != nil ? child("additionalItems") : nil
                return .items(prefix: prefix, rest: rest)
            case (.openAPI30, _?):
                return .items(prefix: [], rest: child("items"))
            case (.draft2020_12, let items):
                var prefix: [Int] = []
                if let raw = value["prefixItems"] {
                    guard case .array(let list) = raw else { throw error("prefixItems", "must be a list of schemas") }
                    prefix = list.indices.map { child("prefixItems", String($0)) }
                }
                let rest = items != nil ? child("items") : nil
                if prefix.isEmpty && rest == nil { return nil }
                return .items(prefix: prefix, rest: rest)
            case (.openAPI30, nil):
                return nil
            }
        }

        /// The discriminator's values and their schemas: `mapping` first (a reference, or a schema's name), then
        /// each branch that is a reference, by the last part of its target's name.
        private mutating func discriminatorMapping(_ mapping: JSONValue?, keyword: String) throws(SchemaCompileError) -> [(value: String, node: Int)] {
            var result: [(value: String, node: Int)] = []
            for (name, target) in mapping?.objectMembers ?? [] {
                guard case .string(let reference) = target else { throw error("discriminator", "mapping values must be strings") }
                let full = reference.contains("#") || reference.contains("/") ? reference : "#/components/schemas/" + reference
                guard let place = compiler.target(of: full, base: base) else {
                    throw error("discriminator", "cannot resolve mapping '\(reference)'")
                }
                result.append((name, compiler.node(document: place.document, tokens: place.tokens)))
            }
            guard case .array(let branches)? = value[keyword] else { return result }
            for branch in branches {
                guard case .string(let reference)? = branch["$ref"], let place = compiler.target(of: reference, base: base),
                    let name = place.tokens.last, !result.contains(where: { $0.value == name })
                else { continue }
                result.append((name, compiler.node(document: place.document, tokens: place.tokens)))
            }
            return result
        }
    }
}
