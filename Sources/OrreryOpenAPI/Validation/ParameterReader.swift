import Foundation
import OrreryCore

/// A parameter prepared at load for reading its text from a request: its serialization, and the types its schema
/// (its items', its properties') asks for, so that `5` is read as a number where the schema wants an integer.
/// A class: every request reads each of an operation's readers in place, where a value was copied.
final class ParameterReader: Sendable {
    let parameter: OpenAPIParameter
    let types: [String]
    let itemTypes: [String]
    /// Property names and their types, for objects (`deepObject`, exploded `form`).
    let properties: [(name: String, types: [String])]
    /// The parameter is described by `content` (JSON text), not by a schema and a style.
    let isJSONContent: Bool

    init(_ parameter: OpenAPIParameter, source: SchemaSource) {
        self.parameter = parameter
        let location = parameter.schema?.location ?? ""
        types = location.isEmpty ? [] : source.types(at: location)
        itemTypes = location.isEmpty ? [] : source.types(at: location + "/items")
        var properties: [(name: String, types: [String])] = []
        if let (schema, at) = source.schema(at: location) {
            for (name, _) in schema["properties"]?.objectMembers ?? [] {
                let escaped = name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
                properties.append((name, source.types(at: at + "/properties/" + escaped)))
            }
        }
        self.properties = properties
        acceptedType = Self.onlyType(source.schema(at: location), at: location)
        isJSONContent = location.contains("/content/")
        isArray = types.contains("array")
        isObject = types.contains("object") && !isJSONContent
        readsString = types.isEmpty || types.contains("string")
        isPlainSimple =
            readsString && !isArray && !isObject && !isJSONContent && parameter.style != "label"
            && parameter.style != "matrix"
        readsWholeQuery =
            parameter.style == "deepObject" || (isObject && parameter.style == "form" && parameter.explode)
    }

    enum Reading {
        case absent
        case value(JSONValue)
        /// The text cannot be read as the schema's type or the style's form.
        case unparseable(String)
    }

    /// Reads the parameter from the request; `pathValue` is its raw path segment value for path parameters.
    /// `query` is the whole query decoded when `readsWholeQuery`; else the parameter's values are read from
    /// `rawQuery`.
    func read(
        rawQuery: Substring, query: [QueryItem], headers: HTTPHeaders, cookies: [(String, String)],
        pathValue: String?
    ) -> Reading {
        let name = parameter.name
        switch parameter.location {
        case .path:
            guard let raw = pathValue else { return .absent }
            return readPath(raw)
        case .header:
            let values = headers.all(named: name)
            guard !values.isEmpty else { return .absent }
            return readDelimited(values.joined(separator: ","), separator: ",", explodedPairs: parameter.explode)
        case .cookie:
            guard let value = cookies.first(where: { $0.0 == name })?.1 else { return .absent }
            return readDelimited(value, separator: ",", explodedPairs: false)
        case .query:
            return readQuery(rawQuery: rawQuery, query: query)
        }
    }

    private func readPath(_ raw: String) -> Reading {
        // The usual one: `simple`, a scalar the schema reads as a string, nothing to decode.
        if isPlainSimple && !Self.hasEscape(raw) { return .value(.string(raw)) }
        var text = raw
        switch parameter.style {
        case "label":
            guard text.hasPrefix(".") else { return .unparseable("expected a label value ('.value')") }
            text.removeFirst()
            let separator: Character = parameter.explode ? "." : ","
            return readDelimited(PercentDecoding.decode(text), separator: separator, explodedPairs: parameter.explode)
        case "matrix":
            let prefix = ";" + parameter.name
            // An exploded object names its properties, not itself: `;x=1;y=2`.
            guard text.hasPrefix(parameter.explode && isObject ? ";" : prefix) else {
                return .unparseable("expected a matrix value (';\(parameter.name)=value')")
            }
            if parameter.explode, isArray {
                let parts = text.split(separator: ";").map { part in
                    part.hasPrefix(parameter.name + "=")
                        ? String(part.dropFirst(parameter.name.count + 1)) : String(part)
                }
                return items(parts.map { PercentDecoding.decode($0) })
            }
            if parameter.explode, isObject {
                let pairs = text.split(separator: ";").compactMap { part -> (String, String)? in
                    guard let equals = part.firstIndex(of: "=") else { return nil }
                    return (
                        PercentDecoding.decode(part[..<equals]),
                        PercentDecoding.decode(part[part.index(after: equals)...])
                    )
                }
                return object(pairs)
            }
            text.removeFirst(prefix.count)
            if text.hasPrefix("=") { text.removeFirst() }
            return readDelimited(PercentDecoding.decode(text), separator: ",", explodedPairs: false)
        default:
            return readDelimited(PercentDecoding.decode(text), separator: ",", explodedPairs: parameter.explode)
        }
    }

