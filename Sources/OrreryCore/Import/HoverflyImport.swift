import Foundation

/// Reads a Hoverfly simulation (schema v1 to v5) into stub files: one file for the simulation, one stub per pair.
///
/// Each request matcher becomes the stub condition that accepts the same requests: `exact` a plain value, `glob`
/// and `regex` a `matches`, `json` and `jsonPartial` a `json` body (`ignoreExtraFields` for the partial one),
/// `jsonpath`, `xml`, `xpath` and `form` the body operators of those names. State keys become scenarios: a pair's
/// `requiresState` its `requiredState`, `transitionsState` its `newState`, `removesState` a return to `Started`;
/// Hoverfly starts a `sequence:` key at "1", which is Orrery's `Started`. A pair whose request is the same as an
/// earlier one's is left out, as Hoverfly always answers with the first.
public enum HoverflyImport {
    /// - Parameters:
    ///   - name: the simulation's file name without extension, for the stub file's name.
    ///   - bodyFile: reads a response's `bodyFile`, relative to the simulation's folder.
    public static func stubs(
        from document: JSONValue, name: String, bodyFile: @escaping (String) -> [UInt8]? = { _ in nil }
    ) throws(ImportError) -> StubImport {
        guard case .array(let pairs)? = document["data"]?["pairs"] else {
            let hint = document["log"] != nil ? " (it looks like a HAR file: orrery import har)" : ""
            throw ImportError("not a Hoverfly simulation: there is no data.pairs list\(hint)")
        }
        let version = document["meta"]?["schemaVersion"]?.stringValue ?? "v5"
        var result = StubImport(unit: "pairs")
        result.entryCount = pairs.count
        var file = ImportedFile(
            path: ImportedFile.fileName(name, fallback: "hoverfly") + ".yaml",
            comment: "Imported from the Hoverfly simulation \(name) (schema \(version)).")
        let delays = GlobalDelays(document["data"]?["globalActions"])
        var seen: [String: Int] = [:]
        seen.reserveCapacity(pairs.count)
        var converted: [(item: String, score: Int)] = []
        for (offset, pair) in pairs.enumerated() {
            let place = "pair \(offset + 1) (data.pairs[\(offset)])"
            guard let request = pair["request"], let response = pair["response"] else {
                result.skip(place, "it has no request or no response")
                continue
            }
            // Stubs do not match the scheme: pairs that differ only by it are one request here.
            var withoutScheme = request
            if case .object(let members) = request { withoutScheme = .object(members.filter { $0.0 != "scheme" }) }
            let key = withoutScheme.encoded
            if let first = seen[key] {
                let reason = key == pairs[first - 1]["request"]?.encoded || request["scheme"] == nil
                    ? "the same request as pair \(first), which Hoverfly answers first"
                    : "the same request as pair \(first) but for the scheme, which stubs do not match"
                result.skip(place, reason)
                continue
            }
            seen[key] = offset + 1
            var converter = PairConverter(file: file, place: place, delays: delays, bodyFile: bodyFile)
            do throws(ImportError) {
                let members = try converter.stub(request: request, response: response)
                file = converter.file
                converted.append((ImportedFile.render(members), score(request)))
                result.importedCount += 1
                for warning in converter.warnings { result.warn(place, warning) }
            } catch {
                result.skip(place, error.description)
            }
        }
        // Hoverfly answers with the pair that matches on the most fields; a priority for each score says the same.
        let scores = Set(converted.map(\.score)).sorted(by: >)
        for (item, score) in converted {
            guard scores.count > 1, let rank = scores.firstIndex(of: score) else {
                file.add(rendered: item)
                continue
            }
            file.add(rendered: item, appending: [("priority", .number(rank + 1))])
        }
        if file.stubCount > 0 { result.files.append(file) }
        return result
    }

