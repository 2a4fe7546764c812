import Foundation

/// Turns a parsed stub file into `Stub`s, reporting every problem with its line.
///
/// A file holds one stub, a list of stubs, or `{ base, stubs }`, where `base` (Astral's shared request
/// configuration) gives a host, a path prefix and required headers that each stub extends.
public struct StubDecoder {
    /// The file name errors are reported under.
    public let displayPath: String
    /// Where `bodyFile`s are read from; it refuses a file outside the stubs folder.
    public let source: any StubSource
    /// The stub file's folder, relative to the source's root: `bodyFile` paths are relative to it.
    public let folder: String
    /// Makes the id of the stub at a position in the file.
    public let makeID: (Int) -> String
    /// `--max-body-file`: a larger body file is refused, before it is read.
    public var maximumBodyFileBytes = StubDecoder.defaultMaximumBodyFileBytes

    public static let defaultMaximumBodyFileBytes = 256 * 1024 * 1024

    public private(set) var errors: [SourceError] = []
    /// Response header lists already made: a file of 1,000 stubs answering `Content-Type: application/json`
    /// holds that list (and its 16-byte value) once instead of 1,000 times.
    var internedHeaders: Set<HTTPHeaders> = []

    public init(displayPath: String, source: any StubSource, folder: String, makeID: @escaping (Int) -> String) {
        self.displayPath = displayPath
        self.source = source
        self.folder = folder
        self.makeID = makeID
    }

    static let stubKeys = [
        "name", "id", "priority", "request", "response", "responses", "scenario", "requiredState", "newState",
    ]
    static let requestKeys = [
        "method", "host", "path", "url", "urlPattern", "pathPattern", "query", "headers", "body", "websocket",
    ]
    static let responseKeys = [
        "status", "headers", "body", "json", "bodyFile", "delay", "encoding", "template", "throttle", "fault", "paginate",
        "websocket", "events", "keepOpen",
        "trailers", "proxy",
    ]
    static let baseKeys = ["host", "path", "headers"]
    static let fileKeys = ["base", "stubs"]

    struct Base {
        var host: String?
        var path = ""
        /// The path as a template, when it has parameters (`/orgs/{org}`).
        var pathTemplate: PathTemplate?
        var headers: [(String, ValueMatcher)] = []
        var definition: [(String, JSONValue)] = []
    }

    /// Decodes a whole file; check `errors` afterwards.
    public mutating func decodeFile(_ root: SourceNode) -> [Stub] {
        switch root.value {
        case .array(let items):
            return decodeList(items, base: Base())
        case .object(let members):
            if root["stubs"] != nil || root["base"] != nil {
                checkKeys(members, allowed: Self.fileKeys, in: "a stub file")
                var base = Base()
                if let baseNode = root["base"] { base = decodeBase(baseNode) }
                guard let list = root["stubs"] else {
                    fail(root.line, "'base' needs a 'stubs' list next to it")
                    return []
                }
                guard case .array(let items) = list.value else {
                    fail(list.line, "'stubs' must be a list, not \(list.kindName)")
                    return []
                }
                return decodeList(items, base: base)
            }
            return decodeStub(root, index: 0, base: Base()).map { [$0] } ?? []
        case .null:
            fail(root.line, "the file is empty; expected a stub, a list of stubs, or { base, stubs }")
            return []
        default:
            fail(root.line, "expected a stub, a list of stubs, or { base, stubs }, not \(root.kindName)")
            return []
        }
    }

    /// Decodes one stub (the admin API's body), outside any file.
    public mutating func decodeSingle(_ node: SourceNode) -> Stub? {
        decodeStub(node, index: 0, base: Base())
    }

    /// Decodes a `request` section alone: the pattern the admin API counts and finds journaled requests with.
    public mutating func decodeRequestPattern(_ node: SourceNode) -> RequestPattern {
        decodeRequest(node, base: Base())
    }

