import Foundation

// The response keys the server carries out per request: `delay`, `throttle`, `fault` and `paginate`.
extension StubDecoder {
    static let delayKinds = ["uniform", "lognormal"]
    static let lognormalKeys = ["median", "sigma"]
    static let throttleKeys = ["bytesPerSecond"]
    static let paginateKeys = [
        "items", "collectionKeyPath", "perPage", "pageParameter", "queryParameter", "perPageParameter", "firstPage",
    ]

    /// `delay: 200`, `{ uniform: [min, max] }` or `{ lognormal: { median, sigma } }`, in milliseconds.
    mutating func decodeDelay(_ node: SourceNode) -> Delay? {
        let limit = Delay.maximumMilliseconds
        switch node.value {
        case .number:
            guard let milliseconds = integer(node, "delay", range: 0...limit) else { return nil }
            return milliseconds > 0 ? .fixed(milliseconds: milliseconds) : nil
        case .object(let members):
            guard members.count == 1, let member = members.first else {
                fail(node.line, "'delay' takes one distribution: { uniform: [min, max] } or { lognormal: { median, sigma } }")
                return nil
            }
            switch member.key {
            case "uniform":
                guard case .array(let bounds) = member.value.value, bounds.count == 2 else {
                    fail(member.value.line, "'uniform' must be a list of two whole numbers of milliseconds, [min, max]")
                    return nil
                }
                guard let low = integer(bounds[0], "uniform minimum", range: 0...limit),
                    let high = integer(bounds[1], "uniform maximum", range: 0...limit)
                else { return nil }
                guard low <= high else {
                    fail(member.value.line, "'uniform' [\(low), \(high)]: the minimum must not be above the maximum")
                    return nil
                }
                return .uniform(min: low, max: high)
            case "lognormal":
                guard case .object(let parameters) = member.value.value else {
                    fail(member.value.line, "'lognormal' must be a mapping { median: milliseconds, sigma: spread }")
                    return nil
                }
                let errorCount = errors.count
                checkKeys(parameters, allowed: Self.lognormalKeys, in: "'lognormal'")
                guard errors.count == errorCount else { return nil }
                guard let medianNode = member.value["median"], let sigmaNode = member.value["sigma"] else {
                    fail(member.value.line, "'lognormal' needs both 'median' (milliseconds) and 'sigma'")
                    return nil
                }
                guard let median = number(medianNode, "median", range: 0...Double(limit)),
                    let sigma = number(sigmaNode, "sigma", range: 0...10)
                else { return nil }
                guard median > 0 else {
                    fail(medianNode.line, "'median' must be above 0 milliseconds")
                    return nil
                }
                return .lognormal(median: median, sigma: sigma)
            default:
                fail(member.keyLine, "unknown delay '\(member.key)'\(Suggestion.hint(for: member.key, in: Self.delayKinds)) (use uniform or lognormal, or a number of milliseconds)")
                return nil
            }
        default:
            fail(node.line, "'delay' must be milliseconds, { uniform: [min, max] } or { lognormal: { median, sigma } }, not \(node.kindName)")
            return nil
        }
    }

    /// `throttle: { bytesPerSecond: N }`.
    mutating func decodeThrottle(_ node: SourceNode) -> Throttle? {
        guard case .object(let members) = node.value else {
            fail(node.line, "'throttle' must be a mapping such as { bytesPerSecond: 2048 }, not \(node.kindName)")
            return nil
        }
        let errorCount = errors.count
        checkKeys(members, allowed: Self.throttleKeys, in: "'throttle'")
        guard errors.count == errorCount else { return nil }
        guard let rate = node["bytesPerSecond"] else {
            fail(node.line, "'throttle' needs 'bytesPerSecond'")
            return nil
        }
        return integer(rate, "bytesPerSecond", range: 1...1_000_000_000).map { Throttle(bytesPerSecond: $0) }
    }

    /// `fault: connectionReset` and the other `Fault` names.
    mutating func decodeFault(_ node: SourceNode) -> Fault? {
        let names = Fault.allCases.map(\.rawValue)
        guard let text = string(node, "fault") else { return nil }
        if let fault = Fault(rawValue: text) { return fault }
        fail(node.line, "unknown fault '\(text)'\(Suggestion.hint(for: text, in: names)) (use \(names.joined(separator: ", ")))")
        return nil
    }