    /// How many matchers a pair has, as Hoverfly's strongest match counts them: one for each matcher of a field,
    /// header, query parameter or form field, and one for each state key.
    static func score(_ request: JSONValue) -> Int {
        func count(_ field: JSONValue?) -> Int {
            switch field {
            case .array(let items)?: return items.reduce(0) { total, item in
                    if item["matcher"]?.stringValue == "form", case .object(let fields)? = item["value"] {
                        return total + fields.reduce(0) { $0 + count($1.1) }
                    }
                    return total + 1
                }
            case .object(let members)?:
                if members.contains(where: { $0.0.hasSuffix("Match") }) { return members.filter { $0.1 != .null }.count }
                return members.reduce(0) { $0 + max(1, count($1.1)) }
            case .string?: return 1
            default: return 0
            }
        }
        var total = 0
        for field in ["method", "destination", "path", "scheme", "query", "headers", "body"] { total += count(request[field]) }
        if case .object(let state)? = request["requiresState"] { total += state.count }
        return total
    }

    /// One Hoverfly request matcher, whatever the schema version wrote it as.
    struct Matcher {
        var kind: String
        var value: JSONValue
        var config: JSONValue?

        var text: String? { value.stringValue }
    }

    /// Matchers of one field: a plain value (v1, v2), `{exactMatch: ...}` (v3, v4) or `[{matcher, value}]` (v5).
    static func matchers(_ field: JSONValue?, what: String) throws(ImportError) -> [Matcher] {
        switch field {
        case nil, .null?: return []
        case .string(let text)?: return [Matcher(kind: "exact", value: .string(text))]
        case .array(let items)?:
            var out: [Matcher] = []
            for item in items {
                guard let kind = item["matcher"]?.stringValue else {
                    throw ImportError("a matcher of \(what) has no 'matcher' name")
                }
                if let chained = item["doMatch"], chained != .null {
                    throw ImportError("the chained matcher (doMatch) of \(what) has no equivalent")
                }
                out.append(Matcher(kind: kind.lowercased(), value: item["value"] ?? .null, config: item["config"]))
            }
            return out
        case .object(let members)?:
            var out: [Matcher] = []
            for (key, value) in members where value != .null {
                guard key.hasSuffix("Match") else { throw ImportError("unknown matcher '\(key)' in \(what)") }
                out.append(Matcher(kind: String(key.dropLast(5)).lowercased(), value: value))
            }
            return out
        default:
            throw ImportError("\(what) is neither a value nor a list of matchers")
        }
    }

    /// A glob (`*` any run of characters) as an anchored regex.
    static func globRegex(_ glob: String, dotAll: Bool = false) -> String {
        let parts = glob.split(separator: "*", omittingEmptySubsequences: false).map { Pattern.escaped(String($0)) }
        return (dotAll ? "(?s)" : "") + "^" + parts.joined(separator: ".*") + "$"
    }

    static func checkedRegex(_ source: String, what: String) throws(ImportError) -> String {
        do {
            _ = try Pattern(source)
        } catch {
            throw ImportError("the regex of \(what) cannot be used (\(error)): \(source)")
        }
        return source
    }

    /// `globalActions.delays`: a delay for every request whose URL (host and path) matches a regex.
    struct GlobalDelays {
        var rules: [(pattern: Pattern?, source: String, method: String, delay: Int)] = []

        init(_ actions: JSONValue?) {
            guard case .array(let items)? = actions?["delays"] else { return }
            for item in items {
                guard let source = item["urlPattern"]?.stringValue, case .number(let delay, _)? = item["delay"] else { continue }
                rules.append((try? Pattern(source), source, item["httpMethod"]?.stringValue ?? "", Int(delay)))
            }
        }
    }
}

/// Converts one pair, collecting what differs from Hoverfly as warnings.
private struct PairConverter {
    var file: ImportedFile
    let place: String
    let delays: HoverflyImport.GlobalDelays
    let bodyFile: (String) -> [UInt8]?
    var warnings: [String] = []

    init(file: ImportedFile, place: String, delays: HoverflyImport.GlobalDelays, bodyFile: @escaping (String) -> [UInt8]?) {
        self.file = file
        self.place = place
        self.delays = delays
        self.bodyFile = bodyFile
    }

    typealias Members = [(String, YAMLText.Value)]