    private mutating func decodeList(_ items: [SourceNode], base: Base) -> [Stub] {
        var stubs: [Stub] = []
        for (index, item) in items.enumerated() {
            if let stub = decodeStub(item, index: index, base: base) { stubs.append(stub) }
        }
        return stubs
    }

    private mutating func decodeBase(_ node: SourceNode) -> Base {
        var base = Base()
        guard case .object(let members) = node.value else {
            fail(node.line, "'base' must be a mapping, not \(node.kindName)")
            return base
        }
        checkKeys(members, allowed: Self.baseKeys, in: "'base'")
        if let host = node["host"] {
            base.host = string(host, "base host")
        }
        if let path = node["path"], let text = string(path, "base path") {
            var prefix = text
            if !prefix.hasPrefix("/") { prefix = "/" + prefix }
            while prefix.hasSuffix("/") { prefix.removeLast() }
            base.path = prefix
            do {
                base.pathTemplate = try PathTemplate.parse(prefix)
            } catch {
                fail(path.line, "base path '\(text)': \(error.message)")
            }
        }
        if let headers = node["headers"] {
            base.headers = valueMatchers(headers, what: "header")
        }
        base.definition = members.map { ($0.key, $0.value.jsonValue) }
        return base
    }

    private mutating func decodeStub(_ node: SourceNode, index: Int, base: Base) -> Stub? {
        guard case .object(let members) = node.value else {
            fail(node.line, "a stub must be a mapping with 'request' and 'response', not \(node.kindName)")
            return nil
        }
        let errorCount = errors.count
        checkKeys(members, allowed: Self.stubKeys, in: "a stub")
        let name = node["name"].flatMap { string($0, "name") }
        var priority: Int?
        if let node = node["priority"] { priority = integer(node, "priority", range: Int.min...Int.max) }
        // A stub without a request section still takes the base's host, path prefix and headers.
        let request = decodeRequest(node["request"] ?? SourceNode(.object([]), line: node.line), base: base)
        let scenario = decodeScenario(node)
        // Templates may name the path's parameters; loading checks each name against them.
        let scope = TemplateScope(parameterNames: request.url.pathTemplate?.parameterNames ?? [])
        var responses: [ResponseDefinition] = []
        checkExclusive(members, ["response", "responses"])
        if let responseNode = node["response"] {
            responses = [decodeResponse(responseNode, scope: scope)]
        } else if let list = node["responses"] {
            // A sequence: answered in order, the last one repeating (a recording of a route that changed).
            if case .array(let items) = list.value, !items.isEmpty {
                responses = items.map { decodeResponse($0, scope: scope) }
            } else {
                fail(list.line, "'responses' must be a list of one or more responses, not \(list.kindName)")
            }
        } else {
            fail(node.line, "the stub has no 'response'")
        }
        guard errors.count == errorCount, let response = responses.first else { return nil }
        var definition = node.jsonValue
        if !base.definition.isEmpty, case .object(var stubMembers) = definition {
            stubMembers.insert(("base", .object(base.definition)), at: 0)
            definition = .object(stubMembers)
        }
        let id = node["id"].flatMap { $0.scalarText } ?? makeID(index)
        return Stub(
            id: id, name: name, location: SourceLocation(file: displayPath, line: node.line), priority: priority,
            request: request, response: response, sequel: Array(responses.dropFirst()), definition: definition,
            scenario: scenario)
    }

    /// `scenario`, `requiredState` and `newState` on a stub.
    private mutating func decodeScenario(_ node: SourceNode) -> ScenarioRule? {
        let name = node["scenario"].flatMap { string($0, "scenario") }
        let required = node["requiredState"].flatMap { string($0, "requiredState") }
        let new = node["newState"].flatMap { string($0, "newState") }
        guard let name else {
            for key in ["requiredState", "newState"] {
                if let value = node[key] { fail(value.line, "'\(key)' needs a 'scenario' beside it, naming the scenario") }
            }
            return nil
        }
        if name.isEmpty, let line = node["scenario"]?.line { fail(line, "'scenario' must name a scenario") }
        for (key, value) in [("requiredState", required), ("newState", new)] where value?.isEmpty == true {
            fail(node[key]?.line ?? node.line, "'\(key)' must name a state (every scenario starts in '\(ScenarioStates.started)')")
        }
        return ScenarioRule(name: name, requiredState: required, newState: new)
    }

