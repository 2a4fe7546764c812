import Foundation

/// What a request must look like: a stub's `request` section, also what `count`, `find` and `verify` look for.
///
/// ```swift
/// RequestPattern(.post, "/orders").withHeader("Content-Type", .contains("json")).withJSON(["sku": "A"])
/// ```
///
/// A URL with a scheme and a host (`https://api.example.com/users/1?page=2`) requires that host (the `Host` header,
/// or the host of a request sent through Orrery as a proxy) and that path and query exactly (`url`, the parameters
/// in any order); the scheme is not compared. A URL without a host (`/users/1`) matches on any host.
public struct RequestPattern: Sendable, CustomStringConvertible {
    /// How the request's URL is compared.
    enum Location: Sendable {
        /// Path and query exactly (`url`).
        case url(String)
        /// The path; any query (`path`).
        case path(String)
        /// A regex over the path, `?` and the query (`urlPattern`).
        case urlPattern(String)
        /// A regex over the path alone (`pathPattern`).
        case pathPattern(String)
    }

    public private(set) var method: HTTPMethod
    private(set) var host: String?
    private(set) var location: Location?
    private(set) var query: [(name: String, matcher: ValueMatcher)] = []
    private(set) var headers: [(name: String, matcher: ValueMatcher)] = []
    private(set) var body: JSON?
    /// Keys this type has no method for, written as given.
    private(set) var extra: [(key: String, value: JSON)] = []
    /// What could not be turned into the pattern; sending it fails with these.
    private(set) var problems: [String] = []

    /// Any request with this method (every request with `.any`).
    public init(_ method: HTTPMethod = .any) {
        self.method = method
    }

    /// Requests for this URL: `https://host/path?query` requires the host, `/path?query` does not; path and query
    /// are compared exactly.
    public init(_ method: HTTPMethod, _ url: String) {
        self.method = method
        guard url.contains("://") else {
            location = .url(url)
            return
        }
        guard let components = URLComponents(string: url), let host = components.percentEncodedHost, !host.isEmpty
        else {
            problems.append("'\(url)' is not a URL with a host")
            return
        }
        self.host = components.port.map { "\(host):\($0)" } ?? host
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        location = .url(components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path)
    }

    /// Requests for this path, whatever their query. `{name}` segments match any one segment where the daemon
    /// supports them (templates read them as `params.name`).
    public init(_ method: HTTPMethod, path: String) {
        self.method = method
        location = .path(path)
    }

    /// Requests whose path, `?` and query match a regex (`^/users/[0-9]+$`); Nocilla's `stubRequest(nil, regex)`.
    public init(_ method: HTTPMethod, pattern: String) {
        self.method = method
        location = .urlPattern(pattern)
    }

    /// Requests whose path alone matches a regex.
    public init(_ method: HTTPMethod, pathPattern: String) {
        self.method = method
        location = .pathPattern(pathPattern)
    }

    /// Only requests for this host (`api.example.com`, or with a port: `127.0.0.1:9001`).
    public func withHost(_ host: String) -> RequestPattern {
        var copy = self
        copy.host = host
        return copy
    }

    /// These headers, each with exactly this value (names compared without regard to case).
    public func withHeaders(_ headers: [String: String]) -> RequestPattern {
        var copy = self
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { copy.setHeader(name, .equalTo(value)) }
        return copy
    }

    /// A header that meets a condition: `withHeader("Accept", .contains("json"))`, `withHeader("X-Debug", .absent)`.
    public func withHeader(_ name: String, _ matcher: ValueMatcher) -> RequestPattern {
        var copy = self
        copy.setHeader(name, matcher)
        return copy
    }

    /// These query parameters, each with exactly this value; others may be there too.
    public func withQuery(_ parameters: [String: String]) -> RequestPattern {
        var copy = self
        for (name, value) in parameters.sorted(by: { $0.key < $1.key }) { copy.setQuery(name, .equalTo(value)) }
        return copy
    }

    /// A query parameter that meets a condition.
    public func withQueryParameter(_ name: String, _ matcher: ValueMatcher) -> RequestPattern {
        var copy = self
        copy.setQuery(name, matcher)
        return copy
    }

    /// Exactly this body text.
    public func withBody(_ text: String) -> RequestPattern {
        var copy = self
        copy.body = .string(text)
        return copy
    }

    /// Exactly these body bytes: as text when they are UTF-8, else compared byte for byte.
    public func withBody(_ data: Data) -> RequestPattern {
        if let text = String(data: data, encoding: .utf8) { return withBody(text) }
        return withBody(.binaryEqualTo(data))
    }

    /// A body that meets a condition: `.json(...)`, `.contains(...)`, `.matches(...)`, `.form(...)`.
    public func withBody(_ matcher: BodyMatcher) -> RequestPattern {
        var copy = self
        copy.body = matcher.json
        return copy
    }

    /// A JSON body equal to this value, key order ignored.
    public func withJSON(_ value: JSON) -> RequestPattern {
        withBody(.json(value))
    }

    /// A key of the `request` section this type has no method for, written as given.
    public func withField(_ key: String, _ value: JSON) -> RequestPattern {
        var copy = self
        copy.extra.removeAll { $0.key == key }
        copy.extra.append((key, value))
        return copy
    }

    private mutating func setHeader(_ name: String, _ matcher: ValueMatcher) {
        headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        headers.append((name, matcher))
    }

    private mutating func setQuery(_ name: String, _ matcher: ValueMatcher) {
        query.removeAll { $0.name == name }
        query.append((name, matcher))
    }

    /// The `request` section in the stub-file format.
    public var json: JSON {
        var members: [(key: String, value: JSON)] = []
        if !method.isAny { members.append(("method", .string(method.rawValue))) }
        if let host { members.append(("host", .string(host))) }
        switch location {
        case .url(let url): members.append(("url", .string(url)))
        case .path(let path): members.append(("path", .string(path)))
        case .urlPattern(let regex): members.append(("urlPattern", .string(regex)))
        case .pathPattern(let regex): members.append(("pathPattern", .string(regex)))
        case nil: break
        }
        if !query.isEmpty { members.append(("query", .object(query.map { ($0.name, $0.matcher.json) }))) }
        if !headers.isEmpty { members.append(("headers", .object(headers.map { ($0.name, $0.matcher.json) }))) }
        if let body { members.append(("body", body)) }
        var json = JSON.object(members)
        for (key, value) in extra { json = json.setting(key, value) }
        return json
    }

    /// `GET api.example.com/users/1`, then the other conditions as JSON: how verification failures name it.
    public var description: String {
        var text = method.isAny ? "any method" : method.rawValue
        let place: String
        switch location {
        case .url(let url): place = url
        case .path(let path): place = "\(path) (any query)"
        case .urlPattern(let regex): place = "URL matching \(regex)"
        case .pathPattern(let regex): place = "path matching \(regex)"
        case nil: place = "any URL"
        }
        text += " " + (host.map { place.hasPrefix("/") ? $0 : "\($0) " } ?? "") + place
        let others = (json.objectMembers ?? []).filter {
            !["method", "host", "url", "path", "urlPattern", "pathPattern"].contains($0.key)
        }
        if !others.isEmpty { text += " with \(JSON.object(others).encoded)" }
        return text
    }
}
