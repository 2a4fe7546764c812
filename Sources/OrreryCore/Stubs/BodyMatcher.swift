/// One condition on the request body; a stub's `body` section may combine several, and all must hold.
public enum BodyMatcher: Sendable, CustomStringConvertible {
    case equalTo(String)
    /// JSON-equal: object key order is ignored, numbers compare by value; `options` loosen it further.
    case json(JSONValue, options: JSONMatchOptions = JSONMatchOptions())
    case matches(Pattern)
    case contains(String)
    /// `application/x-www-form-urlencoded` fields, each with its own matcher.
    case form([(String, ValueMatcher)])
    /// The exact bytes (written in base64): for bodies that are not text, such as recorded uploads.
    case binaryEqualTo([UInt8])
    /// `{ jsonPath: "$.a.b" }`, alone (present) or with `equalTo`, `matches` or `contains` beside it.
    indirect case jsonPath(JSONPath, JSONPathCondition)
    /// `anyOf: [...]`: at least one of the matchers holds.
    case anyOf([BodyMatcher])
    /// `allOf: [...]`: every one of the matchers holds.
    case allOf([BodyMatcher])
    /// `not: {...}`: the matcher does not hold.
    indirect case not(BodyMatcher)
    /// `xml: "<a>...</a>"`: the same XML document, whitespace between elements and comments aside.
    case xml(XMLTree)
    /// `{ xpath: "//item[@id='7']" }`, alone (the expression is true) or with `equalTo`, `matches` or `contains`.
    case xpath(XPath, XPathCondition)
    /// `graphql: {operationName, query, variables}`: a GraphQL operation, sent as JSON, as `application/graphql`
    /// or in a GET's URL.
    case graphQL(GraphQLMatcher)

    public static let operatorNames = [
        "equalTo", "json", "matches", "contains", "form", "binaryEqualTo", "jsonPath", "anyOf", "allOf", "not", "xml",
        "xpath", "graphql",
    ]

    public func matches(_ body: [UInt8]) -> Bool {
        var view = RequestBody(body)
        return matches(&view)
    }

    /// Whether the body satisfies the matcher; the view keeps what was parsed for the next matcher.
    public func matches(_ body: inout RequestBody) -> Bool {
        switch self {
        case .equalTo(let expected): return body.bytes.elementsEqual(expected.utf8)
        case .contains(let part): return part.isEmpty || body.text().contains(part)
        case .matches(let pattern): return pattern.matches(body.text())
        case .json(let expected, let options):
            guard let actual = body.json() else { return false }
            // The redaction placeholder stands for any value: a recorded body whose secret was redacted still
            // matches a request that carries another secret.
            if options == JSONMatchOptions() { return JSONValue.matches(expected, actual, wildcard: Redactor.placeholder) }
            return JSONComparison(options: options, wildcard: Redactor.placeholder).matches(expected, actual)
        case .binaryEqualTo(let bytes): return body.bytes == bytes
        case .form(let fields):
            let items = body.formItems()
            return fields.allSatisfy { name, matcher in
                matcher.matches(items.filter { $0.name == name }.map(\.value))
            }
        case .jsonPath(let path, let condition):
            guard let json = body.json() else { return false }
            return condition.holds(for: path.select(in: json))
        case .anyOf(let matchers): return matchers.contains { $0.matches(&body) }
        case .allOf(let matchers): return matchers.allSatisfy { $0.matches(&body) }
        case .not(let matcher): return !matcher.matches(&body)
        case .xml(let expected):
            guard let tree = body.xml() else { return false }
            return expected.isEquivalent(to: tree)
        case .xpath(let path, let condition):
            guard let tree = body.xml() else { return false }
            return condition.holds(path, in: tree)
        case .graphQL(let matcher):
            // A batch is matched operation by operation (by the pipeline), never as a whole.
            guard case .single(let operation)? = body.graphQL() else { return false }
            return matcher.matches(operation)
        }
    }

    /// What failed and what the body had instead, for a body the matcher refuses: for `allOf`, the first of its
    /// matchers that failed; for `jsonPath`, the values found at the path.
    public func explanation(_ body: inout RequestBody) -> (expected: String, actual: String?) {
        switch self {
        case .allOf(let matchers):
            guard let position = matchers.firstIndex(where: { !$0.matches(&body) }) else { break }
            let inner = matchers[position].explanation(&body)
            guard matchers.count > 1 else { return inner }
            return ("\(inner.expected) (allOf, condition \(position + 1) of \(matchers.count))", inner.actual)
        case .jsonPath(let path, _):
            guard let json = body.json() else { return (description, "not JSON: " + String(body.text().prefix(120))) }
            let found = path.select(in: json)
            return (description, found.isEmpty ? nil : found.map { String($0.encoded.prefix(120)) }.joined(separator: ", "))
        case .graphQL(let matcher):
            switch body.graphQL() {
            case nil: return (description, "no GraphQL operation (a JSON query, application/graphql, or ?query=)")
            case .batch(let operations)?: return (description, "a batch of \(operations.count) operations")
            case .single(let operation)?:
                guard let (part, expected, actual) = matcher.mismatch(operation) else { break }
                return ("GraphQL \(part) \(expected)", actual)
            }
        default:
            break
        }
        return (description, body.bytes.isEmpty ? nil : String(body.text().prefix(200)))
    }

    /// Every difference a near miss lists: the explanation, but for `graphql`, each of its parts that failed.
    public func differences(_ body: inout RequestBody) -> [(expected: String, actual: String?)] {
        if case .graphQL(let matcher) = self, case .single(let operation)? = body.graphQL() {
            let found = matcher.differences(operation)
            if !found.isEmpty { return found.map { ("GraphQL \($0.part) \($0.expected)", $0.actual) } }
        }
        return [explanation(&body)]
    }

