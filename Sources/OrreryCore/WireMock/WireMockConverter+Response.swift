import Foundation

// The response side of a mapping: status, headers, the body, delays, faults and templates.
extension WireMockConverter {
    static let responseKeys: Set<String> = [
        "status", "statusMessage", "headers", "body", "jsonBody", "base64Body", "bodyFileName", "fixedDelayMilliseconds",
        "delayDistribution", "chunkedDribbleDelay", "fault", "transformers", "transformerParameters", "proxyBaseUrl",
        "additionalProxyRequestHeaders", "removeProxyRequestHeaders", "fromConfiguredStub",
    ]

    /// WireMock's fault names and Orrery's: each sends the same bytes, or as near as the notes in docs/wiremock.md say.
    static let faults = [
        "CONNECTION_RESET_BY_PEER": "connectionReset",
        "EMPTY_RESPONSE": "emptyResponse",
        "RANDOM_DATA_THEN_CLOSE": "malformedResponse",
        "MALFORMED_RESPONSE_CHUNK": "truncatedBody",
    ]

    struct ConvertedResponse {
        var node: SourceNode
        var setsContentType: Bool
    }

    mutating func convertResponse(_ node: SourceNode, path: String, parameterNames: [String]) -> ConvertedResponse {
        guard let members = node.members else {
            report(node, path, "'response' must be an object, not \(node.kindName)", .skipped)
            return ConvertedResponse(node: .mapping([], line: node.line), setsContentType: false)
        }
        for member in members where !Self.responseKeys.contains(member.key) {
            report(member.value, "\(path).\(member.key)", "response field '\(member.key)' is not supported", .skipped)
        }
        var out: [(String, SourceNode)] = []
        var isTemplate = false
        if let transformers = node["transformers"] {
            if case .array(let items) = transformers.value {
                for item in items {
                    if item.stringValue == "response-template" {
                        isTemplate = true
                    } else {
                        report(item, "\(path).transformers", "transformer '\(item.scalarText ?? item.kindName)' is not supported", .skipped)
                    }
                }
            } else {
                report(transformers, "\(path).transformers", "'transformers' must be a list", .skipped)
            }
        }
        if let parameters = node["transformerParameters"] {
            report(parameters, "\(path).transformerParameters", "transformer parameters are not supported", .skipped)
        }
        if let base = node["proxyBaseUrl"] {
            return ConvertedResponse(node: proxy(node, base: base, path: path), setsContentType: false)
        }
        for key in ["additionalProxyRequestHeaders", "removeProxyRequestHeaders"] {
            if let value = node[key] {
                report(value, "\(path).\(key)", "'\(key)' applies only beside 'proxyBaseUrl'", .skipped)
            }
        }
        let translator = HandlebarsCompiler(parameterNames: parameterNames)
        var fault: String?
        if let given = node["fault"] {
            if let name = given.stringValue, let native = Self.faults[name] {
                fault = native
                out.append(("fault", .text(native, line: given.line)))
            } else {
                report(given, "\(path).fault", "unknown fault '\(given.scalarText ?? given.kindName)' (WireMock's are \(Self.faults.keys.sorted().joined(separator: ", ")))", .skipped)
            }
        }
        // Faults that send nothing ignore the rest of the response in WireMock; Orrery refuses it beside them.
        let sendsResponse = fault == nil || fault == "truncatedBody"
        var setsContentType = false
        var bodyLength = 0
        if sendsResponse {
            if let status = node["status"] {
                if let code = status.integerValue {
                    out.append(("status", .integer(code, line: status.line)))
                } else {
                    report(status, "\(path).status", "'status' must be a number", .skipped)
                }
            }
            if let message = node["statusMessage"] {
                report(message, "\(path).statusMessage", "Orrery sends the standard reason phrase for the status", .differs)
            }
            if let headers = node["headers"], let headerMembers = headers.members {
                var converted: [(String, SourceNode)] = []
                for member in headerMembers {
                    if member.key.lowercased() == "content-type" { setsContentType = true }
                    converted.append((member.key, templated(member.value, isTemplate, translator, path: "\(path).headers.\(member.key)")))
                }
                out.append(("headers", .mapping(converted, line: headers.line)))
            }
            let bodies = ["body", "jsonBody", "base64Body", "bodyFileName"].filter { node[$0] != nil }
            if bodies.count > 1, let extra = node[bodies[1]] {
                report(extra, "\(path).\(bodies[1])", "a response has one body; WireMock would not use both \(bodies.joined(separator: " and "))", .skipped)
            }
            if let json = node["jsonBody"].map(\.withJacksonNumbers), setsContentType, !isTemplate, bodies.count == 1 {
                // With its own Content-Type, a JSON body reads best as JSON; Orrery serves it compactly, as WireMock.
                bodyLength = json.jsonValue.encodedBytes.count
                out.append(("json", json))
            } else if let body = body(node, path: path, isTemplate: isTemplate, translator: translator) {
                bodyLength = body.length
                out.append((body.key, body.value))
            }
            if isTemplate {
                out.append(("template", .text("handlebars", line: node["transformers"]?.line ?? node.line)))
            }
        }
        if let delay = delay(node, path: path) { out.append(("delay", delay)) }
        if let given = node["chunkedDribbleDelay"] {
            if let chunks = given["numberOfChunks"]?.integerValue, let total = given["totalDuration"]?.integerValue, chunks > 0, total > 0 {
                // The body spread over the duration; Orrery paces it byte by byte rather than in so many chunks.
                let rate = max(1, (bodyLength * 1000 + total - 1) / total)
                out.append(("throttle", .mapping([("bytesPerSecond", .integer(rate, line: given.line))], line: given.line)))
            } else {
                report(given, "\(path).chunkedDribbleDelay", "needs 'numberOfChunks' and 'totalDuration' above 0", .skipped)
            }
        }
        return ConvertedResponse(node: .mapping(out, line: node.line), setsContentType: setsContentType)
    }