    mutating func stub(request: JSONValue, response: JSONValue) throws(ImportError) -> Members {
        var conditions: Members = []
        var name = ""
        var exactMethod: String?
        var exactHost: String?
        var exactPath: String?

        for matcher in try HoverflyImport.matchers(request["method"], what: "the method") {
            guard let text = matcher.text else { throw ImportError("the method matcher's value is not text") }
            switch matcher.kind {
            case "exact":
                exactMethod = text
                conditions.append(("method", .scalar(text)))
            case "glob" where text == "*", "regex" where text == ".*" || text.isEmpty: break
            default: throw ImportError("a \(matcher.kind) matcher on the method has no equivalent (a stub names one method or any)")
            }
        }
        var headers: Members = []
        for matcher in try HoverflyImport.matchers(request["destination"], what: "the destination") {
            guard let text = matcher.text else { throw ImportError("the destination matcher's value is not text") }
            switch matcher.kind {
            case "exact":
                exactHost = text
                conditions.append(("host", .scalar(text)))
            case "glob" where text == "*", "regex" where text == ".*" || text.isEmpty: break
            case "glob": headers.append(("Host", .mapping([("matches", .scalar(HoverflyImport.globRegex(text)))])))
            case "regex":
                let regex = try HoverflyImport.checkedRegex(text, what: "the destination")
                headers.append(("Host", .mapping([("matches", .scalar(regex))])))
            default: throw ImportError("a \(matcher.kind) matcher on the destination has no equivalent")
            }
        }
        var pathPatterns: [String] = []
        for matcher in try HoverflyImport.matchers(request["path"], what: "the path") {
            guard let text = matcher.text else { throw ImportError("the path matcher's value is not text") }
            switch matcher.kind {
            case "exact":
                guard exactPath == nil else { throw ImportError("two exact paths") }
                exactPath = text
                conditions.append(("path", .scalar(FixtureFile.literalBraces(text))))
            case "glob" where text == "*": break
            case "glob": pathPatterns.append(HoverflyImport.globRegex(text))
            case "regex": pathPatterns.append(try HoverflyImport.checkedRegex(text, what: "the path"))
            default: throw ImportError("a \(matcher.kind) matcher on the path has no equivalent")
            }
        }
        if pathPatterns.count > 1 { throw ImportError("several pattern matchers on the path; a stub takes one") }
        if let pattern = pathPatterns.first { conditions.append(("pathPattern", .scalar(pattern))) }
        name = "\(exactMethod ?? "ANY") \(exactPath ?? pathPatterns.first ?? "*")"

        if let query = try self.query(request["query"]), !query.isEmpty { conditions.append(("query", .mapping(query))) }
        headers += try self.headers(request["headers"])
        if !headers.isEmpty { conditions.append(("headers", .mapping(HeaderConditions.merged(headers)))) }
        if let body = try self.body(request["body"]) { conditions.append(("body", body)) }

        var stub: Members = [("name", .scalar(String(name.prefix(160)))), ("request", .mapping(conditions))]
        var answer = try self.response(response)
        if !answer.contains(where: { $0.0 == "delay" }),
            let delay = globalDelay(method: exactMethod, host: exactHost, path: exactPath)
        {
            answer.append(("delay", .number(delay)))
        }
        stub.append(("response", .mapping(answer)))
        stub += try state(request: request, response: response)
        return stub
    }

    // MARK: Request fields


