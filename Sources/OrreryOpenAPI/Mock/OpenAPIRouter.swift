import OrreryCore

/// Every operation of the served specs by method and path, built once: a request's path is compared only with the
/// templates that have as many segments, the most literal first, on its bytes in place.
struct OpenAPIRouter: Sendable {
    /// One path of one spec, with its operations by method.
    struct Route: Sendable {
        let template: OperationPath
        let spec: Int
        /// Method (upper case) and the operation's index in the spec, by method: a path has a handful, compared
        /// in place rather than hashed.
        let operations: [(method: String, index: Int)]

        func operation(_ method: String) -> Int? {
            if let found = operations.first(where: { $0.method == method }) { return found.index }
            return method == "HEAD" ? operations.first { $0.method == "GET" }?.index : nil
        }
    }

    /// What a request's path and method find.
    enum Match {
        case operation(route: Route, operation: Int, pathValues: [(name: String, value: String)])
        /// The path is the spec's, the method is not: the methods it has.
        case methodNotAllowed(allowed: [String])
        case noPath
    }

    /// Routes by their number of segments.
    private let routesBySegmentCount: [[Route]]

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
                        operations: (byTemplate[template] ?? [:]).sorted { $0.key < $1.key }.map {
                            (method: $0.key, index: $0.value)
                        }))
            }
        }
        var grouped: [[Route]] = []
        for route in routes {
            let count = route.template.segments.count
            while grouped.count <= count { grouped.append([]) }
            grouped[count].append(route)
        }
        // Stable: among equally literal templates, the spec's order (and the first spec) wins.
        routesBySegmentCount = grouped.map { list in
            list.enumerated().sorted {
                ($0.element.template.literalCount, -$0.offset) > ($1.element.template.literalCount, -$1.offset)
            }
            .map(\.element)
        }
    }

    /// The operation for a raw (still percent-encoded) path. With `endsAtQuery`, `rawPath` is a request target
    /// whose path ends at its first `?` or `#`.
    func match(method: String, rawPath: Substring, endsAtQuery: Bool = false) -> Match {
        // Over the bytes in place (a copy only for text not stored contiguously).
        let utf8 = rawPath.utf8
        if let found = utf8.withContiguousStorageIfAvailable({ match(method: method, $0, endsAtQuery: endsAtQuery) }) {
            return found
        }
        return Array(utf8).withUnsafeBufferPointer { match(method: method, $0, endsAtQuery: endsAtQuery) }
    }

    private func match(method: String, _ bytes: UnsafeBufferPointer<UInt8>, endsAtQuery: Bool) -> Match {
        // Where each segment starts, found in the one walk over the path, on the stack: a path has at most one
        // segment per byte.
        withUnsafeTemporaryAllocation(of: Int.self, capacity: bytes.count + 1) { starts in
            // The text before the first `/` is not a segment: `/a//b` has `a`, ``, `b`.
            var end = bytes.count
            var count = 0
            var isPlain = true
            for offset in 0..<bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "/") {
                    starts[count] = offset + 1
                    count += 1
                } else if endsAtQuery && (byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")) {
                    end = offset
                    break
                } else if byte == UInt8(ascii: "%") || byte >= 0x80 {
                    isPlain = false
                }
            }
            guard count < routesBySegmentCount.count else { return .noPath }
            var allowed: [String] = []
            for route in routesBySegmentCount[count] {
                guard let values = route.template.match(bytes, starts: starts, end: end, isPlain: isPlain) else {
                    continue
                }
                if let operation = route.operation(method) {
                    return .operation(route: route, operation: operation, pathValues: values)
                }
                for (name, _) in route.operations where !allowed.contains(name) { allowed.append(name) }
            }
            return allowed.isEmpty ? .noPath : .methodNotAllowed(allowed: allowed)
        }
    }
}
