import Foundation

/// Writes native stubs as a WireMock root: one mapping file per stub under `mappings/`, large or binary bodies
/// under `__files/`. What WireMock cannot say is reported, and that stub left out.
public enum WireMockExport {
    /// A file of the root, by its path under the root.
    public struct File: Sendable {
        public var path: String
        public var bytes: [UInt8]
    }

    /// The root's files, and a line for each stub left out (its label and why).
    public static func root(from stubs: [Stub]) -> (files: [File], skipped: [String]) {
        var files: [File] = []
        var skipped: [String] = []
        var usedNames: Set<String> = []
        for stub in stubs {
            do {
                var mapping: [(String, JSONValue)] = []
                let id = UUID(uuidString: stub.id) != nil ? stub.id : nil
                if let id { mapping.append(("id", .string(id))) }
                if let name = stub.name { mapping.append(("name", .string(name))) }
                // Orrery: a priority beats none. WireMock: 5 when none is given, lower wins.
                if let priority = stub.priority { mapping.append(("priority", .int(priority))) }
                mapping.append(("request", try request(stub.request)))
                var fileName = baseName(stub, used: &usedNames)
                let (response, body) = try response(stub, fileName: &fileName)
                mapping.append(("response", response))
                if let scenario = stub.scenario {
                    mapping.append(("scenarioName", .string(scenario.name)))
                    if let state = scenario.requiredState { mapping.append(("requiredScenarioState", .string(state))) }
                    if let state = scenario.newState { mapping.append(("newScenarioState", .string(state))) }
                }
                if id == nil { mapping.append(("metadata", .object([("orreryId", .string(stub.id))]))) }
                if let body { files.append(body) }
                files.append(File(path: "mappings/\(fileName).json", bytes: Array((JSONValue.object(mapping).prettyEncoded + "\n").utf8)))
            } catch {
                skipped.append("\(stub.label): \(error.reason)")
            }
        }
        return (files, skipped)
    }

    struct Unsupported: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// A file name from the stub's name (or id), unique in the root.
    private static func baseName(_ stub: Stub, used: inout Set<String>) -> String {
        let source = stub.name ?? stub.id
        var name = String(source.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(60))
        while name.contains("--") { name = name.replacingOccurrences(of: "--", with: "-") }
        name = name.trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        if name.isEmpty { name = "stub" }
        var candidate = name
        var counter = 2
        while used.contains(candidate) {
            candidate = "\(name)-\(counter)"
            counter += 1
        }
        used.insert(candidate)
        return candidate
    }

    /// Orrery's regexes match anywhere unless anchored; WireMock's must match the whole text.
    private static func anywhere(_ pattern: String) -> String {
        "(?s:.*)(?:" + pattern + ")(?s:.*)"
    }

    private static func request(_ pattern: RequestPattern) throws(Unsupported) -> JSONValue {
        var out: [(String, JSONValue)] = []
        out.append(("method", .string(pattern.method ?? "ANY")))
        if pattern.host != nil { throw Unsupported("a host condition has no WireMock 2 equivalent") }
        switch pattern.url {
        case .any: break
        case .path(let path): out.append(("urlPath", .string(path)))
        case .url(let path, let query):
            out.append(("urlPath", .string(path)))
            // Orrery's url takes the query in any order, and no other parameter.
            guard !query.isEmpty else { break }
            var parameters: [(String, JSONValue)] = []
            for item in query {
                guard !parameters.contains(where: { $0.0 == item.name }) else { throw Unsupported("a repeated query parameter in 'url'") }
                parameters.append((item.name, .object([("equalTo", .string(item.value))])))
            }
            out.append(("queryParameters", .object(parameters)))
        case .urlPattern(let regex): out.append(("urlPattern", .string(anywhere(regex.source))))
        case .pathPattern(let regex): out.append(("urlPathPattern", .string(anywhere(regex.source))))
        case .pathTemplate(let template):
            guard !template.isPrefix else { throw Unsupported("a base path without a path of the stub's own") }
            out.append(("urlPathTemplate", .string(template.source)))
        case .urlTemplate: throw Unsupported("a url with path parameters and a query")
        }
        if !pattern.query.isEmpty {
            let existing = out.first { $0.0 == "queryParameters" }?.1.objectMembers ?? []
            let added = try pattern.query.map { entry throws(Unsupported) in (entry.0, try value(entry.1)) }
            out.removeAll { $0.0 == "queryParameters" }
            out.append(("queryParameters", .object(existing + added)))
        }
        if !pattern.headers.isEmpty {
            out.append(("headers", .object(try pattern.headers.map { entry throws(Unsupported) in (entry.0, try value(entry.1)) })))
        }
        if !pattern.body.isEmpty {
            out.append(("bodyPatterns", .array(try pattern.body.map { matcher throws(Unsupported) in try body(matcher) })))
        }
        return .object(out)
    }

    private static func value(_ matcher: ValueMatcher) throws(Unsupported) -> JSONValue {
        switch matcher {
        case .equalTo(let text): .object([("equalTo", .string(text))])
        case .contains(let text): .object([("contains", .string(text))])
        case .matches(let regex): .object([("matches", .string(anywhere(regex.source)))])
        case .doesNotMatch(let regex): .object([("doesNotMatch", .string(anywhere(regex.source)))])
        case .absent(let flag): .object([("absent", .bool(flag))])
        case .anyOf(let items): .object([("or", .array(try items.map { item throws(Unsupported) in try value(item) }))])
        case .allOf(let items): .object([("and", .array(try items.map { item throws(Unsupported) in try value(item) }))])
        case .not(let item): .object([("not", try value(item))])
        }
    }

