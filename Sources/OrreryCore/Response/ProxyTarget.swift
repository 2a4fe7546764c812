/// `proxy:` in a stub: the request it matches is forwarded to this base URL, its path and query appended, as
/// WireMock's `proxyBaseUrl` does.
public struct ProxyTarget: Sendable, Equatable {
    /// The base URL's origin, as the upstream client connects to it.
    public let upstream: Upstream
    /// The base URL's path (`/something`), put before the request's own as it is written: WireMock joins the two
    /// as text, so a base ending in `/` gives `//`.
    public let pathPrefix: String
    /// `addHeaders:`: set on the forwarded request, replacing the client's field of the same name.
    public var addedHeaders: [(name: String, value: String)]
    /// `removeHeaders:`: the client's fields left out of the forwarded request.
    public var removedHeaders: [String]

    /// The target for a base URL (`http://127.0.0.1:8087/something`), or nil when it is not an http(s) URL.
    public init?(baseURL: String, addedHeaders: [(name: String, value: String)] = [], removedHeaders: [String] = []) {
        let scheme: String
        if baseURL.lowercased().hasPrefix("http://") {
            scheme = "http"
        } else if baseURL.lowercased().hasPrefix("https://") {
            scheme = "https"
        } else {
            return nil
        }
        let rest = baseURL.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        let path = rest.dropFirst(authority.count).prefix { $0 != "?" && $0 != "#" }
        upstream = Upstream(scheme: scheme, hostAndPort: String(authority), environmentKey: nil, canonicalHost: nil)
        pathPrefix = String(path)
        self.addedHeaders = addedHeaders
        self.removedHeaders = removedHeaders
    }

    /// The request target sent upstream for a request's origin form (`/a?b=1` becomes `/something/a?b=1`).
    public func target(for originForm: String) -> String {
        pathPrefix.isEmpty ? originForm : pathPrefix + originForm
    }

    public static func == (left: ProxyTarget, right: ProxyTarget) -> Bool {
        left.upstream == right.upstream && left.pathPrefix == right.pathPrefix
            && left.addedHeaders.elementsEqual(right.addedHeaders) { $0.name == $1.name && $0.value == $1.value }
            && left.removedHeaders == right.removedHeaders
    }
}
