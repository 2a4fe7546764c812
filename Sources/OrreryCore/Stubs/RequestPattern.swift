/// Which request URLs a stub answers.
public enum URLMatcher: Sendable {
    /// No URL condition (`stubAnyRequest`).
    case any
    /// The decoded path, exactly; the query is free.
    case path(String)
    /// Path and query exactly, the query parameters in any order.
    case url(path: String, query: [QueryItem])
    /// A regex over the decoded path plus the query as received.
    case urlPattern(Pattern)
    /// A regex over the decoded path alone.
    case pathPattern(Pattern)
    /// A path with parameters (`/users/{id}`); the query is free.
    case pathTemplate(PathTemplate)
    /// A path with parameters and a query, the query parameters in any order.
    case urlTemplate(PathTemplate, query: [QueryItem])

    /// The path an index can look the stub up by; nil for patterns and `any`.
    public var exactPath: String? {
        switch self {
        case .path(let path), .url(let path, _): path
        default: nil
        }
    }

    /// The path template the stub is looked up by; nil for the other kinds.
    public var pathTemplate: PathTemplate? {
        switch self {
        case .pathTemplate(let template), .urlTemplate(let template, _): template
        default: nil
        }
    }
}

/// A field of a request that a stub expected differently: what a 404 and the journal explain.
public struct Mismatch: Sendable, Equatable {
    /// `method`, `host`, `path`, `url`, `query`, `header`, or `body`.
    public var field: String
    /// The header or query parameter name, when the field has one.
    public var name: String?
    public var expected: String
    public var actual: String?

    public init(field: String, name: String? = nil, expected: String, actual: String?) {
        self.field = field
        self.name = name
        self.expected = expected
        self.actual = actual
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("field", .string(field))]
        if let name { members.append(("name", .string(name))) }
        members.append(("expected", .string(expected)))
        members.append(("actual", .string(actual)))
        return .object(members)
    }
}

/// The request side of a stub: every condition a request must meet (WireMock's `RequestPattern`).
public struct RequestPattern: Sendable {
    /// Upper-case method, or nil for any method.
    public var method: String?
    /// Host as written (port included when written); nil for any host.
    public var host: String?
    public var url: URLMatcher
    public var query: [(String, ValueMatcher)]
    public var headers: [(String, ValueMatcher)]
    public var body: [BodyMatcher]

    public init(
        method: String? = nil, host: String? = nil, url: URLMatcher = .any, query: [(String, ValueMatcher)] = [],
        headers: [(String, ValueMatcher)] = [], body: [BodyMatcher] = []
    ) {
        self.method = method
        self.host = host
        self.url = url
        self.query = query
        self.headers = headers
        self.body = body
    }

    /// How specific the pattern is; the most specific matching stub wins (see "Which stub wins" in docs/stub-files.md).
    public var specificity: Int {
        var score = 0
        switch url {
        case .any: break
        case .urlPattern, .pathPattern: score += 10
        case .path: score += 40
        case .url: score += 45
        // Below an exact path, above a regex; more literal segments make a more specific template.
        case .pathTemplate(let template): score += template.isPrefix ? 10 : 20 + min(template.literalSegmentCount, 10)
        case .urlTemplate(let template, _): score += 25 + min(template.literalSegmentCount, 10)
        }
        if method != nil { score += 20 }
        if host != nil { score += 10 }
        score += 5 * (query.count + headers.count)
        score += 8 * body.count
        return score
    }

    /// True when every condition holds; stops at the first that does not (the request path's check).
    public func matches(_ request: HTTPRequest, method requestMethod: String? = nil) -> Bool {
        var view = RequestBody(request)
        return mismatches(request, method: requestMethod, stopAtFirst: true, body: &view).isEmpty
    }

    /// `matches` with a view of the body shared by every pattern a lookup tries: what it parses (JSON, GraphQL)
    /// is parsed once per request, not once per stub.
    public func matches(_ request: HTTPRequest, method requestMethod: String? = nil, body view: inout RequestBody)
        -> Bool
    {
        mismatches(request, method: requestMethod, stopAtFirst: true, body: &view).isEmpty
    }

    /// Every condition that does not hold, in the order path, method, host, query, headers, body.
    public func mismatches(_ request: HTTPRequest, method requestMethod: String? = nil, stopAtFirst: Bool = false)
        -> [Mismatch]
    {
        var view = RequestBody(request)
        return mismatches(request, method: requestMethod, stopAtFirst: stopAtFirst, body: &view)
    }

