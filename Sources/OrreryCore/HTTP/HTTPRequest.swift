/// A request as the matchers see it: copied out of the server's buffers once, at the boundary.
public struct HTTPRequest: Sendable {
    /// Upper-case method token as received (`GET`, `PATCH`, `PROPFIND`).
    public var method: String
    /// The request target exactly as received (`/a%20b?x=1`, or `http://host/a` from a proxy client).
    public var target: String
    /// Percent-decoded path, always starting with `/`.
    public var path: String
    /// The query string as received, without `?`; empty when there is none.
    public var rawQuery: Substring
    /// The query's parameters, decoded. Made from `rawQuery` when asked for, not when the request arrives: most
    /// answers never read them, and those that read one parameter ask `queryValue(named:)`, which decodes only it.
    public var query: [QueryItem] { PercentDecoding.queryItems(rawQuery) }
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Host (and port, as written) from an absolute request target, else from the `Host` header.
    public var host: String?
    /// True when the client sent an absolute URI, as it does when it uses Orrery as its HTTP proxy.
    public var isAbsoluteForm: Bool
    /// Whether the fields as received include `X-Orrery-Session`, asked once when the request is made: a request
    /// without it belongs to its port's session, and its fields are not searched again for it.
    public var namesSession: Bool

    /// The field that names the session a request on the daemon's own port is for.
    public static let sessionHeader = "X-Orrery-Session"

    public init(method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        // Methods come upper-case from the server; only others pay for a new string.
        self.method = method.utf8.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) ? method.uppercased() : method
        self.target = target
        self.headers = headers
        self.body = body
        // Split on bytes, not Characters: this runs for every request, and the separators are ASCII.
        let utf8 = target.utf8
        var start = utf8.startIndex
        var authority: Substring?
        if utf8.first != UInt8(ascii: "/"), let colon = utf8.firstIndex(of: UInt8(ascii: ":")),
            utf8[colon...].starts(with: "://".utf8)
        {
            let authorityStart = utf8.index(colon, offsetBy: 3)
            let authorityEnd = utf8[authorityStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? utf8.endIndex
            authority = target[authorityStart..<authorityEnd]
            start = authorityEnd
        }
        isAbsoluteForm = authority != nil
        let end = utf8[start...].firstIndex(ofByte: UInt8(ascii: "#")) ?? utf8.endIndex
        let pathPart: Substring
        if let questionMark = utf8[start..<end].firstIndex(ofByte: UInt8(ascii: "?")) {
            pathPart = target[start..<questionMark]
            rawQuery = target[utf8.index(after: questionMark)..<end]
        } else {
            pathPart = target[start..<end]
            rawQuery = ""
        }
        let decodedPath = PercentDecoding.decode(pathPart)
        path = decodedPath.utf8.first == UInt8(ascii: "/") ? decodedPath : "/" + decodedPath
        // `Host` is usually the first field; the session's field is in few requests, which received fields tell
        // without a walk (see `HTTPHeaders.mayContain`).
        let hostField = headers.first(named: "Host")
        namesSession = headers.contains(Self.sessionHeader)
        if let authority {
            // Drop any user-info; keep host and port as written. On bytes: splitting by Characters ran grapheme
            // breaking over the authority of every request through a proxy or an intercepted tunnel (some 10,000
            // instructions).
            let afterUserInfo = authority.utf8.lastIndex(of: UInt8(ascii: "@")).map { authority.utf8.index(after: $0) }
            host = String(afterUserInfo.map { authority[$0...] } ?? authority)
        } else {
            host = hostField
        }
    }

    /// The target as an origin server wants it: path and query, without the scheme and host of an absolute URI.
    public var originForm: String {
        guard isAbsoluteForm, let colon = target.firstIndex(of: ":") else { return target }
        let afterAuthority = target[colon...].dropFirst(3).drop { $0 != "/" && $0 != "?" }
        if afterAuthority.isEmpty { return "/" }
        return afterAuthority.hasPrefix("?") ? "/" + afterAuthority : String(afterAuthority)
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The decoded path plus the query as received (`/users?page=2`): what `urlPattern` is matched against.
    public var pathAndQuery: String {
        rawQuery.isEmpty ? path : path + "?" + rawQuery
    }

    /// The decoded values of the parameters called `name`, in order; only those are decoded.
    public func queryValues(named name: String) -> [String] {
        PercentDecoding.queryValues(named: name, in: rawQuery)
    }

    /// The decoded value of the first parameter called `name`; nil when there is none.
    public func queryValue(named name: String) -> String? {
        PercentDecoding.queryValues(named: name, in: rawQuery, limit: 1).first
    }
}