    /// Query matchers: v5 names each parameter; older schemas match the whole query string.
    mutating func query(_ field: JSONValue?) throws(ImportError) -> Members? {
        if case .object(let members)? = field, !members.contains(where: { $0.0.hasSuffix("Match") }) {
            var out: Members = []
            for (name, matchers) in members {
                let converted = try valueMatchers(try HoverflyImport.matchers(matchers, what: "the query parameter \(name)"), what: "the query parameter \(name)")
                if let converted { out.append((name, converted)) }
            }
            return out
        }
        var out: Members = []
        for matcher in try HoverflyImport.matchers(field, what: "the query") {
            guard let text = matcher.text else { throw ImportError("the query matcher's value is not text") }
            switch matcher.kind {
            case "exact":
                var values: [(String, [String])] = []
                for item in PercentDecoding.queryItems(Substring(text)) {
                    if let index = values.firstIndex(where: { $0.0 == item.name }) {
                        values[index].1.append(item.value)
                    } else {
                        values.append((item.name, [item.value]))
                    }
                }
                for (name, list) in values {
                    out.append((name, list.count == 1 ? .scalar(list[0]) : .mapping([("allOf", .list(list.map { .scalar($0) }))])))
                }
                if !values.isEmpty { warnings.append("the query string matched exactly by Hoverfly is matched parameter by parameter: other parameters are let through") }
            case "glob" where text == "*": break
            default: throw ImportError("a \(matcher.kind) matcher on the whole query string has no equivalent")
            }
        }
        return out
    }

    mutating func headers(_ field: JSONValue?) throws(ImportError) -> Members {
        guard case .object(let members)? = field else { return [] }
        var out: Members = []
        for (name, value) in members {
            // v1 to v4 list the values the request must carry; v5 gives matchers.
            if case .array(let items) = value, items.allSatisfy({ $0.stringValue != nil }) {
                let values = items.compactMap(\.stringValue)
                if values.count == 1 {
                    out.append((name, .scalar(values[0])))
                } else if !values.isEmpty {
                    out.append((name, .mapping([("allOf", .list(values.map { .scalar($0) }))])))
                }
                continue
            }
            if let converted = try valueMatchers(try HoverflyImport.matchers(value, what: "the header \(name)"), what: "the header \(name)") {
                out.append((name, converted))
            }
        }
        return out
    }

    /// The matchers of a header or query parameter as one value operator (`allOf` when there are several).
    mutating func valueMatchers(_ matchers: [HoverflyImport.Matcher], what: String) throws(ImportError) -> YAMLText.Value? {
        var out: [YAMLText.Value] = []
        for matcher in matchers {
            if matcher.kind == "array" {
                guard case .array(let items) = matcher.value else { throw ImportError("the array matcher of \(what) has no list") }
                out += items.compactMap(\.stringValue).map { .mapping([("equalTo", .scalar($0))]) }
                warnings.append("the array matcher of \(what) is matched as 'each value present': order, count and unknown values are not checked")
                continue
            }
            guard let text = matcher.text else { throw ImportError("the \(matcher.kind) matcher of \(what) has no text value") }
            switch matcher.kind {
            case "exact": out.append(.mapping([("equalTo", .scalar(text))]))
            case "glob": out.append(.mapping([("matches", .scalar(HoverflyImport.globRegex(text)))]))
            case "regex": out.append(.mapping([("matches", .scalar(try HoverflyImport.checkedRegex(text, what: what)))]))
            default: throw ImportError("a \(matcher.kind) matcher on \(what) has no equivalent")
            }
        }
        guard let first = out.first else { return nil }
        return out.count == 1 ? first : .mapping([("allOf", .list(out))])
    }