    /// A proxied response: forwarded to `proxyBaseUrl` with the request's path and query, as WireMock forwards it;
    /// WireMock ignores the rest of such a response but for its delay.
    private mutating func proxy(_ node: SourceNode, base: SourceNode, path: String) -> SourceNode {
        var proxy: [(String, SourceNode)] = [("to", base)]
        if let added = node["additionalProxyRequestHeaders"] {
            if added.members != nil {
                proxy.append(("addHeaders", added))
            } else {
                report(
                    added, "\(path).additionalProxyRequestHeaders", "must be an object of header names to values",
                    .skipped)
            }
        }
        if let removed = node["removeProxyRequestHeaders"] {
            if case .array = removed.value {
                proxy.append(("removeHeaders", removed))
            } else {
                report(removed, "\(path).removeProxyRequestHeaders", "must be a list of header names", .skipped)
            }
        }
        var out: [(String, SourceNode)] = [("proxy", .mapping(proxy, line: base.line))]
        if let delay = delay(node, path: path) { out.append(("delay", delay)) }
        return .mapping(out, line: node.line)
    }

    /// A header value, checked as Handlebars when the response is a template.
    private mutating func templated(
        _ value: SourceNode, _ isTemplate: Bool, _ translator: HandlebarsCompiler, path: String
    ) -> SourceNode {
        guard isTemplate else { return value }
        if case .array(let items) = value.value {
            return .list(items.map { templated($0, true, translator, path: path) }, line: value.line)
        }
        guard let text = value.scalarText else { return value }
        return .text(translate(text, translator, node: value, path: path) ?? text, line: value.line)
    }

    /// The template as it is, once it compiles: Orrery runs WireMock's Handlebars itself (`template: handlebars`).
    private mutating func translate(_ text: String, _ translator: HandlebarsCompiler, node: SourceNode, path: String)
        -> String?
    {
        do {
            _ = try translator.compile(text)
            return text
        } catch {
            report(node, path, "template, line \(error.line): \(error.message)", .skipped)
            return nil
        }
    }