    /// `paginate: { items, collectionKeyPath, perPage, pageParameter, queryParameter, perPageParameter, firstPage }`.
    mutating func decodePagination(_ node: SourceNode) -> Pagination? {
        guard case .object(let members) = node.value else {
            fail(node.line, "'paginate' must be a mapping with 'items', not \(node.kindName)")
            return nil
        }
        let errorCount = errors.count
        checkKeys(members, allowed: Self.paginateKeys, in: "'paginate'")
        var keyPath: [String] = []
        if let pathNode = node["collectionKeyPath"], let text = string(pathNode, "collectionKeyPath") {
            keyPath = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if keyPath.contains(where: \.isEmpty) {
                fail(pathNode.line, "'collectionKeyPath' '\(text)' must be a name, or names joined by dots (data.items)")
            }
        }
        var items: [JSONValue] = []
        if let itemsNode = node["items"] {
            items = paginationItems(itemsNode, keyPath: keyPath) ?? []
        } else {
            fail(node.line, "'paginate' needs 'items': a list, or { bodyFile: file.json }")
        }
        var pagination = Pagination(items: items, collectionKeyPath: keyPath)
        if let value = node["perPage"], let perPage = integer(value, "perPage", range: 1...100_000) { pagination.perPage = perPage }
        if let value = node["firstPage"], let first = integer(value, "firstPage", range: 0...1_000_000) { pagination.firstPage = first }
        for (key, path) in [
            ("pageParameter", \Pagination.pageParameter), ("queryParameter", \Pagination.queryParameter),
            ("perPageParameter", \Pagination.perPageParameter),
        ] {
            guard let value = node[key], let name = string(value, key) else { continue }
            guard !name.isEmpty else {
                fail(value.line, "'\(key)' must name a query parameter")
                continue
            }
            pagination[keyPath: path] = name
        }
        let names = [pagination.pageParameter, pagination.queryParameter, pagination.perPageParameter]
        if Set(names).count < names.count {
            fail(node.line, "'paginate' uses one query parameter for two things (\(names.joined(separator: ", ")))")
        }
        return errors.count == errorCount ? pagination : nil
    }

    /// The collection: an inline list, or a JSON body file holding a list (or an object with the list at
    /// `collectionKeyPath`, as an API's recorded answer has it).
    private mutating func paginationItems(_ node: SourceNode, keyPath: [String]) -> [JSONValue]? {
        switch node.value {
        case .array(let items):
            return items.map(\.jsonValue)
        case .object(let members):
            checkKeys(members, allowed: ["bodyFile"], in: "'items'")
            guard let file = node["bodyFile"], let relative = string(file, "bodyFile") else {
                fail(node.line, "'items' must be a list, or { bodyFile: file.json }")
                return nil
            }
            guard let bytes = readBodyFile(relative, line: file.line) else { return nil }
            let value: JSONValue
            do {
                value = try JSONValue.parse(bytes)
            } catch {
                fail(file.line, "bodyFile '\(relative)' is not JSON (line \(error.line): \(error.message))")
                return nil
            }
            if case .array(let items) = value { return items }
            var found = value
            for key in keyPath {
                guard let next = found[key] else { break }
                found = next
            }
            if !keyPath.isEmpty, case .array(let items) = found { return items }
            fail(file.line, "bodyFile '\(relative)' must hold a JSON list\(keyPath.isEmpty ? "" : ", or an object with one at '\(keyPath.joined(separator: "."))'")")
            return nil
        default:
            fail(node.line, "'items' must be a list, or { bodyFile: file.json }, not \(node.kindName)")
            return nil
        }
    }

    mutating func number(_ node: SourceNode, _ what: String, range: ClosedRange<Double>) -> Double? {
        guard case .number(let value, _) = node.value else {
            fail(node.line, "'\(what)' must be a number")
            return nil
        }
        guard range.contains(value) else {
            fail(node.line, "'\(what)' \(value) is outside \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return value
    }
}