    mutating func body(_ field: JSONValue?) throws(ImportError) -> YAMLText.Value? {
        var operators: [Members] = []
        for matcher in try HoverflyImport.matchers(field, what: "the body") {
            if matcher.kind == "form" {
                guard case .object(let fields) = matcher.value else { throw ImportError("the form matcher has no fields") }
                var form: Members = []
                for (name, value) in fields {
                    let list = try HoverflyImport.matchers(value, what: "the form field \(name)")
                    if let converted = try valueMatchers(list, what: "the form field \(name)") { form.append((name, converted)) }
                }
                operators.append([("form", .mapping(form))])
                continue
            }
            guard let text = matcher.text else { throw ImportError("the body's \(matcher.kind) matcher has no text value") }
            switch matcher.kind {
            case "exact": operators.append([("equalTo", .text(text))])
            case "glob": operators.append([("matches", .scalar(HoverflyImport.globRegex(text, dotAll: true)))])
            case "regex": operators.append([("matches", .scalar(try HoverflyImport.checkedRegex(text, what: "the body")))])
            case "json", "jsonpartial":
                guard let json = try? JSONValue.parse(text) else {
                    throw ImportError("the body's \(matcher.kind) matcher is not JSON, so Hoverfly never matches it")
                }
                if matcher.kind == "json" {
                    operators.append([("json", .json(json))])
                } else {
                    operators.append([("json", .json(json)), ("ignoreExtraFields", .json(.bool(true)))])
                    warnings.append("jsonPartial is matched from the body's root: Hoverfly also finds the fragment inside nested objects")
                }
            case "jsonpath":
                do {
                    _ = try JSONPath(text)
                } catch {
                    throw ImportError("the body's JSONPath \(text) cannot be used: \(error.message)")
                }
                operators.append([("jsonPath", .scalar(text))])
            case "xml":
                guard (try? XMLTree(parsing: text)) != nil else {
                    throw ImportError("the body's xml matcher is not XML, so Hoverfly never matches it")
                }
                operators.append([("xml", .text(text))])
            case "xpath":
                do {
                    _ = try XPath(text)
                } catch {
                    throw ImportError("the body's XPath \(text) cannot be used: \(error.message)")
                }
                operators.append([("xpath", .scalar(text))])
            default:
                throw ImportError("a \(matcher.kind) matcher on the body has no equivalent")
            }
        }
        guard let first = operators.first else { return nil }
        return operators.count == 1 ? .mapping(first) : .mapping([("allOf", .list(operators.map { .mapping($0) }))])
    }

    // MARK: Response

