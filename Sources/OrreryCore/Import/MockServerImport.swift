import Foundation

/// Reads MockServer expectations (a list, or one expectation, as `initializerJson.json` and `PUT /mockserver/expectation`
/// take them) into one stub file.
///
/// MockServer compares a string by equality or, failing that, as a regular expression over the whole value: a value
/// with regex characters becomes an anchored `matches`, any other an exact value. Its JSON body matching is
/// lenient unless `matchType` is `STRICT` (`ignoreExtraFields` and `ignoreArrayOrder`). It answers with the first
/// matching expectation by `priority`, then the order they were added: every stub gets a priority that keeps that
/// order. `times` becomes a scenario that lets the stub answer that many times, `delay` a delay, `httpError` a fault.
public enum MockServerImport {
    public static func stubs(from document: JSONValue, name: String) throws(ImportError) -> StubImport {
        let expectations: [JSONValue]
        switch document {
        case .array(let items): expectations = items
        case .object where document["httpRequest"] != nil || document["httpResponse"] != nil: expectations = [document]
        default: throw ImportError("not MockServer expectations: neither a list of expectations nor one with an httpRequest")
        }
        guard expectations.contains(where: { $0["httpRequest"] != nil || $0["httpResponse"] != nil || $0["httpError"] != nil })
            || expectations.isEmpty
        else {
            throw ImportError("not MockServer expectations: no entry has an httpRequest, httpResponse or httpError")
        }
        var result = StubImport(unit: "expectations")
        result.entryCount = expectations.count
        var file = ImportedFile(
            path: ImportedFile.fileName(name, fallback: "mockserver") + ".yaml",
            comment: "Imported from the MockServer expectations \(name).")
        // MockServer's order: higher priority first, then the order of the file.
        let order = expectations.indices.sorted { a, b in
            let pa = priority(expectations[a]), pb = priority(expectations[b])
            return pa != pb ? pa > pb : a < b
        }
        var rank = [Int](repeating: 0, count: expectations.count)
        for (position, index) in order.enumerated() { rank[index] = position + 1 }
        var seen: [String: Int] = [:]
        for (index, expectation) in expectations.enumerated() {
            let place = "expectation \(index + 1)" + (expectation["id"]?.stringValue.map { " (id \($0))" } ?? "")
            do throws(ImportError) {
                var converter = ExpectationConverter(file: file, place: place, index: index + 1)
                let stubs = try converter.stubs(expectation, priority: rank[index])
                if let request = expectation["httpRequest"], expectation["times"] == nil || isUnlimited(expectation["times"]) {
                    let key = request.encoded
                    if let first = seen[key], expectations.indices.contains(first - 1), priority(expectations[first - 1]) >= priority(expectation) {
                        throw ImportError("the same request as expectation \(first), which MockServer answers first")
                    }
                    seen[key] = index + 1
                }
                file = converter.file
                for stub in stubs { file.add(stub) }
                result.importedCount += 1
                for warning in converter.warnings { result.warn(place, warning) }
            } catch {
                result.skip(place, error.description)
            }
        }
        if file.stubCount > 0 { result.files.append(file) }
        return result
    }

    static func priority(_ expectation: JSONValue) -> Double {
        if case .number(let value, _)? = expectation["priority"] { return value }
        return 0
    }

    static func isUnlimited(_ times: JSONValue?) -> Bool {
        guard let times else { return true }
        if times["unlimited"] == .bool(true) { return true }
        if case .number? = times["remainingTimes"] { return false }
        return true
    }

    /// Whether MockServer would read a value as a regular expression rather than as itself.
    static func isRegex(_ text: String) -> Bool {
        text.contains { "^$.*+?()[]{}|\\".contains($0) }
    }
}

private struct ExpectationConverter {
    var file: ImportedFile
    let place: String
    let index: Int
    var warnings: [String] = []

    init(file: ImportedFile, place: String, index: Int) {
        self.file = file
        self.place = place
        self.index = index
    }

    typealias Members = [(String, YAMLText.Value)]

