/// One condition on the request body; a stub's `body` section may combine several, and all must hold.
public enum BodyMatcher: Sendable, CustomStringConvertible {
    case equalTo(String)
    /// JSON-equal: object key order is ignored, numbers compare by value.
    case json(JSONValue)
    case matches(Pattern)
    case contains(String)
    /// `application/x-www-form-urlencoded` fields, each with its own matcher.
    case form([(String, ValueMatcher)])
    /// The exact bytes (written in base64): for bodies that are not text, such as recorded uploads.
    case binaryEqualTo([UInt8])

    public static let operatorNames = ["equalTo", "json", "matches", "contains", "form", "binaryEqualTo"]

    public func matches(_ body: [UInt8]) -> Bool {
        switch self {
        case .equalTo(let expected): return body.elementsEqual(expected.utf8)
        case .contains(let part): return part.isEmpty || String(decoding: body, as: UTF8.self).contains(part)
        case .matches(let pattern): return pattern.matches(String(decoding: body, as: UTF8.self))
        case .json(let expected):
            guard let actual = try? JSONValue.parse(body) else { return false }
            // The redaction placeholder stands for any value: a recorded body whose secret was redacted still
            // matches a request that carries another secret.
            return JSONValue.matches(expected, actual, wildcard: Redactor.placeholder)
        case .binaryEqualTo(let bytes): return body == bytes
        case .form(let fields):
            let items = PercentDecoding.queryItems(Substring(String(decoding: body, as: UTF8.self)))
            return fields.allSatisfy { name, matcher in
                matcher.matches(items.filter { $0.name == name }.map(\.value))
            }
        }
    }

    public var description: String {
        switch self {
        case .equalTo(let text): "equal to \"\(text.prefix(80))\""
        case .json(let value): "JSON equal to \(value.encoded.prefix(120))"
        case .matches(let pattern): "matching /\(pattern.source)/"
        case .contains(let text): "containing \"\(text)\""
        case .form(let fields): "form fields " + fields.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        case .binaryEqualTo(let bytes): "\(bytes.count) bytes equal to the stub's"
        }
    }
}
