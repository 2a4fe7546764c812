import Foundation

/// Turns a parsed stub file into `Stub`s, reporting every problem with its line.
///
/// A file holds one stub, a list of stubs, or `{ base, stubs }`, where `base` (Astral's shared request
/// configuration) gives a host, a path prefix and required headers that each stub extends.
public struct StubDecoder {
    /// The file name errors are reported under.
    public let displayPath: String
    /// Folder that `bodyFile` paths are relative to.
    public let directory: URL
    /// `bodyFile` must resolve to a file inside this folder.
    public let stubsRoot: URL
    /// Makes the id of the stub at a position in the file.
    public let makeID: (Int) -> String

    public private(set) var errors: [SourceError] = []
    /// Response header lists already made: a file of 1,000 stubs answering `Content-Type: application/json`
    /// holds that list (and its 16-byte value) once instead of 1,000 times.
    private var internedHeaders: Set<HTTPHeaders> = []

    public init(displayPath: String, directory: URL, stubsRoot: URL, makeID: @escaping (Int) -> String) {
        self.displayPath = displayPath
        self.directory = directory
        self.stubsRoot = stubsRoot
        self.makeID = makeID
    }

    static let stubKeys = ["name", "id", "priority", "request", "response", "responses"]
    static let requestKeys = ["method", "host", "path", "url", "urlPattern", "pathPattern", "query", "headers", "body"]
    static let responseKeys = ["status", "headers", "body", "json", "bodyFile", "delay", "encoding"]
    static let baseKeys = ["host", "path", "headers"]
    static let fileKeys = ["base", "stubs"]

    private struct Base {
        var host: String?
        var path = ""
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
        var responses: [ResponseDefinition] = []
        checkExclusive(members, ["response", "responses"])
        if let responseNode = node["response"] {
            responses = [decodeResponse(responseNode)]
        } else if let list = node["responses"] {
            // A sequence: answered in order, the last one repeating (a recording of a route that changed).
            if case .array(let items) = list.value, !items.isEmpty {
                responses = items.map { decodeResponse($0) }
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
            request: request, response: response, sequel: Array(responses.dropFirst()), definition: definition)
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
            pattern.url = .path(joined(base.path, PercentDecoding.decode(text)))
        } else if let url = node["url"], let text = string(url, "url") {
            let parts = text.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            let path = joined(base.path, PercentDecoding.decode(parts[0]))
            let query = parts.count > 1 ? PercentDecoding.queryItems(parts[1]) : []
            pattern.url = .url(path: path, query: query)
        } else if let regex = node["urlPattern"] {
            if let compiled = self.pattern(regex, "urlPattern") { pattern.url = .urlPattern(compiled) }
        } else if let regex = node["pathPattern"] {
            if let compiled = self.pattern(regex, "pathPattern") { pattern.url = .pathPattern(compiled) }
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
        return pattern
    }

    private static func prefixPattern(_ prefix: String) -> Pattern {
        let escaped = Pattern.escaped(prefix)
        // Built from an escaped literal, so it always compiles; fall back to matching everything if not.
        return (try? Pattern("^\(escaped)(/|$|\\?)")) ?? Self.matchAll
    }

    private static let matchAll: Pattern = {
        do { return try Pattern("") } catch { fatalError("the empty pattern must compile") }
    }()

    private func joined(_ prefix: String, _ path: String) -> String {
        let path = path.hasPrefix("/") || path.isEmpty ? path : "/" + path
        let result = prefix + path
        return result.isEmpty ? "/" : result
    }