    private mutating func decodeRequest(_ node: SourceNode, base: Base) -> RequestPattern {
        var pattern = RequestPattern(host: base.host, headers: base.headers)
        guard case .object(let members) = node.value else {
            fail(node.line, "'request' must be a mapping, not \(node.kindName)")
            return pattern
        }
        checkKeys(members, allowed: Self.requestKeys, in: "'request'")
        if let method = node["method"], let text = string(method, "method") {
            let upper = text.uppercased()
            if upper == "ANY" || upper == "*" {
                pattern.method = nil
            } else if upper.isEmpty || !upper.utf8.allSatisfy(Self.isTokenByte) {
                fail(method.line, "'\(text)' is not an HTTP method")
            } else {
                pattern.method = upper
            }
        }
        if let host = node["host"] { pattern.host = string(host, "host") }
        checkExclusive(members, ["path", "url", "urlPattern", "pathPattern"])
        if let path = node["path"], let text = string(path, "path") {
            pattern.url = urlMatcher(path: text, query: nil, base: base, line: path.line)
        } else if let url = node["url"], let text = string(url, "url") {
            let parts = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            let query = parts.count > 1 ? PercentDecoding.queryItems(parts[1]) : []
            pattern.url = urlMatcher(path: String(parts[0]), query: query, base: base, line: url.line)
        } else if let regex = node["urlPattern"] {
            if let compiled = self.pattern(regex, "urlPattern") { pattern.url = .urlPattern(compiled) }
        } else if let regex = node["pathPattern"] {
            if let compiled = self.pattern(regex, "pathPattern") { pattern.url = .pathPattern(compiled) }
        } else if let template = base.pathTemplate {
            pattern.url = .pathTemplate(template.asPrefix)
        } else if !base.path.isEmpty {
            pattern.url = .pathPattern(Self.prefixPattern(base.path))
        }
        if let query = node["query"] {
            pattern.query = valueMatchers(query, what: "query parameter")
        }
        if let headers = node["headers"] {
            // The stub's own header wins over the base's of the same name (Astral's rule).
            let own = valueMatchers(headers, what: "header")
            pattern.headers = base.headers.filter { baseHeader in
                !own.contains(where: { $0.0.equalsIgnoringASCIICase(baseHeader.0) })
            } + own
        }
        if let body = node["body"] {
            pattern.body = bodyMatchers(body)
        }
        if let flag = node["websocket"] { decodeWebSocketRequest(flag, into: &pattern) }
        return pattern
    }

    /// A `path` (or the path of a `url`, with its query) under the base path: exact, or a template when either has
    /// parameters.
    private mutating func urlMatcher(path text: String, query: [QueryItem]?, base: Base, line: Int) -> URLMatcher {
        let own: PathTemplate?
        do {
            own = try PathTemplate.parse(text)
        } catch {
            fail(line, "path '\(text)': \(error.message)")
            own = nil
        }
        let decoded = PercentDecoding.decode(text)
        let template: PathTemplate? =
            if let baseTemplate = base.pathTemplate {
                baseTemplate.appending(own, literal: decoded)
            } else {
                own.map { $0.prepending(base.path) }
            }
        if let template {
            if Set(template.parameterNames).count < template.parameterNames.count {
                fail(line, "path '\(template.source)' names a parameter twice (the base path's and the stub's together)")
            }
            return query.map { .urlTemplate(template, query: $0) } ?? .pathTemplate(template)
        }
        let path = joined(base.path, decoded)
        return query.map { .url(path: path, query: $0) } ?? .path(path)
    }