    public var description: String {
        switch self {
        case .equalTo(let text): "equal to \"\(text.prefix(80))\""
        case .json(let value, let options):
            "JSON equal to \(value.encoded.prefix(120))"
                + (options == JSONMatchOptions() ? "" : " (ignoring \(options.ignored.joined(separator: " and ")))")
        case .matches(let pattern): "matching /\(pattern.source)/"
        case .contains(let text): "containing \"\(text)\""
        case .form(let fields): "form fields " + fields.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        case .binaryEqualTo(let bytes): "\(bytes.count) bytes equal to the stub's"
        case .jsonPath(let path, let condition): "JSONPath \(path.source) \(condition)"
        case .anyOf(let matchers): "any of (" + matchers.map(\.description).joined(separator: "; ") + ")"
        case .allOf(let matchers): "all of (" + matchers.map(\.description).joined(separator: "; ") + ")"
        case .not(let matcher): "not " + matcher.description
        case .xml: "XML equal to the stub's"
        case .xpath(let path, let condition): "XPath \(path.source) \(condition)"
        case .graphQL(let matcher): matcher.description
        }
    }
}

/// What the values at a JSONPath must be; any one of them (through a wildcard) may satisfy it.
public enum JSONPathCondition: Sendable, CustomStringConvertible {
    /// Something is there.
    case present
    /// JSON-equal to the value; a text value also equals a number or boolean written the same (`"3"` and `3`).
    case equalTo(JSONValue)
    case matches(Pattern)
    case contains(String)

    public func holds(for values: [JSONValue]) -> Bool {
        switch self {
        case .present: return !values.isEmpty
        case .equalTo(let expected): return values.contains { Self.equal(expected, $0) }
        case .matches(let pattern): return values.contains { pattern.matches(Self.text($0)) }
        case .contains(let part): return values.contains { Self.text($0).contains(part) }
        }
    }

    static func equal(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
        if case .string(let text) = expected {
            switch actual {
            case .number(let number, _): return Double(text) == number
            case .bool(let flag): return text == (flag ? "true" : "false")
            default: break
            }
        }
        return JSONValue.matches(expected, actual, wildcard: Redactor.placeholder)
    }

    /// A value as text for `matches` and `contains`: a string as it is, anything else as its JSON.
    static func text(_ value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return value.encoded
    }

    public var description: String {
        switch self {
        case .present: "present"
        case .equalTo(let value): "equal to \(value.encoded.prefix(120))"
        case .matches(let pattern): "matching /\(pattern.source)/"
        case .contains(let text): "containing \"\(text)\""
        }
    }
}

/// How a `json` body matcher loosens JSON equality.
public struct JSONMatchOptions: Sendable, Equatable {
    /// Objects in the body may have members the stub does not name, at any depth.
    public var ignoreExtraFields: Bool
    /// Lists match in any order (with the same number of items).
    public var ignoreArrayOrder: Bool

    public init(ignoreExtraFields: Bool = false, ignoreArrayOrder: Bool = false) {
        self.ignoreExtraFields = ignoreExtraFields
        self.ignoreArrayOrder = ignoreArrayOrder
    }

    var ignored: [String] {
        (ignoreExtraFields ? ["extra fields"] : []) + (ignoreArrayOrder ? ["array order"] : [])
    }
}

/// A request body as the matchers read it: its text, JSON and form fields made once, on first use, however many
/// matchers ask.
public struct RequestBody {
    public let bytes: [UInt8]
    /// What is read beside the body (a GraphQL GET's URL, the content type): these fields, not a copy of the whole
    /// request, which a stub lookup made (every field retained and released) for every request it tried.
    private let source: (method: String, rawQuery: Substring, headers: HTTPHeaders)?
    private var decodedText: String?
    private var parsedJSON: JSONValue??
    private var decodedForm: [QueryItem]?
    private var parsedXML: XMLTree??
    private var parsedGraphQL: GraphQLRequest??

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        source = nil
    }

    /// The body of a request, with the request beside it.
    public init(_ request: borrowing HTTPRequest) {
        bytes = request.body
        source = (request.method, request.rawQuery, request.headers)
    }

    /// The GraphQL the request carries, read and its queries parsed on first use; nil when it carries none.
    public mutating func graphQL() -> GraphQLRequest? {
        if let parsedGraphQL { return parsedGraphQL }
        let parsed: GraphQLRequest? =
            if let source {
                GraphQLRequest(method: source.method, rawQuery: source.rawQuery, headers: source.headers, body: bytes)
            } else {
                json().flatMap { GraphQLRequest(json: $0) }
            }
        parsedGraphQL = .some(parsed)
        return parsed
    }

    public mutating func text() -> String {
        if let decodedText { return decodedText }
        let text = String(decoding: bytes, as: UTF8.self)
        decodedText = text
        return text
    }

    /// The body as JSON, or nil when it is not JSON.
    public mutating func json() -> JSONValue? {
        if let parsedJSON { return parsedJSON }
        let parsed = JSONBodyParser.parse(bytes)
        parsedJSON = .some(parsed)
        return parsed
    }

    /// The body as an XML document, or nil when it is not XML.
    public mutating func xml() -> XMLTree? {
        if let parsedXML { return parsedXML }
        let parsed = XMLTree(bytes)
        parsedXML = .some(parsed)
        return parsed
    }

    public mutating func formItems() -> [QueryItem] {
        if let decodedForm { return decodedForm }
        let items = PercentDecoding.queryItems(Substring(text()))
        decodedForm = items
        return items
    }
}