    mutating func response(_ response: JSONValue) throws(ImportError) -> Members {
        var out: Members = []
        var status = 200
        if case .number(let number, _)? = response["status"] {
            guard let code = Int(exactly: number), (100...599).contains(code) else {
                throw ImportError("the status \(number) is not an HTTP status")
            }
            status = code
        }
        out.append(("status", .number(status)))
        var contentType: String?
        var hasHeaderTemplate = false
        if case .object(let fields)? = response["headers"] {
            var headers: Members = []
            for (name, value) in fields {
                guard HTTP1Parser.isToken(name) else { throw ImportError("the response header name \(name.debugDescription) is not an HTTP token") }
                let values: [String]
                switch value {
                case .array(let items): values = items.compactMap(\.stringValue)
                case .string(let text): values = [text]
                default: values = []
                }
                let lower = name.lowercased()
                if lower == "content-length" || lower == "transfer-encoding" { continue }
                if lower == "content-type" { contentType = values.first }
                if values.contains(where: { $0.contains("{{") }) { hasHeaderTemplate = true }
                guard !values.isEmpty else { continue }
                headers.append((name, values.count == 1 ? .scalar(values[0]) : .list(values.map { .scalar($0) })))
            }
            if !headers.isEmpty { out.append(("headers", .mapping(headers))) }
        }
        var body: [UInt8]
        if let path = response["bodyFile"]?.stringValue, !path.isEmpty {
            guard let bytes = bodyFile(path) else { throw ImportError("its bodyFile \(path) cannot be read") }
            body = bytes
        } else {
            let text = response["body"]?.stringValue ?? ""
            if response["encodedBody"] == .bool(true) {
                guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                    throw ImportError("its body is marked encodedBody but is not base64")
                }
                body = Array(data)
            } else {
                body = Array(text.utf8)
            }
        }
        if response["templated"] == .bool(true) {
            if hasHeaderTemplate { throw ImportError("a response header holds '{{', which an Orrery template would read as a tag") }
            switch HoverflyTemplate.convert(String(decoding: body, as: UTF8.self)) {
            case .success(let template):
                body = Array(template.utf8)
                if template.contains("{{uuid}}") {
                    warnings.append("randomUuid is one UUID for the whole answer in Orrery, a new one at each use in Hoverfly")
                }
                out.append(("template", .json(.bool(true))))
            case .failure(let error):
                throw error
            }
        }
        if !body.isEmpty { out.append(file.body(body, contentType: contentType)) }
        if case .number(let delay, _)? = response["fixedDelay"], delay > 0 {
            out.append(("delay", .number(Int(delay))))
        } else if let logNormal = response["logNormalDelay"], case .object = logNormal {
            func number(_ key: String) -> Double {
                if case .number(let value, _)? = logNormal[key] { return value }
                return 0
            }
            let median = number("median"), mean = number("mean")
            if median > 0 {
                let sigma = mean > median ? (2 * log(mean / median)).squareRoot() : 0
                let sigmaText = String(format: "%.3f", sigma)
                out.append(("delay", .mapping([("lognormal", .mapping([("median", .number(Int(median))), ("sigma", .json(.number(sigma, text: sigmaText)))]))])))
                if number("min") > 0 || number("max") > 0 {
                    warnings.append("logNormalDelay's min and max are not kept: Orrery cuts the tail at 600000 ms")
                }
            }
        }
        if let action = response["postServeAction"]?.stringValue, !action.isEmpty {
            warnings.append("the post-serve action \(action) is not run")
        }
        return out
    }

    // MARK: State and delays

    /// Scenario keys: Hoverfly's state is a map of keys, Orrery's scenario one named state.
    func state(request: JSONValue, response: JSONValue) throws(ImportError) -> Members {
        func map(_ value: JSONValue?) -> [(String, String)] {
            guard case .object(let members)? = value else { return [] }
            return members.compactMap { key, value in value.stringValue.map { (key, $0) } }
        }
        let requires = map(request["requiresState"])
        let transitions = map(response["transitionsState"])
        var removes: [String] = []
        if case .array(let items)? = response["removesState"] { removes = items.compactMap(\.stringValue) }
        let keys = Set(requires.map(\.0) + transitions.map(\.0) + removes)
        guard let key = keys.first else { return [] }
        guard keys.count == 1 else {
            throw ImportError("its state spans several keys (\(keys.sorted().joined(separator: ", "))); an Orrery scenario holds one state")
        }
        let isSequence = key.contains("sequence:")
        func orrery(_ state: String) -> String { isSequence && state == "1" ? "Started" : state }
        var out: Members = [("scenario", .scalar(key))]
        if let required = requires.first?.1 { out.append(("requiredState", .scalar(orrery(required)))) }
        if let next = transitions.first?.1 {
            out.append(("newState", .scalar(orrery(next))))
        } else if !removes.isEmpty {
            out.append(("newState", .scalar("Started")))
        }
        return out
    }

    mutating func globalDelay(method: String?, host: String?, path: String?) -> Int? {
        guard !delays.rules.isEmpty else { return nil }
        guard let host, let path else {
            warnings.append("globalActions delays are applied only to pairs with an exact destination and path")
            return nil
        }
        for rule in delays.rules where rule.method.isEmpty || rule.method == method {
            guard let pattern = rule.pattern else {
                warnings.append("the global delay's urlPattern \(rule.source) cannot be used")
                continue
            }
            if pattern.matches(host + path) { return rule.delay }
        }
        return nil
    }
}

/// Header conditions of a stub, several on one header joined into one `allOf`.
// In this file rather than one of its own: Swift 6.3 then reports a circular reference through YAMLText.Value.
enum HeaderConditions {
    /// A value operator as the operands of an `allOf` it joins.
    static func allOfOperands(_ value: YAMLText.Value) -> [YAMLText.Value] {
        switch value {
        case .scalar(let text):
            return [.mapping([("equalTo", .scalar(text))])]
        case .mapping(let inner):
            if inner.count == 1, inner[0].0 == "allOf" {
                if case .list(let items) = inner[0].1 { return items }
            }
            return [value]
        default:
            return [value]
        }
    }

    /// Conditions on the same header (names without regard to case) as one `allOf`.
    static func merged(_ members: [(String, YAMLText.Value)]) -> [(String, YAMLText.Value)] {
        var out: [(String, YAMLText.Value)] = []
        for (name, value) in members {
            guard let index = out.firstIndex(where: { $0.0.lowercased() == name.lowercased() }) else {
                out.append((name, value))
                continue
            }
            let operands = Self.allOfOperands(out[index].1) + Self.allOfOperands(value)
            out[index].1 = .mapping([("allOf", .list(operands))])
        }
        return out
    }
}
