import OrreryCore

/// One admin endpoint: a method and a path pattern, a one-line description, and the function that answers it.
struct AdminRoute: Sendable {
    let method: String
    let pattern: AdminPathPattern
    /// What it does, in a line: listed in the 404 for an unknown path.
    let summary: String
    let answer: @Sendable (AdminAPI, AdminCall) -> AdminReply
    /// Whether a session's own port may call it: false for what reaches beyond the session (opening, listing and
    /// ending sessions), since a session's port answers for that session alone.
    let isSessionScoped: Bool

    init(
        _ method: String, _ pattern: String, _ summary: String, isSessionScoped: Bool = true,
        answer: @escaping @Sendable (AdminAPI, AdminCall) -> AdminReply
    ) {
        self.method = method
        self.pattern = AdminPathPattern(pattern)
        self.summary = summary
        self.isSessionScoped = isSessionScoped
        self.answer = answer
    }

    /// `GET /__admin/stubs/{id}`: how the README's table and the 404 name it.
    var name: String { "\(method) \(pattern)" }
}

/// A request routed to its endpoint, with the values of the pattern's `{name}` segments.
struct AdminCall {
    let request: HTTPRequest
    let parameters: [String: String]
    /// The session the call is for: its port's, the one `X-Orrery-Session` names, or the daemon's own.
    let session: Session
    /// Whether it came through a session's own port (not the daemon's, with or without `X-Orrery-Session`).
    let isThroughSessionPort: Bool

    /// The value of a `{name}` segment; the pattern guarantees it is there for the route that declared it.
    func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }
}

/// A path pattern made of `/`-separated segments, each a literal or a `{name}` that takes any one segment.
struct AdminPathPattern: Hashable, Sendable, CustomStringConvertible {
    enum Segment: Hashable, Sendable {
        case literal(String)
        case parameter(String)
    }

    let segments: [Segment]

    init(_ text: String) {
        segments = text.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
    }

    var description: String {
        "/"
            + segments.map { segment in
                switch segment {
                case .literal(let text): text
                case .parameter(let name): "{\(name)}"
                }
            }.joined(separator: "/")
    }

    /// The parameters' values when `path` (decoded segments) fits the pattern, else nil.
    func match(_ path: [String]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, path) {
            switch segment {
            case .literal(let text): guard text == part else { return nil }
            case .parameter(let name): parameters[name] = part
            }
        }
        return parameters
    }

    /// Whether this pattern names a path more precisely than `other`: at the first segment where they differ, this
    /// one has the literal. `/stubs/reload` beats `/stubs/{id}`, so `reload` is never taken for an id.
    func isMoreSpecific(than other: AdminPathPattern) -> Bool {
        for (mine, theirs) in zip(segments, other.segments) where mine != theirs {
            if case .literal = mine, case .parameter = theirs { return true }
            return false
        }
        return false
    }
}

/// Finds the endpoint for a request in a route table. 404 and 405 come from the table alone: a path that fits no
/// pattern is unknown; a path that fits one whose routes lack the method gets the methods they have as `Allow`.
struct AdminRouter: Sendable {
    enum Resolution {
        case route(AdminRoute, parameters: [String: String])
        /// The path is known, the method is not; the methods the path has, in table order.
        case methodNotAllowed(allowed: [String])
        case notFound
    }

    let routes: [AdminRoute]

    init(_ routes: [AdminRoute]) {
        self.routes = routes
    }

    /// The route for `method` on `path` (decoded segments, `__admin` first). The most specific pattern that fits
    /// the path owns it, whatever order the table lists them in.
    func resolve(method: String, path: [String]) -> Resolution {
        var best: (pattern: AdminPathPattern, parameters: [String: String])?
        for route in routes {
            guard let parameters = route.pattern.match(path) else { continue }
            if let current = best, !route.pattern.isMoreSpecific(than: current.pattern) { continue }
            best = (route.pattern, parameters)
        }
        guard let best else { return .notFound }
        let owners = routes.filter { $0.pattern == best.pattern }
        if let route = owners.first(where: { $0.method == method }) { return .route(route, parameters: best.parameters) }
        return .methodNotAllowed(allowed: owners.map(\.method))
    }

    /// The decoded segments of a request's path: each segment is percent-decoded on its own, so an id holding an
    /// encoded `/` (`%2F`) stays one segment. Empty segments (a trailing `/`) are dropped.
    static func segments(of request: HTTPRequest) -> [String] {
        let target = request.isAbsoluteForm ? request.originForm : request.target
        let path = target.prefix { $0 != "?" && $0 != "#" }
        return path.split(separator: "/").map { PercentDecoding.decode($0) }
    }
}