    /// `mismatches` with a body view shared across patterns.
    public func mismatches(
        _ request: HTTPRequest, method requestMethod: String? = nil, stopAtFirst: Bool = false,
        body view: inout RequestBody
    ) -> [Mismatch] {
        var found: [Mismatch] = []
        func note(_ mismatch: Mismatch) -> Bool {
            found.append(mismatch)
            return stopAtFirst
        }
        if let mismatch = urlMismatch(request), note(mismatch) { return found }
        let method = requestMethod ?? request.method
        if let expected = self.method, expected != method,
            note(Mismatch(field: "method", expected: expected, actual: request.method))
        {
            return found
        }
        if let expected = host, !Self.hostMatches(expected, request.host),
            note(Mismatch(field: "host", expected: expected, actual: request.host))
        {
            return found
        }
        for (name, matcher) in query {
            let values = request.queryValues(named: name)
            if !matcher.matches(values),
                note(Mismatch(field: "query", name: name, expected: matcher.explanation(values), actual: values.first))
            {
                return found
            }
        }
        for (name, matcher) in headers {
            let values = request.headers.all(named: name)
            if !matcher.matches(values),
                note(Mismatch(field: "header", name: name, expected: matcher.explanation(values), actual: values.first))
            {
                return found
            }
        }
        guard !body.isEmpty else { return found }
        // One view of the body for every matcher: its JSON is parsed once, however many conditions read it.
        for matcher in body where !matcher.matches(&view) {
            if stopAtFirst {
                let (expected, actual) = matcher.explanation(&view)
                return found + [Mismatch(field: "body", expected: expected, actual: actual)]
            }
            for (expected, actual) in matcher.differences(&view) {
                found.append(Mismatch(field: "body", expected: expected, actual: actual))
            }
        }
        return found
    }

    private func urlMismatch(_ request: HTTPRequest) -> Mismatch? {
        switch url {
        case .any:
            return nil
        case .path(let expected):
            return expected == request.path ? nil : Mismatch(field: "path", expected: expected, actual: request.path)
        case .url(let expectedPath, let expectedQuery):
            if expectedPath == request.path && Self.sameItems(expectedQuery, request.query) { return nil }
            let written = expectedQuery.isEmpty
                ? expectedPath
                : expectedPath + "?" + expectedQuery.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            return Mismatch(field: "url", expected: written, actual: request.pathAndQuery)
        case .urlPattern(let pattern):
            let text = request.pathAndQuery
            return pattern.matches(text) ? nil : Mismatch(field: "url", expected: "/\(pattern.source)/", actual: text)
        case .pathPattern(let pattern):
            return pattern.matches(request.path)
                ? nil : Mismatch(field: "path", expected: "/\(pattern.source)/", actual: request.path)
        case .pathTemplate(let template):
            return template.matches(request.path)
                ? nil : Mismatch(field: "path", expected: template.description, actual: request.path)
        case .urlTemplate(let template, let expectedQuery):
            if template.matches(request.path) && Self.sameItems(expectedQuery, request.query) { return nil }
            let written = expectedQuery.isEmpty
                ? template.source
                : template.source + "?" + expectedQuery.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            return Mismatch(field: "url", expected: written, actual: request.pathAndQuery)
        }
    }

    /// The values of the path parameters in a request the pattern matched (none for a path without parameters).
    public func pathParameters(_ request: HTTPRequest) -> PathParameters {
        url.pathTemplate?.match(request.path) ?? PathParameters()
    }

    /// Query items compared as a multiset: order does not matter, repeats do. An expected value that is the
    /// redaction placeholder stands for any value of that parameter (a recorded, redacted secret).
    static func sameItems(_ expected: [QueryItem], _ actual: [QueryItem]) -> Bool {
        guard expected.count == actual.count else { return false }
        if expected == actual { return true }
        var counts: [QueryItem: Int] = [:]
        for item in expected { counts[item, default: 0] += 1 }
        for item in actual {
            if let count = counts[item], count > 0 {
                counts[item] = count - 1
                continue
            }
            let redacted = QueryItem(name: item.name, value: Redactor.placeholder)
            guard let count = counts[redacted], count > 0 else { return false }
            counts[redacted] = count - 1
        }
        return true
    }

    /// A host written with a port must match host and port; one written without a port matches any port.
    static func hostMatches(_ expected: String, _ actual: String?) -> Bool {
        guard let actual else { return false }
        if expected.equalsIgnoringASCIICase(actual) { return true }
        guard !hasPort(expected), hasPort(actual), let colon = actual.lastIndex(of: ":") else { return false }
        return expected.equalsIgnoringASCIICase(String(actual[..<colon]))
    }

    /// `host:port` or `[v6]:port`; a bare IPv6 address in brackets has no port.
    static func hasPort(_ host: String) -> Bool {
        host.hasPrefix("[") ? host.contains("]:") : host.contains(":")
    }
}
