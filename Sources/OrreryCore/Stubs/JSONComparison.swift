/// JSON equality loosened by `ignoreExtraFields` and `ignoreArrayOrder` (WireMock's `equalToJson` options).
struct JSONComparison {
    let options: JSONMatchOptions
    /// A string in the expected value that stands for any value (the redaction placeholder).
    let wildcard: String?

    func matches(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
        switch (expected, actual) {
        case (.string(let text), _) where text == wildcard:
            return true
        case (.object(let wanted), .object(let given)):
            guard options.ignoreExtraFields || wanted.count == given.count else { return false }
            var remaining = [String: JSONValue](given, uniquingKeysWith: { _, last in last })
            for (key, value) in wanted {
                guard let other = remaining.removeValue(forKey: key), matches(value, other) else { return false }
            }
            return options.ignoreExtraFields || remaining.isEmpty
        case (.array(let wanted), .array(let given)):
            guard wanted.count == given.count else { return false }
            if zip(wanted, given).allSatisfy({ matches($0, $1) }) { return true }
            return options.ignoreArrayOrder && matchesInAnyOrder(wanted, given)
        case (.array, _), (.object, _):
            return false
        default:
            return JSONValue.matches(expected, actual, wildcard: wildcard)
        }
    }

    /// Whether each expected item can be paired with its own actual item (a bipartite matching, found by augmenting
    /// paths: a greedy pairing can fail where a loose item takes the only partner of a stricter one).
    private func matchesInAnyOrder(_ wanted: [JSONValue], _ given: [JSONValue]) -> Bool {
        var fits = [[Bool?]](repeating: [Bool?](repeating: nil, count: given.count), count: wanted.count)
        var partner = [Int?](repeating: nil, count: given.count)

        func fit(_ i: Int, _ j: Int) -> Bool {
            if let known = fits[i][j] { return known }
            let result = matches(wanted[i], given[j])
            fits[i][j] = result
            return result
        }

        func augment(_ i: Int, _ visited: inout [Bool]) -> Bool {
            for j in given.indices where !visited[j] && fit(i, j) {
                visited[j] = true
                if let other = partner[j] {
                    guard augment(other, &visited) else { continue }
                }
                partner[j] = i
                return true
            }
            return false
        }

        for i in wanted.indices {
            var visited = [Bool](repeating: false, count: given.count)
            guard augment(i, &visited) else { return false }
        }
        return true
    }
}