    /// The body as Orrery writes it, and its length in bytes.
    private mutating func body(
        _ node: SourceNode, path: String, isTemplate: Bool, translator: HandlebarsCompiler
    ) -> (key: String, value: SourceNode, length: Int)? {
        func text(_ text: String, _ at: SourceNode, _ here: String) -> (String, SourceNode, Int)? {
            guard isTemplate else { return ("body", .text(text, line: at.line), text.utf8.count) }
            guard let translated = translate(text, translator, node: at, path: here) else { return nil }
            return ("body", .text(translated, line: at.line), text.utf8.count)
        }
        if let body = node["body"] {
            // WireMock serves a body given as JSON compactly, without a Content-Type of its own.
            let written = body.scalarText ?? body.jsonValue.encoded
            return text(written, body, "\(path).body")
        }
        if let json = node["jsonBody"].map(\.withJacksonNumbers) {
            return text(json.jsonValue.encoded, json, "\(path).jsonBody")
        }
        if let encoded = node["base64Body"] {
            guard let value = encoded.stringValue, let data = Data(base64Encoded: value, options: .ignoreUnknownCharacters) else {
                report(encoded, "\(path).base64Body", "'base64Body' must be base64 text", .skipped)
                return nil
            }
            guard let decoded = String(validating: Array(data), as: UTF8.self), !isTemplate else {
                report(encoded, "\(path).base64Body", "a body that is not UTF-8 text is not supported inline; use bodyFileName", .skipped)
                return nil
            }
            return text(decoded, encoded, "\(path).base64Body")
        }
        if let file = node["bodyFileName"] {
            guard let name = file.stringValue, !name.contains("{{") else {
                report(file, "\(path).bodyFileName", "a templated body file name is not supported", .skipped)
                return nil
            }
            guard let bodyFiles else { return ("bodyFile", .text(name, line: file.line), 0) }
            guard let data = try? bodyFiles.contents(of: name) else {
                let folder = bodyFiles.root.split(separator: "/").last.map(String.init) ?? bodyFiles.root
                report(file, "\(path).bodyFileName", "'\(name)' is not in \(folder)/", .skipped)
                return nil
            }
            if isTemplate {
                guard let content = String(validating: Array(data), as: UTF8.self) else {
                    report(file, "\(path).bodyFileName", "'\(name)' is not UTF-8 text, so it cannot be a template", .skipped)
                    return nil
                }
                return text(content, file, "\(path).bodyFileName")
            }
            return ("bodyFile", .text(name, line: file.line), data.count)
        }
        return nil
    }

    /// `fixedDelayMilliseconds` and `delayDistribution`, which WireMock adds together.
    private mutating func delay(_ node: SourceNode, path: String) -> SourceNode? {
        var fixed = 0
        if let given = node["fixedDelayMilliseconds"] {
            if let value = given.integerValue, value >= 0 {
                fixed = value
            } else {
                report(given, "\(path).fixedDelayMilliseconds", "must be a whole number of milliseconds", .skipped)
            }
        }
        guard let distribution = node["delayDistribution"] else {
            return fixed > 0 ? .integer(fixed, line: node["fixedDelayMilliseconds"]?.line ?? node.line) : nil
        }
        let line = distribution.line
        let here = "\(path).delayDistribution"
        switch distribution["type"]?.stringValue {
        case "fixed":
            guard let value = distribution["milliseconds"]?.integerValue else { break }
            return .integer(fixed + value, line: line)
        case "uniform":
            guard let lower = distribution["lower"]?.integerValue, let upper = distribution["upper"]?.integerValue else { break }
            return .mapping([("uniform", .list([.integer(lower + fixed, line: line), .integer(upper + fixed, line: line)], line: line))], line: line)
        case "lognormal":
            guard case .number(let median, let medianText)? = distribution["median"]?.value,
                case .number(let sigma, let sigmaText)? = distribution["sigma"]?.value
            else { break }
            if fixed > 0 {
                report(distribution, here, "a fixed delay added to a lognormal one is left out", .differs)
            }
            return .mapping(
                [("lognormal", .mapping([
                    ("median", SourceNode(.number(median, text: medianText), line: line)),
                    ("sigma", SourceNode(.number(sigma, text: sigmaText), line: line)),
                ], line: line))], line: line)
        default:
            report(distribution, here, "unknown delay distribution '\(distribution["type"]?.scalarText ?? "")' (fixed, uniform, lognormal)", .skipped)
            return nil
        }
        report(distribution, here, "the '\(distribution["type"]?.scalarText ?? "")' distribution is missing a number", .skipped)
        return nil
    }
}
