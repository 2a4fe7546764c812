import Foundation

/// Writes stubs as a Hoverfly simulation (schema v5), the inverse of `HoverflyImport` for what both can say.
///
/// Stubs are written in the order Orrery tries them (priority, then specificity, then load order). A response
/// sequence becomes pairs on a `sequence:` state key; a scenario becomes a state key (`sequence:NAME` when a stub
/// needs or sets `Started`, which Hoverfly has only for sequence keys, as "1"). Conditions Hoverfly has no matcher
/// for (`absent`, `doesNotMatch`, `anyOf`, `not`, `binaryEqualTo`, a JSONPath with a value), faults, pagination and
/// uniform delays make a stub one that is left out, with the reason.
public enum HoverflyExport {
    public struct Result: Sendable {
        public var simulation: JSONValue
        public var exported: Int
        public var skipped: [StubImport.Problem]
        public var warnings: [StubImport.Problem]
    }

    public static func simulation(of stubs: [Stub]) -> Result {
        let ordered = stubs.enumerated().sorted { a, b in
            switch (a.element.priority, b.element.priority) {
            case (let x?, let y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default:
                let sa = a.element.request.specificity, sb = b.element.request.specificity
                return sa != sb ? sa > sb : a.offset < b.offset
            }
        }.map(\.element)
        // A scenario that needs or sets Started is a sequence key in Hoverfly, whose first state is "1".
        var startedScenarios = Set<String>()
        for stub in stubs {
            if let rule = stub.scenario, rule.requiredState == "Started" {
                startedScenarios.insert(rule.name)
            }
        }
        var pairs: [JSONValue] = []
        var skipped: [StubImport.Problem] = []
        var warnings: [StubImport.Problem] = []
        var exported = 0
        var prioritized = 0
        for stub in ordered {
            let place = "stub \(stub.label)"
            do throws(ImportError) {
                let request = try requestFields(stub.request)
                var state: (key: String, required: String?, next: String?)?
                if let rule = stub.scenario {
                    let key = startedScenarios.contains(rule.name) && !rule.name.contains("sequence:") ? "sequence:" + rule.name : rule.name
                    let map = { (value: String) in key.contains("sequence:") && value == "Started" ? "1" : value }
                    state = (key, rule.requiredState.map(map), rule.newState.map(map))
                }
                if stub.priority != nil { prioritized += 1 }
                let responses = try stub.responses.map { (response) throws(ImportError) in try self.response(response) }
                if responses.count == 1, let only = responses.first {
                    pairs.append(pair(request, only, state: state))
                } else {
                    guard state == nil else {
                        throw ImportError("a response sequence in a scenario has no equivalent: Hoverfly's sequences are state keys too")
                    }
                    let key = "sequence:" + stub.id
                    for (position, response) in responses.enumerated() {
                        let next = position + 1 < responses.count ? String(position + 2) : nil
                        pairs.append(pair(request, response, state: (key, String(position + 1), next)))
                    }
                }
                exported += 1
            } catch {
                skipped.append(StubImport.Problem(place: place, reason: error.description))
            }
        }
        if prioritized > 0 {
            warnings.append(StubImport.Problem(
                place: "\(prioritized) stub(s)",
                reason: "priorities are not kept: Hoverfly picks the pair that matches on the most fields, then the first"))
        }
        let simulation: JSONValue = .object([
            ("data", .object([("pairs", .array(pairs)), ("globalActions", .object([("delays", .array([])), ("delaysLogNormal", .array([]))]))])),
            ("meta", .object([("schemaVersion", .string("v5")), ("hoverflyVersion", .string("v1.5.0")), ("timeExported", .string(timestamp()))])),
        ])
        return Result(simulation: simulation, exported: exported, skipped: skipped, warnings: warnings)
    }

    private static func pair(
        _ request: [(String, JSONValue)], _ response: [(String, JSONValue)], state: (key: String, required: String?, next: String?)?
    ) -> JSONValue {
        var request = request
        var response = response
        if let state {
            if let required = state.required { request.append(("requiresState", .object([(state.key, .string(required))]))) }
            if state.next == "Started" && !state.key.contains("sequence:") {
                // Back to the start: Hoverfly's state key is removed, as it was before anything set it.
                response.append(("removesState", .array([.string(state.key)])))
            } else if let next = state.next {
                response.append(("transitionsState", .object([(state.key, .string(next))])))
            }
        }
        return .object([("request", .object(request)), ("response", .object(response))])
    }

    private static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date())
    }

    static func matcher(_ kind: String, _ value: JSONValue) -> JSONValue {
        .object([("matcher", .string(kind)), ("value", value)])
    }

    /// A regex that matches a literal text, in the syntax Go's regexp and ICU share.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\.+*?()|[]{}^$".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    // MARK: Request

    static func requestFields(_ pattern: RequestPattern) throws(ImportError) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = []
        if let method = pattern.method { fields.append(("method", .array([matcher("exact", .string(method))]))) }
        if let host = pattern.host { fields.append(("destination", .array([matcher("exact", .string(host))]))) }
        var query: [(String, JSONValue)] = []
        switch pattern.url {
        case .any: break
        case .path(let path): fields.append(("path", .array([matcher("exact", .string(path))])))
        case .url(let path, let items):
            fields.append(("path", .array([matcher("exact", .string(path))])))
            query = exactQuery(items)
        case .pathPattern(let regex): fields.append(("path", .array([matcher("regex", .string(regex.source))])))
        case .urlPattern(let regex):
            throw ImportError("its urlPattern /\(regex.source)/ spans the path and the query, which Hoverfly matches apart")
        case .pathTemplate(let template): fields.append(("path", .array([matcher("regex", .string(templateRegex(template)))])))
        case .urlTemplate(let template, let items):
            fields.append(("path", .array([matcher("regex", .string(templateRegex(template)))])))
            query = exactQuery(items)
        }
        for (name, value) in pattern.query { query.append((name, .array(try valueMatchers(value, what: "query parameter \(name)")))) }
        if !query.isEmpty { fields.append(("query", .object(query))) }
        var headers: [(String, JSONValue)] = []
        for (name, value) in pattern.headers { headers.append((name, .array(try valueMatchers(value, what: "header \(name)")))) }
        if !headers.isEmpty { fields.append(("headers", .object(headers))) }
        var body: [JSONValue] = []
        for condition in pattern.body { body += try bodyMatchers(condition) }
        if !body.isEmpty { fields.append(("body", .array(body))) }
        return fields
    }

    private static func exactQuery(_ items: [QueryItem]) -> [(String, JSONValue)] {
        var grouped: [(String, [String])] = []
        for item in items {
            if let index = grouped.firstIndex(where: { $0.0 == item.name }) { grouped[index].1.append(item.value) } else { grouped.append((item.name, [item.value])) }
        }
        // Hoverfly compares a parameter's values joined with ';'.
        return grouped.map { ($0.0, .array([matcher("exact", .string($0.1.joined(separator: ";")))])) }
    }

    /// `/users/{id}` as `^/users/[^/]+$`.
    static func templateRegex(_ template: PathTemplate) -> String {
        var out = "^"
        for segment in template.description.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            out += "/"
            if segment.hasPrefix("{") && segment.hasSuffix("}") { out += "[^/]+" } else { out += escaped(String(segment)) }
        }
        return out + "$"
    }

    static func valueMatchers(_ value: ValueMatcher, what: String) throws(ImportError) -> [JSONValue] {
        switch value {
        case .equalTo(let text): return [matcher("exact", .string(text))]
        case .matches(let pattern): return [matcher("regex", .string(pattern.source))]
        case .contains(let text): return [matcher("glob", .string("*" + text + "*"))]
        case .allOf(let inner):
            var out: [JSONValue] = []
            for matcher in inner { out += try valueMatchers(matcher, what: what) }
            return out
        default:
            throw ImportError("the \(what) condition '\(value)' has no Hoverfly matcher")
        }
    }

    static func bodyMatchers(_ condition: BodyMatcher) throws(ImportError) -> [JSONValue] {
        switch condition {
        case .equalTo(let text): return [matcher("exact", .string(text))]
        case .matches(let pattern): return [matcher("regex", .string(pattern.source))]
        case .contains(let text): return [matcher("glob", .string("*" + text + "*"))]
        case .json(let value, let options):
            if options.ignoreArrayOrder { throw ImportError("its JSON body condition ignores array order, which Hoverfly cannot") }
            return [matcher(options.ignoreExtraFields ? "jsonPartial" : "json", .string(value.encoded))]
        case .jsonPath(let path, .present): return [matcher("jsonpath", .string(path.source))]
        case .xml(let tree): return [matcher("xml", .string(tree.source))]
        case .xpath(let path, .holds): return [matcher("xpath", .string(path.source))]
        case .form(let fields):
            var out: [(String, JSONValue)] = []
            for (name, value) in fields { out.append((name, .array(try valueMatchers(value, what: "form field \(name)")))) }
            return [matcher("form", .object(out))]
        case .allOf(let inner):
            var out: [JSONValue] = []
            for matcher in inner { out += try bodyMatchers(matcher) }
            return out
        default:
            throw ImportError("its body condition '\(condition)' has no Hoverfly matcher")
        }
    }

    // MARK: Response

    static func response(_ response: ResponseDefinition) throws(ImportError) -> [(String, JSONValue)] {
        if let fault = response.fault { throw ImportError("its fault \(fault.rawValue) has no equivalent in Hoverfly") }
        if response.pagination != nil { throw ImportError("its paginated answer has no equivalent in Hoverfly") }
        var out: [(String, JSONValue)] = [("status", .int(response.status))]
        var headers: [(String, JSONValue)] = []
        for (name, value) in response.headers.entries {
            if let index = headers.firstIndex(where: { $0.0.lowercased() == name.lowercased() }), case .array(let list) = headers[index].1 {
                headers[index].1 = .array(list + [.string(value)])
            } else {
                headers.append((name, .array([.string(value)])))
            }
        }
        var body = response.body
        var isTemplated = false
        if let template = response.template {
            guard let source = template.body?.source else {
                throw ImportError("its templated headers have no equivalent: Hoverfly templates the body only")
            }
            body = Array(try handlebars(source).utf8)
            isTemplated = true
        }
        if let text = String(validating: body, as: UTF8.self) {
            out += [("body", .string(text)), ("encodedBody", .bool(false))]
        } else {
            out += [("body", .string(Data(body).base64EncodedString())), ("encodedBody", .bool(true))]
        }
        out.append(("headers", .object(headers)))
        out.append(("templated", .bool(isTemplated)))
        switch response.delay {
        case .fixed(let milliseconds)?: out.append(("fixedDelay", .int(milliseconds)))
        case .lognormal(let median, let sigma)?:
            let mean = median * exp(sigma * sigma / 2)
            out.append(("logNormalDelay", .object([("min", .int(0)), ("max", .int(600_000)), ("mean", .int(Int(mean.rounded()))), ("median", .int(Int(median.rounded())))])))
        case .uniform?: throw ImportError("its uniform delay has no equivalent in Hoverfly (fixedDelay or logNormalDelay)")
        case nil: break
        }
        return out
    }

    /// An Orrery template as Hoverfly's Handlebars; sections and names without an equivalent refuse it.
    static func handlebars(_ source: String) throws(ImportError) -> String {
        var out = ""
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            var inner = rest[open.upperBound...]
            let isTriple = inner.hasPrefix("{")
            if isTriple { inner = inner.dropFirst() }
            guard let close = inner.range(of: isTriple ? "}}}" : "}}") else { throw ImportError("its template has an unclosed tag") }
            var name = String(inner[..<close.lowerBound].trimmingSpaces)
            if name.hasPrefix("&") { name = String(name.dropFirst()).trimmingCharacters(in: .whitespaces) }
            out += "{{ " + (try helper(name)) + " }}"
            rest = inner[close.upperBound...]
        }
        return out + rest
    }

    private static func helper(_ name: String) throws(ImportError) -> String {
        let parts = name.split(separator: ".").map(String.init)
        switch name {
        case "request.method": return "Request.Method"
        case "request.body": return "Request.Body"
        case "uuid": return "randomUuid"
        case "now": return "now '' ''"
        default: break
        }
        if parts.count == 3, parts[0] == "request" {
            switch parts[1] {
            case "pathSegments": return "Request.Path.[\(parts[2])]"
            case "query": return "Request.QueryParam.\(parts[2])"
            case "headers": return "Request.Header.\(parts[2])"
            default: break
            }
        }
        if parts.count >= 3, parts[0] == "request", parts[1] == "json" {
            let path = parts.dropFirst(2).map { Int($0) != nil ? "[\($0)]" : "." + $0 }.joined()
            return "Request.Body 'jsonpath' '$\(path)'"
        }
        throw ImportError("its template tag {{\(name)}} has no Hoverfly equivalent")
    }
}