    mutating func stubs(_ expectation: JSONValue, priority: Int) throws(ImportError) -> [Members] {
        for action in ["httpForward", "httpOverrideForwardedRequest", "httpResponseTemplate", "httpForwardTemplate",
            "httpResponseClassCallback", "httpResponseObjectCallback", "httpForwardClassCallback", "httpForwardObjectCallback"]
        where expectation[action] != nil {
            throw ImportError("its action \(action) has no equivalent in a stub file")
        }
        let request = try self.request(expectation["httpRequest"] ?? .object([]))
        let response: Members
        if let error = expectation["httpError"] {
            response = try self.error(error)
        } else if let answer = expectation["httpResponse"] {
            response = try self.response(answer)
        } else {
            throw ImportError("it has no httpResponse or httpError")
        }
        if expectation["timeToLive"] != nil, expectation["timeToLive"]?["unlimited"] != .bool(true) {
            warnings.append("timeToLive is not kept: the stub answers for as long as it is loaded")
        }
        var name = "expectation \(index)"
        if let id = expectation["id"]?.stringValue { name = id }
        let base: Members = [("name", .scalar(name)), ("request", .mapping(request)), ("response", .mapping(response)),
            ("priority", .number(priority))]
        guard let times = expectation["times"], !MockServerImport.isUnlimited(times),
            case .number(let remaining, _)? = times["remainingTimes"]
        else { return [base] }
        guard let count = Int(exactly: remaining), count >= 1 else {
            throw ImportError("times.remainingTimes \(remaining) leaves it never answered")
        }
        guard count <= 100 else {
            throw ImportError("times.remainingTimes \(count) would take \(count) stubs; up to 100 are written")
        }
        // One stub per answer, each moving the scenario on; once used up, none of them matches.
        let scenario = "mockserver-expectation-\(index)"
        return (0..<count).map { answered in
            base + [
                ("scenario", .scalar(scenario)),
                ("requiredState", .scalar(answered == 0 ? "Started" : "answered \(answered)")),
                ("newState", .scalar(answered + 1 == count ? "used up" : "answered \(answered + 1)")),
            ]
        }
    }

    // MARK: Request