    private mutating func decodeResponse(_ node: SourceNode) -> ResponseDefinition {
        var response = ResponseDefinition()
        guard case .object(let members) = node.value else {
            fail(node.line, "'response' must be a mapping, not \(node.kindName)")
            return response
        }
        checkKeys(members, allowed: Self.responseKeys, in: "'response'")
        if let status = node["status"] {
            response.status = decodeStatus(status) ?? 200
        }
        if let headers = node["headers"] {
            response.headers = responseHeaders(headers)
        }
        checkExclusive(members, ["body", "json", "bodyFile"])
        if let body = node["body"] {
            switch body.value {
            case .object, .array:
                response.body = Array(body.jsonValue.encoded.utf8)
                setDefault(&response.headers, "Content-Type", "application/json")
            case .null:
                break
            default:
                response.body = Array((body.scalarText ?? "").utf8)
            }
        } else if let json = node["json"] {
            response.body = Array(json.jsonValue.encoded.utf8)
            setDefault(&response.headers, "Content-Type", "application/json")
        } else if let file = node["bodyFile"], let relative = string(file, "bodyFile") {
            if let bytes = readBodyFile(relative, line: file.line) {
                response.body = bytes
                if let type = Self.contentType(forExtension: (relative as NSString).pathExtension) {
                    setDefault(&response.headers, "Content-Type", type)
                }
            }
        }
        if let delay = node["delay"], let milliseconds = integer(delay, "delay", range: 0...600_000) {
            response.delayMilliseconds = milliseconds
        }
        if let encoding = node["encoding"], let name = string(encoding, "encoding") {
            if let coding = ContentCoding(rawValue: name.lowercased()) {
                response.encoding = coding
            } else {
                let names = ContentCoding.allCases.map(\.rawValue)
                fail(encoding.line, "unknown encoding '\(name)'\(Suggestion.hint(for: name, in: names)) (use gzip, deflate or identity)")
            }
        }
        // `identity` with a Content-Encoding header sends a body that is already encoded (say br) as it is.
        if let coding = response.encoding, coding != .identity, response.headers.contains("Content-Encoding") {
            fail(node["headers"]?.line ?? node.line, "give the encoding as 'encoding', not as a Content-Encoding header next to it")
        }
        response.headers = internedHeaders.insert(response.headers).memberAfterInsert
        return response
    }

    private mutating func decodeStatus(_ node: SourceNode) -> Int? {
        switch node.value {
        case .number:
            return integer(node, "status", range: 100...599)
        case .string(let text):
            if let number = Int(text) {
                guard (100...599).contains(number) else {
                    fail(node.line, "status \(number) is outside 100...599")
                    return nil
                }
                return number
            }
            if let code = HTTPStatusCode(name: text) { return code.rawValue }
            let names = HTTPStatusCode.allCases.flatMap { [$0.name, $0.lowerCamelName] }
            fail(node.line, "unknown status '\(text)'\(Suggestion.hint(for: text, in: names))")
            return nil
        default:
            fail(node.line, "'status' must be a number or a status name such as Code404NotFound, not \(node.kindName)")
            return nil
        }
    }

    private mutating func readBodyFile(_ relative: String, line: Int) -> [UInt8]? {
        let root = stubsRoot.standardizedFileURL.resolvingSymlinksInPath().path
        let candidate = (relative.hasPrefix("/") ? URL(fileURLWithPath: relative) : directory.appendingPathComponent(relative))
            .standardizedFileURL.resolvingSymlinksInPath().path
        guard candidate.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            fail(line, "bodyFile '\(relative)' is outside the stubs folder")
            return nil
        }
        guard let data = FileManager.default.contents(atPath: candidate) else {
            fail(line, "bodyFile '\(relative)' cannot be read")
            return nil
        }
        return Array(data)
    }