    private static func prefixPattern(_ prefix: String) -> Pattern {
        let escaped = Pattern.escaped(prefix)
        // Built from an escaped literal, so it always compiles; fall back to matching everything if not.
        return (try? Pattern("^\(escaped)(/|$|\\?)")) ?? Self.matchAll
    }

    private static let matchAll: Pattern = {
        do { return try Pattern("") } catch { fatalError("the empty pattern must compile") }
    }()

    func joined(_ prefix: String, _ path: String) -> String {
        let path = path.hasPrefix("/") || path.isEmpty ? path : "/" + path
        let result = prefix + path
        return result.isEmpty ? "/" : result
    }

    // MARK: - Scalars

    mutating func string(_ node: SourceNode, _ what: String) -> String? {
        guard let text = node.scalarText else {
            fail(node.line, "'\(what)' must be text, not \(node.kindName)")
            return nil
        }
        return text
    }

    mutating func integer(_ node: SourceNode, _ what: String, range: ClosedRange<Int>) -> Int? {
        guard case .number(let number, let text) = node.value, let value = Int(text) ?? Int(exactly: number) else {
            fail(node.line, "'\(what)' must be a whole number")
            return nil
        }
        guard range.contains(value) else {
            fail(node.line, "'\(what)' \(value) is outside \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return value
    }

    mutating func pattern(_ node: SourceNode, _ what: String) -> Pattern? {
        guard let text = string(node, what) else { return nil }
        do {
            return try Pattern(text)
        } catch {
            fail(node.line, "'\(what)' is not a valid regular expression (\(error)): \(text)")
            return nil
        }
    }

    /// Reports, at the second one's line, keys of which only one may be given.
    mutating func checkExclusive(_ members: [(key: String, keyLine: Int, value: SourceNode)], _ keys: [String]) {
        let present = members.filter { keys.contains($0.key) }
        guard present.count > 1 else { return }
        fail(present[1].keyLine, "use only one of \(present.map { "'\($0.key)'" }.joined(separator: ", "))")
    }

    mutating func checkKeys(
        _ members: [(key: String, keyLine: Int, value: SourceNode)], allowed: [String], in context: String
    ) {
        for member in members where !allowed.contains(member.key) {
            fail(member.keyLine, "unknown key '\(member.key)' in \(context)\(Suggestion.hint(for: member.key, in: allowed))")
        }
    }

    mutating func fail(_ line: Int, _ message: String) {
        errors.append(SourceError(file: displayPath, line: line, message: message))
    }

    func setDefault(_ headers: inout HTTPHeaders, _ name: String, _ value: String) {
        if !headers.contains(name) { headers.add(name, value) }
    }

    /// A method is any RFC 9110 token, as HAR import and recordings may write one.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        HTTP1Parser.isTokenByte(byte)
    }

    static func isValidHeaderName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && !"()<>@,;:\\\"/[]?={}".utf8.contains(byte)
        }
    }

    static func contentType(forExtension pathExtension: String) -> String? {
        let wanted = pathExtension.lowercased()
        return bodyFileTypes.first { $0.extension == wanted }?.contentType
    }

    /// Body file extensions and the content types they stand for, in both directions (`bodyFile` when loading,
    /// `FixtureLayout` when recording): the first entry for an extension gives its type, the first for a type its
    /// extension.
    static let bodyFileTypes: [(extension: String, contentType: String)] = [
        ("json", "application/json"), ("html", "text/html; charset=utf-8"), ("htm", "text/html; charset=utf-8"),
        ("txt", "text/plain; charset=utf-8"), ("xml", "application/xml"), ("xml", "text/xml"), ("csv", "text/csv"),
        ("js", "application/javascript"), ("js", "text/javascript"), ("css", "text/css"), ("png", "image/png"),
        ("jpg", "image/jpeg"), ("jpeg", "image/jpeg"), ("gif", "image/gif"), ("svg", "image/svg+xml"),
        ("webp", "image/webp"), ("pdf", "application/pdf"),
    ]
}
