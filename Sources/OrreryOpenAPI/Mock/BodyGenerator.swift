import Foundation
import OrreryCore

/// Makes a body from a schema when the spec gives no example: the schema's own `example`, `default`, `const` or
/// first `enum` value where it has one, else a value of its type. Static bodies are the same every time; dynamic
/// ones (`Prefer: dynamic=true`) vary, drawn from a seed, so that the same seed gives the same body.
struct BodyGenerator {
    let source: SchemaSource
    let direction: SchemaDirection
    /// Nil for static bodies.
    var random: SplitMix64?
    /// Whether the schemas' `example`s and `default`s are used (a spec's example may break its own schema).
    var usesExamples = true

    /// How deep the body may nest: a schema that refers to itself stops there.
    static let maximumDepth = 10

    mutating func value(at location: String, depth: Int = 0) -> JSONValue {
        guard depth < Self.maximumDepth, let (schema, at) = source.schema(at: location) else { return .null }
        if usesExamples, random == nil || schema["enum"] == nil {
            if let example = schema["example"] { return example }
            if case .array(let examples)? = schema["examples"], let first = examples.first { return first }
            if let value = schema["const"] { return value }
            if random == nil, let value = schema["default"] { return value }
        }
        if case .array(let values)? = schema["enum"], !values.isEmpty {
            return values[pick(values.count)]
        }
        if case .array(let branches)? = schema["allOf"], !branches.isEmpty {
            var members: [(String, JSONValue)] = []
            for index in branches.indices {
                guard case .object(let more) = value(at: at + "/allOf/\(index)", depth: depth + 1) else { continue }
                for (key, item) in more where !members.contains(where: { $0.0 == key }) { members.append((key, item)) }
            }
            if let own = object(schema, at: at, depth: depth) {
                members += own.filter { key, _ in !members.contains { $0.0 == key } }
            }
            return .object(members)
        }
        for keyword in ["oneOf", "anyOf"] {
            if case .array(let branches)? = schema[keyword], !branches.isEmpty {
                return value(at: at + "/\(keyword)/\(pick(branches.count))", depth: depth + 1)
            }
        }
        let types = source.types(at: at).filter { $0 != "null" }
        switch types.first ?? (schema["properties"] != nil ? "object" : "string") {
        case "object":
            return .object(object(schema, at: at, depth: depth) ?? [])
        case "array":
            let minimum = schema["minItems"].flatMap(Self.int) ?? 0
            let maximum = schema["maxItems"].flatMap(Self.int) ?? max(minimum, random == nil ? 1 : 3)
            let count = max(minimum, min(maximum, random == nil ? 1 : 1 + pick(3)))
            var items: [JSONValue] = []
            for _ in 0..<min(count, 20) { items.append(value(at: at + "/items", depth: depth + 1)) }
            return .array(items)
        case "integer":
            return .int(integer(schema))
        case "number":
            let whole = integer(schema)
            return .number(Double(whole), text: String(whole))
        case "boolean":
            return .bool(random.map { _ in pick(2) == 0 } ?? true)
        default:
            return .string(string(schema))
        }
    }

    private mutating func object(_ schema: JSONValue, at location: String, depth: Int) -> [(String, JSONValue)]? {
        guard let properties = schema["properties"]?.objectMembers else { return nil }
        var members: [(String, JSONValue)] = []
        for (name, property) in properties {
            // What never travels this way is left out: `writeOnly` in answers, `readOnly` in requests.
            let hidden = direction == .response ? "writeOnly" : "readOnly"
            if property[hidden] == .bool(true) { continue }
            let escaped = name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            members.append((name, value(at: location + "/properties/" + escaped, depth: depth + 1)))
        }
        return members
    }

    private mutating func integer(_ schema: JSONValue) -> Int {
        var low = schema["minimum"].flatMap(Self.int) ?? 0
        if case .bool(true)? = schema["exclusiveMinimum"] { low += 1 }
        if let bound = schema["exclusiveMinimum"].flatMap(Self.int) { low = max(low, bound + 1) }
        var high = schema["maximum"].flatMap(Self.int) ?? max(low, 0) + 100
        if case .bool(true)? = schema["exclusiveMaximum"] { high -= 1 }
        if let bound = schema["exclusiveMaximum"].flatMap(Self.int) { high = min(high, bound - 1) }
        if schema["minimum"] == nil, schema["exclusiveMinimum"] == nil, high < 0 { low = high }
        guard high > low, random != nil else { return low }
        let value = low + pick(min(high - low, 1_000_000) + 1)
        if let step = schema["multipleOf"].flatMap(Self.int), step > 0 { return value - value % step }
        return value
    }

    private mutating func string(_ schema: JSONValue) -> String {
        var text: String
        switch schema["format"]?.stringValue {
        case "date-time": text = random == nil ? "2024-01-01T00:00:00Z" : "2024-0\(1 + pick(9))-1\(pick(10))T12:00:00Z"
        case "date": text = random == nil ? "2024-01-01" : "2024-0\(1 + pick(9))-1\(pick(10))"
        case "email": text = random == nil ? "user@example.com" : "user\(pick(1000))@example.com"
        case "uuid": text = random == nil ? "3fa85f64-5717-4562-b3fc-2c963f66afa6" : uuid()
        case "uri", "url": text = "https://example.com/" + (random == nil ? "" : "item/\(pick(1000))")
        case "ipv4": text = random == nil ? "192.0.2.1" : "192.0.2.\(1 + pick(254))"
        case "ipv6": text = "2001:db8::1"
        case "hostname": text = "example.com"
        case "byte": text = "c3RyaW5n"
        default: text = random == nil ? "string" : Self.words[pick(Self.words.count)]
        }
        let minimum = schema["minLength"].flatMap(Self.int) ?? 0
        while text.count < minimum { text += "x" }
        if let maximum = schema["maxLength"].flatMap(Self.int), text.count > maximum {
            text = String(text.prefix(maximum))
        }
        return text
    }

    private mutating func uuid() -> String {
        let hex = (0..<32).map { _ in String(pick(16), radix: 16) }.joined()
        let characters = Array(hex)
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
        return groups.joined(separator: "-")
    }

    /// 0 for static bodies; a draw below `count` for dynamic ones.
    private mutating func pick(_ count: Int) -> Int {
        guard count > 1, var generator = random else { return 0 }
        let value = Int(generator.next() % UInt64(count))
        random = generator
        return value
    }

    static func int(_ value: JSONValue) -> Int? {
        guard case .number(let number, _) = value, number.isFinite, abs(number) < 1e15 else { return nil }
        return Int(number.rounded(.up))
    }

    private static let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"]
}

/// A small seeded random number generator (SplitMix64): the same seed draws the same numbers on every machine.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// FNV-1a over text: a seed from a request.
    static func seed(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