    private mutating func responseHeaders(_ node: SourceNode) -> HTTPHeaders {
        var headers = HTTPHeaders()
        guard case .object(let members) = node.value else {
            fail(node.line, "'headers' must be a mapping, not \(node.kindName)")
            return headers
        }
        for member in members {
            guard Self.isValidHeaderName(member.key) else {
                fail(member.keyLine, "'\(member.key)' is not a valid header name")
                continue
            }
            // The server computes framing headers itself; a stale one would corrupt the connection.
            if member.key.equalsIgnoringASCIICase("Content-Length")
                || member.key.equalsIgnoringASCIICase("Transfer-Encoding")
            {
                continue
            }
            let values: [SourceNode]
            if case .array(let items) = member.value.value { values = items } else { values = [member.value] }
            for value in values {
                guard let text = value.scalarText else {
                    fail(value.line, "the value of header '\(member.key)' must be text, not \(value.kindName)")
                    continue
                }
                guard !text.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                    fail(value.line, "the value of header '\(member.key)' contains a line break")
                    continue
                }
                headers.add(member.key, text)
            }
        }
        return headers
    }

    private mutating func valueMatchers(_ node: SourceNode, what: String) -> [(String, ValueMatcher)] {
        guard case .object(let members) = node.value else {
            fail(node.line, "\(what)s must be a mapping of names to values, not \(node.kindName)")
            return []
        }
        var matchers: [(String, ValueMatcher)] = []
        for member in members {
            if let matcher = valueMatcher(member.value, what: "\(what) '\(member.key)'") {
                matchers.append((member.key, matcher))
            }
        }
        return matchers
    }

    private mutating func valueMatcher(_ node: SourceNode, what: String) -> ValueMatcher? {
        // A redacted value (as recordings write it) stands for any value.
        if let text = node.scalarText { return text == Redactor.placeholder ? .absent(false) : .equalTo(text) }
        guard case .object(let members) = node.value, members.count == 1, let member = members.first else {
            fail(node.line, "\(what) must be a value or one operator such as { matches: regex }")
            return nil
        }
        switch member.key {
        case "equalTo": return string(member.value, "equalTo").map { .equalTo($0) }
        case "contains": return string(member.value, "contains").map { .contains($0) }
        case "matches": return pattern(member.value, "matches").map { .matches($0) }
        case "doesNotMatch": return pattern(member.value, "doesNotMatch").map { .doesNotMatch($0) }
        case "absent":
            guard case .bool(let flag) = member.value.value else {
                fail(member.value.line, "'absent' must be true or false")
                return nil
            }
            return .absent(flag)
        default:
            fail(member.keyLine, "unknown matcher '\(member.key)'\(Suggestion.hint(for: member.key, in: ValueMatcher.operatorNames))")
            return nil
        }
    }

    private mutating func bodyMatchers(_ node: SourceNode) -> [BodyMatcher] {
        if let text = node.scalarText { return [.equalTo(text)] }
        guard case .object(let members) = node.value, !members.isEmpty else {
            fail(node.line, "'body' must be text or a mapping of matchers (equalTo, json, matches, contains, form, binaryEqualTo)")
            return []
        }
        var matchers: [BodyMatcher] = []
        for member in members {
            switch member.key {
            case "equalTo":
                if let text = string(member.value, "equalTo") { matchers.append(.equalTo(text)) }
            case "contains":
                if let text = string(member.value, "contains") { matchers.append(.contains(text)) }
            case "matches":
                if let compiled = pattern(member.value, "matches") { matchers.append(.matches(compiled)) }
            case "json":
                matchers.append(.json(member.value.jsonValue))
            case "form":
                matchers.append(.form(valueMatchers(member.value, what: "form field")))
            case "binaryEqualTo":
                if let text = string(member.value, "binaryEqualTo") {
                    if let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) {
                        matchers.append(.binaryEqualTo(Array(data)))
                    } else {
                        fail(member.value.line, "'binaryEqualTo' must be base64")
                    }
                }
            default:
                fail(member.keyLine, "unknown body matcher '\(member.key)'\(Suggestion.hint(for: member.key, in: BodyMatcher.operatorNames))")
            }
        }
        return matchers
    }

    // MARK: - Scalars

    private mutating func string(_ node: SourceNode, _ what: String) -> String? {
        guard let text = node.scalarText else {
            fail(node.line, "'\(what)' must be text, not \(node.kindName)")
            return nil
        }
        return text
    }

    private mutating func integer(_ node: SourceNode, _ what: String, range: ClosedRange<Int>) -> Int? {
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

    private mutating func pattern(_ node: SourceNode, _ what: String) -> Pattern? {
        guard let text = string(node, what) else { return nil }
        do {
            return try Pattern(text)
        } catch {
            fail(node.line, "'\(what)' is not a valid regular expression (\(error)): \(text)")
            return nil
        }
    }

    /// Reports, at the second one's line, keys of which only one may be given.
    private mutating func checkExclusive(_ members: [(key: String, keyLine: Int, value: SourceNode)], _ keys: [String]) {
        let present = members.filter { keys.contains($0.key) }
        guard present.count > 1 else { return }
        fail(present[1].keyLine, "use only one of \(present.map { "'\($0.key)'" }.joined(separator: ", "))")
    }

    private mutating func checkKeys(
        _ members: [(key: String, keyLine: Int, value: SourceNode)], allowed: [String], in context: String
    ) {
        for member in members where !allowed.contains(member.key) {
            fail(member.keyLine, "unknown key '\(member.key)' in \(context)\(Suggestion.hint(for: member.key, in: allowed))")
        }
    }

    private mutating func fail(_ line: Int, _ message: String) {
        errors.append(SourceError(file: displayPath, line: line, message: message))
    }

    private func setDefault(_ headers: inout HTTPHeaders, _ name: String, _ value: String) {
        if !headers.contains(name) { headers.add(name, value) }
    }

    /// A method is any RFC 9110 token, as HAR import and recordings may write one.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        HTTPToken.isTokenCharacter(byte)
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
