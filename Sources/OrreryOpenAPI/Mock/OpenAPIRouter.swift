import OrreryCore

/// Every operation of the served specs by method and path, built once: a request's path is compared only with the
/// templates that have as many segments, the most literal first.
struct OpenAPIRouter: Sendable {
    /// One path of one spec, with its operations by method.
    struct Route: Sendable {
        let template: OperationPath
        let spec: Int
        /// Method (upper case) to the operation's index in the spec.
        let operations: [String: Int]
    }

    /// What a request's path and method find.
    enum Match {
        case operation(route: Route, operation: Int, pathValues: [(name: String, value: String)])
        /// The path is the spec's, the method is not: the methods it has.
        case methodNotAllowed(allowed: [String])
        case noPath
    }

    private let routesBySegmentCount: [Int: [Route]]

    init(specs: [OpenAPISpec]) {
        var routes: [Route] = []
        for (specIndex, spec) in specs.enumerated() {
            var byTemplate: [String: [String: Int]] = [:]
            var order: [String] = []
            for (index, operation) in spec.operations.enumerated() {
                if byTemplate[operation.pathTemplate] == nil { order.append(operation.pathTemplate) }
                byTemplate[operation.pathTemplate, default: [:]][operation.method] = index
            }
            for template in order {
                routes.append(
                    Route(
                        template: OperationPath(basePath: spec.basePath, template: template), spec: specIndex,
                        operations: byTemplate[template] ?? [:]))
            }
        }
        var grouped: [Int: [Route]] = [:]
        for route in routes { grouped[route.template.segments.count, default: []].append(route) }
        // Stable: among equally literal templates, the spec's order (and the first spec) wins.
        routesBySegmentCount = grouped.mapValues { list in
            list.enumerated().sorted {
                ($0.element.template.literalCount, -$0.offset) > ($1.element.template.literalCount, -$1.offset)
            }
            .map(\.element)
        }
    }

    func match(method: String, rawPath: Substring) -> Match {
        let raw = Self.segments(rawPath)
        guard let candidates = routesBySegmentCount[raw.count] else { return .noPath }
        var allowed: [String] = []
        for route in candidates {
            guard let values = route.template.match(raw) else { continue }
            if let operation = route.operations[method] ?? (method == "HEAD" ? route.operations["GET"] : nil) {
                return .operation(route: route, operation: operation, pathValues: values)
            }
            for name in route.operations.keys.sorted() where !allowed.contains(name) { allowed.append(name) }
        }
        return allowed.isEmpty ? .noPath : .methodNotAllowed(allowed: allowed)
    }

    /// The path's segments after the first `/` (`/a//b` → `a`, ``, `b`), split on bytes: `/` is ASCII, so every
    /// index found is a character's, and no Character is formed.
    static func segments(_ rawPath: Substring) -> [Substring] {
        let utf8 = rawPath.utf8
        // Over the contiguous bytes a native string has; else stepping its indices.
        let split: [Substring]? = utf8.withContiguousStorageIfAvailable { bytes in
            var segments: [Substring] = []
            // Room for the usual path at once, rather than growing the array segment by segment.
            segments.reserveCapacity(8)
            // Nil until the first `/`: the text before it is not a segment.
            var start: Int?
            for offset in bytes.indices where bytes[offset] == UInt8(ascii: "/") {
                if let start {
                    segments.append(
                        rawPath[
                            utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: offset)
                        ])
                }
                start = offset + 1
            }
            if let start { segments.append(rawPath[utf8.index(utf8.startIndex, offsetBy: start)...]) }
            return segments
        }
        return split ?? Array(rawPath.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
    }
}