    mutating func request(_ request: JSONValue) throws(ImportError) -> Members {
        var out: Members = []
        if let method = request["method"]?.stringValue, !method.isEmpty {
            guard !MockServerImport.isRegex(method), !method.hasPrefix("!") else {
                throw ImportError("the method \(method) is a pattern or a negation; a stub names one method or any")
            }
            out.append(("method", .scalar(method.uppercased())))
        }
        if let path = request["path"]?.stringValue, !path.isEmpty {
            if path.hasPrefix("!") { throw ImportError("the negated path \(path) has no equivalent") }
            let withoutParameters = path.replacingOccurrences(of: #"\{[A-Za-z_][A-Za-z0-9_]*\}"#, with: "", options: .regularExpression)
            if !MockServerImport.isRegex(withoutParameters) {
                out.append(("path", .scalar(path)))
                if request["pathParameters"] != nil {
                    warnings.append("the values pathParameters require are not checked: each parameter matches any segment")
                }
            } else {
                out.append(("pathPattern", .scalar(try Self.anchored(path, what: "the path"))))
            }
        }
        let query = try values(request["queryStringParameters"], what: "query parameter")
        if !query.isEmpty { out.append(("query", .mapping(query))) }
        var headers = try values(request["headers"], what: "header")
        if case .object(let cookies)? = request["cookies"] {
            for (name, value) in cookies {
                guard let text = value.stringValue else { continue }
                headers.append(("Cookie", .mapping([("contains", .scalar("\(name)=\(text)"))])))
            }
        }
        if !headers.isEmpty { out.append(("headers", .mapping(HeaderConditions.merged(headers)))) }
        if let body = request["body"], body != .null, let condition = try self.body(body) {
            out.append(("body", condition))
        }
        if request["secure"] == .bool(true) { warnings.append("secure: true is not checked: the stub answers on both ports") }
        return out
    }

    /// `^(?:regex)$`: MockServer matches the whole value.
    static func anchored(_ regex: String, what: String) throws(ImportError) -> String {
        try HoverflyImport.checkedRegex("^(?:" + regex + ")$", what: what)
    }

    /// Headers or query parameters, given as `{name: [values]}` or `[{name, values}]`: every value must be there.
    /// `{name: [values]}` or `[{name, values}]` as names and their values.
    static func pairs(_ field: JSONValue?) -> [(String, [JSONValue])] {
        var pairs: [(String, [JSONValue])] = []
        switch field {
        case .object(let members)?:
            for (name, value) in members where name != "keyMatchStyle" {
                if case .array(let list) = value { pairs.append((name, list)) } else { pairs.append((name, [value])) }
            }
        case .array(let items)?:
            for item in items {
                guard let name = item["name"]?.stringValue else { continue }
                if case .array(let list)? = item["values"] ?? item["value"] { pairs.append((name, list)) }
                else if let value = item["values"] ?? item["value"] { pairs.append((name, [value])) }
            }
        default:
            break
        }
        return pairs
    }

    mutating func values(_ field: JSONValue?, what: String) throws(ImportError) -> Members {
        var out: Members = []
        for (name, list) in Self.pairs(field) {
            // A dot in a name (`product.id`) is far more often itself than "any character".
            if MockServerImport.isRegex(name.replacingOccurrences(of: ".", with: "")) || name.hasPrefix("!") {
                throw ImportError("the \(what) name \(name) is a pattern or a negation; stubs name \(what)s exactly")
            }
            var operators: [YAMLText.Value] = []
            for value in list {
                var text: String
                var isNegated = false
                if let plain = value.stringValue {
                    text = plain
                } else if let inner = value["value"]?.stringValue {
                    text = inner
                    isNegated = value["not"] == .bool(true)
                } else {
                    text = PostmanImport.text(value)
                }
                if text.hasPrefix("!") {
                    isNegated = true
                    text.removeFirst()
                }
                var condition: YAMLText.Value = MockServerImport.isRegex(text)
                    ? .mapping([("matches", .scalar(try Self.anchored(text, what: "the \(what) \(name)")))])
                    : .mapping([("equalTo", .scalar(text))])
                if isNegated { condition = .mapping([("not", condition)]) }
                operators.append(condition)
            }
            guard let first = operators.first else { continue }
            out.append((name, operators.count == 1 ? first : .mapping([("allOf", .list(operators))])))
        }
        return out
    }

    mutating func body(_ body: JSONValue) throws(ImportError) -> YAMLText.Value? {
        if let text = body.stringValue { return .mapping([("equalTo", .text(text))]) }
        guard let type = body["type"]?.stringValue else {
            // A JSON document given as it is: matched as MockServer's lenient JSON.
            return .mapping([("json", .json(body)), ("ignoreExtraFields", .json(.bool(true))), ("ignoreArrayOrder", .json(.bool(true)))])
        }
        var condition: Members
        switch type.uppercased() {
        case "JSON":
            guard var json = body["json"] else { throw ImportError("its JSON body matcher has no 'json'") }
            if let text = json.stringValue {
                guard let parsed = try? JSONValue.parse(text) else { throw ImportError("its JSON body matcher is not JSON") }
                json = parsed
            }
            let isStrict = body["matchType"]?.stringValue?.uppercased() == "STRICT"
            condition = [("json", .json(json))]
            if !isStrict { condition += [("ignoreExtraFields", .json(.bool(true))), ("ignoreArrayOrder", .json(.bool(true)))] }
        case "STRING":
            let text = body["string"]?.stringValue ?? ""
            condition = body["subString"] == .bool(true) ? [("contains", .scalar(text))] : [("equalTo", .text(text))]
        case "REGEX":
            condition = [("matches", .scalar(try Self.anchored("(?s)" + (body["regex"]?.stringValue ?? ""), what: "the body")))]
        case "XPATH":
            let source = body["xpath"]?.stringValue ?? ""
            do {
                _ = try XPath(source)
            } catch {
                throw ImportError("its XPath \(source) cannot be used: \(error.message)")
            }
            condition = [("xpath", .scalar(source))]
        case "XML":
            let text = body["xml"]?.stringValue ?? ""
            guard (try? XMLTree(parsing: text)) != nil else { throw ImportError("its XML body matcher is not XML") }
            condition = [("xml", .text(text))]
        case "JSON_PATH":
            let source = body["jsonPath"]?.stringValue ?? ""
            do {
                _ = try JSONPath(source)
            } catch {
                throw ImportError("its JSONPath \(source) cannot be used: \(error.message)")
            }
            condition = [("jsonPath", .scalar(source))]
        case "PARAMETERS":
            condition = [("form", .mapping(try values(body["parameters"], what: "form field")))]
        case "BINARY":
            condition = [("binaryEqualTo", .scalar(body["base64Bytes"]?.stringValue ?? ""))]
        default:
            throw ImportError("its \(type) body matcher has no equivalent")
        }
        if body["not"] == .bool(true) { return .mapping([("not", .mapping(condition))]) }
        return .mapping(condition)
    }

    // MARK: Response

    mutating func response(_ response: JSONValue) throws(ImportError) -> Members {
        var out: Members = []
        var status = 200
        if case .number(let number, _)? = response["statusCode"] {
            guard let code = Int(exactly: number), (100...599).contains(code) else {
                throw ImportError("the statusCode \(number) is not an HTTP status")
            }
            status = code
        }
        out.append(("status", .number(status)))
        var headers: Members = []
        var contentType: String?
        for (name, list) in Self.pairs(response["headers"]) {
            guard HTTP1Parser.isToken(name) else { throw ImportError("the response header name \(name.debugDescription) is not an HTTP token") }
            for value in list {
                let text = value.stringValue ?? PostmanImport.text(value)
                if name.lowercased() == "content-length" || name.lowercased() == "transfer-encoding" { continue }
                if name.lowercased() == "content-type" { contentType = text }
                headers.append((name, .scalar(text)))
            }
        }
        if case .object(let cookies)? = response["cookies"] {
            for (name, value) in cookies { headers.append(("Set-Cookie", .scalar("\(name)=\(PostmanImport.text(value))"))) }
        }
        var body: [UInt8] = []
        if let value = response["body"], value != .null {
            if let text = value.stringValue {
                body = Array(text.utf8)
            } else if let type = value["type"]?.stringValue?.uppercased() {
                switch type {
                case "JSON":
                    let json = value["json"] ?? .null
                    body = json.stringValue.map { Array($0.utf8) } ?? json.encodedBytes
                    if contentType == nil { contentType = value["contentType"]?.stringValue ?? "application/json" }
                case "STRING": body = Array((value["string"]?.stringValue ?? "").utf8)
                case "XML": body = Array((value["xml"]?.stringValue ?? "").utf8)
                case "BINARY":
                    guard let data = Data(base64Encoded: value["base64Bytes"]?.stringValue ?? "", options: .ignoreUnknownCharacters) else {
                        throw ImportError("its binary body is not base64")
                    }
                    body = Array(data)
                default: throw ImportError("its \(type) response body has no equivalent")
                }
                if contentType == nil, let declared = value["contentType"]?.stringValue { contentType = declared }
            } else {
                body = value.encodedBytes
                if contentType == nil { contentType = "application/json" }
            }
        }
        if let contentType, !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            headers.append(("Content-Type", .scalar(contentType)))
        }
        if !headers.isEmpty { out.append(("headers", .mapping(HeaderConditions.grouped(headers)))) }
        if !body.isEmpty { out.append(file.body(body, contentType: contentType)) }
        if let delay = try self.delay(response["delay"]) { out.append(("delay", .number(delay))) }
        if response["connectionOptions"] != nil { warnings.append("connectionOptions are not kept") }
        return out
    }