    private func readQuery(rawQuery: Substring, query: [QueryItem]) -> Reading {
        let name = parameter.name
        if parameter.style == "deepObject" {
            let prefix = name + "["
            let pairs = query.compactMap { item -> (String, String)? in
                guard item.name.hasPrefix(prefix), item.name.hasSuffix("]") else { return nil }
                return (String(item.name.dropFirst(prefix.count).dropLast()), item.value)
            }
            return pairs.isEmpty ? .absent : object(pairs)
        }
        if isObject, parameter.style == "form", parameter.explode {
            let known = Set(properties.map(\.name))
            let pairs = query.filter { known.contains($0.name) }.map { ($0.name, $0.value) }
            return pairs.isEmpty ? .absent : object(pairs)
        }
        // Only this name's values decoded, as the whole query decoded would give them; the first alone (no list
        // made) unless an array.
        if !isArray {
            guard let value = firstQueryValue(rawQuery) else { return .absent }
            if isObject { return readDelimited(value, separator: ",", explodedPairs: false) }
            return readsString ? .value(.string(value)) : Self.scalar(value, types: types)
        }
        let values = queryValues(rawQuery)
        guard !values.isEmpty else { return .absent }
        switch parameter.style {
        case "spaceDelimited": return items(values.flatMap { $0.split(separator: " ").map(String.init) })
        case "pipeDelimited": return items(values.flatMap { $0.split(separator: "|").map(String.init) })
        default:
            if parameter.explode { return items(values) }
            return items(values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) })
        }
    }

    /// The decoded values of the query's parameters with this one's name, in order: what the query decoded whole
    /// gives for the name, read over its bytes in place, with only this name's values decoded.
    private func queryValues(_ rawQuery: Substring) -> [String] {
        PercentDecoding.queryValues(named: parameter.name, in: rawQuery)
    }

    /// The first of them, without a list (a value with no `%` or `+` made from its bytes as it is).
    private func firstQueryValue(_ rawQuery: Substring) -> String? {
        PercentDecoding.firstQueryValueString(named: parameter.name, in: rawQuery)
    }

    /// The schema says no more than `type: string` or `type: boolean` (with annotations): every value of that
    /// type satisfies it, and is not run through it.
    private let acceptedType: String?

    var acceptsAnyString: Bool { acceptedType == "string" }

    /// Whether the schema holds for the value on its type alone.
    func acceptsByType(_ value: JSONValue) -> Bool {
        switch value {
        case .string: acceptedType == "string"
        case .bool: acceptedType == "boolean"
        default: false
        }
    }

    /// Keywords that describe and constrain nothing.
    private static let annotations: Set<String> = [
        "type", "title", "description", "example", "examples", "default", "deprecated", "$comment",
    ]

    /// The type, when the schema (as written at `location`, not reached through a `$ref`) is `type: string` or
    /// `type: boolean` and annotations alone.
    private static func onlyType(_ found: (value: JSONValue, location: String)?, at location: String) -> String? {
        guard let found, found.location == location, case .string(let type)? = found.value["type"],
            type == "string" || type == "boolean", let members = found.value.objectMembers,
            members.allSatisfy({ annotations.contains($0.0) })
        else { return nil }
        return type
    }

    /// Worked out once: every request asks them of every parameter.
    private let isArray: Bool
    private let isObject: Bool
    /// The schema names no type or allows a string: text is read as it is.
    private let readsString: Bool
    /// Whether the parameter reads the query's items whole (an object's properties, by their own names).
    let readsWholeQuery: Bool
    /// A scalar in the `simple` style read as the text itself.
    private let isPlainSimple: Bool

    /// A value in the `simple` style read as it is, where any string will do: one without an escape needs
    /// neither reading nor checking.
    var takesAnyPlainValue: Bool { isPlainSimple && acceptsAnyString }

    static func hasEscape(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.contains(UInt8(ascii: "%")) }
    }

    /// A value written with a separator: a scalar, the items of an array, or an object's pairs (`k=v` when
    /// exploded, `k,v` when not).
    private func readDelimited(_ text: String, separator: Character, explodedPairs: Bool) -> Reading {
        if isJSONContent {
            guard let value = try? JSONValue.parse(text) else { return .unparseable("is not JSON") }
            return .value(value)
        }
        if isArray { return items(text.split(separator: separator, omittingEmptySubsequences: false).map(String.init)) }
        if isObject {
            let parts = text.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
            var pairs: [(String, String)] = []
            if explodedPairs {
                for part in parts {
                    guard let equals = part.firstIndex(of: "=") else { return .unparseable("expected key=value pairs") }
                    pairs.append((String(part[..<equals]), String(part[part.index(after: equals)...])))
                }
            } else {
                guard parts.count % 2 == 0 else { return .unparseable("expected key,value pairs") }
                for index in stride(from: 0, to: parts.count, by: 2) { pairs.append((parts[index], parts[index + 1])) }
            }
            return object(pairs)
        }
        return readsString ? .value(.string(text)) : Self.scalar(text, types: types)
    }

    private func items(_ texts: [String]) -> Reading {
        var values: [JSONValue] = []
        for (index, text) in texts.enumerated() {
            switch Self.scalar(text, types: itemTypes) {
            case .value(let value): values.append(value)
            case .unparseable(let why): return .unparseable("item \(index): \(why)")
            case .absent: break
            }
        }
        return .value(.array(values))
    }

    private func object(_ pairs: [(String, String)]) -> Reading {
        var members: [(String, JSONValue)] = []
        for (key, text) in pairs {
            let types = properties.first { $0.name == key }?.types ?? []
            switch Self.scalar(text, types: types) {
            case .value(let value): members.append((key, value))
            case .unparseable(let why): return .unparseable("'\(key)': \(why)")
            case .absent: break
            }
        }
        return .value(.object(members))
    }

    /// Text as the first type that reads it; a string when the schema names no type or allows strings.
    static func scalar(_ text: String, types: [String]) -> Reading {
        if types.isEmpty || types.contains("string") { return .value(.string(text)) }
        for type in types {
            switch type {
            case "integer", "number":
                if let number = try? JSONValue.parse(text), case .number = number { return .value(number) }
            case "boolean":
                if text == "true" { return .value(.bool(true)) }
                if text == "false" { return .value(.bool(false)) }
            case "null":
                if text.isEmpty || text == "null" { return .value(.null) }
            default:
                break
            }
        }
        return .unparseable("'\(text)' is not of type \(types.joined(separator: " or "))")
    }
}
