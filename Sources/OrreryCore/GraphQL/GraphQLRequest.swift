import Foundation

/// What a request carries as GraphQL, read the ways clients send it: a POST of JSON (one operation, or a batch as
/// a list), a POST of `application/graphql` (the query as the body), or a GET with `query`, `operationName` and
/// `variables` in the URL.
public enum GraphQLRequest: Sendable {
    case single(GraphQLOperation)
    case batch([GraphQLOperation])

    /// The GraphQL in a request, or nil when it holds none.
    public init?(_ request: HTTPRequest) {
        self.init(method: request.method, rawQuery: request.rawQuery, headers: request.headers, body: request.body)
    }

    /// The GraphQL in a request given by the parts it is read from.
    init?(method: String, rawQuery: Substring, headers: HTTPHeaders, body: [UInt8]) {
        let contentType = headers.first(named: "Content-Type") ?? ""
        if method == "GET" || method == "HEAD" {
            self.init(queryItems: PercentDecoding.queryItems(rawQuery))
        } else if Self.mediaType(contentType) == "application/graphql" {
            // The body is the query; a name and variables may come in the URL.
            let query = String(decoding: body, as: UTF8.self)
            let name = PercentDecoding.queryValues(named: "operationName", in: rawQuery, limit: 1).first
            self = .single(
                GraphQLOperation(
                    operationName: name, query: query, variables: Self.variables(PercentDecoding.queryItems(rawQuery))))
        } else {
            guard let json = JSONBodyParser.parse(body) else { return nil }
            self.init(json: json)
        }
    }

    /// A JSON body: an operation object, or a non-empty list of them.
    public init?(json: JSONValue) {
        if case .array(let items) = json {
            var operations: [GraphQLOperation] = []
            for item in items {
                guard let operation = GraphQLOperation(json: item) else { return nil }
                operations.append(operation)
            }
            guard !operations.isEmpty else { return nil }
            self = .batch(operations)
            return
        }
        guard let operation = GraphQLOperation(json: json) else { return nil }
        self = .single(operation)
    }

    init?(queryItems: [QueryItem]) {
        let query = queryItems.first { $0.name == "query" }?.value
        let name = queryItems.first { $0.name == "operationName" }?.value
        guard query != nil || name != nil else { return nil }
        self = .single(GraphQLOperation(operationName: name, query: query, variables: Self.variables(queryItems)))
    }

    /// `variables` from the URL, as JSON text; text that is not JSON is kept as a string, which no stub's
    /// variables equal.
    private static func variables(_ items: [QueryItem]) -> JSONValue? {
        guard let text = items.first(where: { $0.name == "variables" })?.value, !text.isEmpty else { return nil }
        return JSONBodyParser.parse(Array(text.utf8)) ?? .string(text)
    }

    /// `application/graphql; charset=utf-8` → `application/graphql`, lower-cased.
    private static func mediaType(_ contentType: String) -> String {
        let base = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return base.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// The operations, one for a single request.
    public var operations: [GraphQLOperation] {
        switch self {
        case .single(let operation): [operation]
        case .batch(let operations): operations
        }
    }

    /// The names the journal and the dashboard show: the operation's, or a batch's joined with commas (`?` for one
    /// without a name).
    public var operationNames: String? {
        let names = operations.map { $0.effectiveName }
        guard names.contains(where: { $0 != nil }) else { return nil }
        return names.map { $0 ?? "?" }.joined(separator: ", ")
    }

    /// A cheap look before any parsing: a URL with `query` or `operationName`, or a body that names one of them
    /// or is sent as `application/graphql`.
    package static func mayBeIn(_ request: HTTPRequest) -> Bool {
        if request.method == "GET" || request.method == "HEAD" {
            return request.queryValue(named: "query") != nil || request.queryValue(named: "operationName") != nil
        }
        guard !request.body.isEmpty else { return false }
        if let contentType = request.headers.first(named: "Content-Type"),
            contentType.lowercased().hasPrefix("application/graphql")
        {
            return true
        }
        return contains(request.body, Array(#""query""#.utf8))
            || contains(request.body, Array(#""operationName""#.utf8))
    }

    /// Whether `part` occurs in `bytes`: a plain byte search, first byte then the rest, over the buffers.
    private static func contains(_ bytes: [UInt8], _ part: [UInt8]) -> Bool {
        guard !part.isEmpty, bytes.count >= part.count else { return false }
        return bytes.withUnsafeBufferPointer { haystack in
            part.withUnsafeBufferPointer { needle in
                let first = needle[0]
                let last = haystack.count - needle.count
                var start = 0
                while start <= last {
                    if haystack[start] == first {
                        var matched = 1
                        while matched < needle.count, haystack[start + matched] == needle[matched] { matched += 1 }
                        if matched == needle.count { return true }
                    }
                    start += 1
                }
                return false
            }
        }
    }

    /// Whether the first byte that is not JSON white space opens a list: a batch is a list, so anything else is not
    /// one and needs no further look.
    private static func opensList(_ bytes: [UInt8]) -> Bool {
        for byte in bytes {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            default: return byte == UInt8(ascii: "[")
            }
        }
        return false
    }

    /// The operations of a batch (a POST of a JSON list of them), as JSON; nil for anything else.
    package static func batchItems(_ request: HTTPRequest) -> [JSONValue]? {
        guard request.method == "POST", opensList(request.body), mayBeIn(request),
            case .array(let items)? = JSONBodyParser.parse(request.body),
            GraphQLRequest(json: .array(items)) != nil
        else { return nil }
        return items
    }
}