    mutating func error(_ error: JSONValue) throws(ImportError) -> Members {
        if let bytes = error["responseBytes"]?.stringValue, !bytes.isEmpty {
            throw ImportError("httpError's responseBytes cannot be sent: Orrery's faults send no bytes of your choosing")
        }
        var out: Members = [("fault", .scalar("emptyResponse"))]
        if let delay = try self.delay(error["delay"]) { out.append(("delay", .number(delay))) }
        return out
    }

    /// `{timeUnit, value}` in milliseconds.
    func delay(_ delay: JSONValue?) throws(ImportError) -> Int? {
        guard let delay, case .number(let value, _)? = delay["value"] else { return nil }
        let unit = delay["timeUnit"]?.stringValue?.uppercased() ?? "MILLISECONDS"
        let factor: Double
        switch unit {
        case "NANOSECONDS": factor = 1e-6
        case "MICROSECONDS": factor = 1e-3
        case "MILLISECONDS": factor = 1
        case "SECONDS": factor = 1000
        case "MINUTES": factor = 60_000
        default: throw ImportError("the delay's timeUnit \(unit) is unknown")
        }
        let milliseconds = Int((value * factor).rounded())
        guard milliseconds <= 600_000 else { throw ImportError("its delay of \(milliseconds) ms is above Orrery's 600000") }
        return milliseconds > 0 ? milliseconds : nil
    }
}