    private static func body(_ matcher: BodyMatcher) throws(Unsupported) -> JSONValue {
        switch matcher {
        case .equalTo(let text): return .object([("equalTo", .string(text))])
        case .contains(let text): return .object([("contains", .string(text))])
        case .matches(let regex): return .object([("matches", .string(anywhere(regex.source)))])
        case .json(let expected, let options):
            var out: [(String, JSONValue)] = [("equalToJson", expected)]
            if options.ignoreArrayOrder { out.append(("ignoreArrayOrder", .bool(true))) }
            if options.ignoreExtraFields { out.append(("ignoreExtraElements", .bool(true))) }
            return .object(out)
        case .binaryEqualTo(let bytes): return .object([("binaryEqualTo", .string(Data(bytes).base64EncodedString()))])
        case .form: throw Unsupported("form body conditions have no WireMock 2 equivalent")
        case .graphQL:
            throw Unsupported("graphql body conditions have no WireMock 2 equivalent (only an extension has one)")
        case .jsonPath(let path, let condition):
            switch condition {
            case .present: return .object([("matchesJsonPath", .string(path.source))])
            case .equalTo(let value):
                let text = value.stringValue ?? value.encoded
                return .object([("matchesJsonPath", .object([("expression", .string(path.source)), ("equalTo", .string(text))]))])
            case .matches(let regex):
                return .object([("matchesJsonPath", .object([("expression", .string(path.source)), ("matches", .string(anywhere(regex.source)))]))])
            case .contains(let text):
                return .object([("matchesJsonPath", .object([("expression", .string(path.source)), ("contains", .string(text))]))])
            }
        case .anyOf(let items): return .object([("or", .array(try items.map { item throws(Unsupported) in try body(item) }))])
        case .allOf(let items): return .object([("and", .array(try items.map { item throws(Unsupported) in try body(item) }))])
        case .not(let item): return .object([("not", try body(item))])
        case .xml(let tree): return .object([("equalToXml", .string(tree.source))])
        case .xpath(let path, let condition):
            switch condition {
            case .holds: return .object([("matchesXPath", .string(path.source))])
            case .equalTo(let text):
                return .object([("matchesXPath", .object([("expression", .string(path.source)), ("equalTo", .string(text))]))])
            case .matches(let regex):
                return .object([("matchesXPath", .object([("expression", .string(path.source)), ("matches", .string(anywhere(regex.source)))]))])
            case .contains(let text):
                return .object([("matchesXPath", .object([("expression", .string(path.source)), ("contains", .string(text))]))])
            }
        }
    }

    static let faults: [Fault: String] = [
        .connectionReset: "CONNECTION_RESET_BY_PEER", .emptyResponse: "EMPTY_RESPONSE",
        .malformedResponse: "RANDOM_DATA_THEN_CLOSE", .truncatedBody: "MALFORMED_RESPONSE_CHUNK",
    ]

    /// The response, and the body file it needs (bodies over 1 KB or not UTF-8 go to `__files/`).
    private static func response(_ stub: Stub, fileName: inout String) throws(Unsupported) -> (JSONValue, File?) {
        guard stub.responses.count == 1 else { throw Unsupported("a sequence of responses (WireMock needs a scenario for that)") }
        let response = stub.response
        guard response.template == nil else { throw Unsupported("response templates are not exported yet") }
        guard response.pagination == nil else { throw Unsupported("'paginate' has no WireMock equivalent") }
        var out: [(String, JSONValue)] = [("status", .int(response.status))]
        if !response.headers.entries.isEmpty {
            var headers: [(String, JSONValue)] = []
            for (name, value) in response.headers.entries {
                if let index = headers.firstIndex(where: { $0.0.lowercased() == name.lowercased() }) {
                    let previous = headers[index].1
                    if case .array(let values) = previous {
                        headers[index].1 = .array(values + [.string(value)])
                    } else {
                        headers[index].1 = .array([previous, .string(value)])
                    }
                } else {
                    headers.append((name, .string(value)))
                }
            }
            out.append(("headers", .object(headers)))
        }
        var file: File?
        if !response.body.isEmpty {
            if response.body.count <= 1024, let text = String(validating: response.body, as: UTF8.self) {
                out.append(("body", .string(text)))
            } else {
                let type = response.headers.first(named: "Content-Type") ?? ""
                let ext = type.contains("json") ? "json" : type.contains("xml") ? "xml" : type.hasPrefix("text/") ? "txt" : "bin"
                let name = "\(fileName).\(ext)"
                file = File(path: "__files/" + name, bytes: response.body)
                out.append(("bodyFileName", .string(name)))
            }
        }
        if let fault = response.fault {
            guard let name = faults[fault] else { throw Unsupported("fault '\(fault.rawValue)' has no WireMock equivalent") }
            out.append(("fault", .string(name)))
        }
        switch response.delay {
        case nil: break
        case .fixed(let milliseconds)?: out.append(("fixedDelayMilliseconds", .int(milliseconds)))
        case .uniform(let low, let high)?:
            out.append(("delayDistribution", .object([("type", .string("uniform")), ("lower", .int(low)), ("upper", .int(high))])))
        case .lognormal(let median, let sigma)?:
            out.append(("delayDistribution", .object([
                ("type", .string("lognormal")), ("median", .number(median, text: "\(median)")), ("sigma", .number(sigma, text: "\(sigma)")),
            ])))
        }
        if let throttle = response.throttle, !response.body.isEmpty {
            let total = max(1, response.body.count * 1000 / throttle.bytesPerSecond)
            out.append(("chunkedDribbleDelay", .object([("numberOfChunks", .int(min(response.body.count, 10))), ("totalDuration", .int(total))])))
        }
        return (.object(out), file)
    }
}
