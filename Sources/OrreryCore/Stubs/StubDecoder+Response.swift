import Foundation

// The response side of a stub: status, headers, the body, and what is decided per request.
extension StubDecoder {
    mutating func decodeResponse(_ node: SourceNode, scope: TemplateScope) -> ResponseDefinition {
        var response = ResponseDefinition()
        guard case .object(let members) = node.value else {
            fail(node.line, "'response' must be a mapping, not \(node.kindName)")
            return response
        }
        checkKeys(members, allowed: Self.responseKeys, in: "'response'")
        if let status = node["status"] {
            response.status = decodeStatus(status) ?? 200
        }
        var headerLines: [Int] = []
        if let headers = node["headers"] {
            (response.headers, headerLines) = responseHeaders(headers)
        }
        if let trailers = node["trailers"] {
            if case .object = trailers.value {
                response.trailers = responseHeaders(trailers).headers
            } else {
                fail(
                    trailers.line,
                    "'trailers' must be a mapping such as { grpc-status: \"0\" }, not \(trailers.kindName)")
            }
        }
        var isTemplate = false
        var dialect = TemplateDialect.mustache
        if let flag = node["template"] {
            if case .bool(let value) = flag.value {
                isTemplate = value
            } else if flag.stringValue == "handlebars" {
                isTemplate = true
                dialect = .handlebars
            } else {
                fail(
                    flag.line,
                    "'template' must be true, false or handlebars, not \(flag.scalarText.map { "'\($0)'" } ?? flag.kindName)"
                )
            }
        }
        let compiler = TemplateCompiler(scope: scope, dialect: dialect)
        var bodyTemplate: Template?
        checkExclusive(members, ["body", "json", "bodyFile"])
        if let body = node["body"] {
            switch body.value {
            case .object, .array:
                if isTemplate {
                    bodyTemplate = compileJSON(body, compiler)
                } else {
                    response.body = Array(body.jsonValue.encoded.utf8)
                }
                setDefault(&response.headers, "Content-Type", "application/json")
            case .null:
                break
            default:
                let text = body.scalarText ?? ""
                if isTemplate {
                    bodyTemplate = compile(text, compiler, line: body.line)
                } else {
                    response.body = Array(text.utf8)
                }
            }
        } else if let json = node["json"] {
            if isTemplate {
                bodyTemplate = compileJSON(json, compiler)
            } else {
                response.body = Array(json.jsonValue.encoded.utf8)
            }
            setDefault(&response.headers, "Content-Type", "application/json")
        } else if let file = node["bodyFile"], let relative = string(file, "bodyFile") {
            if let bytes = readBodyFile(relative, line: file.line) {
                if isTemplate {
                    bodyTemplate = compileBodyFile(bytes, relative, compiler, line: file.line)
                } else {
                    response.body = bytes
                }
                if let type = Self.contentType(forExtension: (relative as NSString).pathExtension) {
                    setDefault(&response.headers, "Content-Type", type)
                }
            }
        }
        if isTemplate {
            var headerTemplates: [ResponseTemplate.HeaderTemplate] = []
            for (index, entry) in response.headers.entries.enumerated() where entry.value.contains("{{") {
                let line = index < headerLines.count ? headerLines[index] : node.line
                if let template = compile(entry.value, compiler, line: line) {
                    headerTemplates.append(.init(index: index, value: template))
                }
            }
            let template = ResponseTemplate(body: bodyTemplate, headers: headerTemplates)
            if template.isConstant {
                // Nothing reads the request: the response is static after all, and is prepared (and compressed) once.
                var context = TemplateContext(request: HTTPRequest(method: "GET", target: "/"))
                response.body = bodyTemplate?.render(&context) ?? []
            } else {
                response.template = template
            }
        }
        if let proxy = node["proxy"] {
            response.proxy = decodeProxy(proxy)
            // The upstream answers: nothing else of a response applies, but for a delay before forwarding.
            for member in members where member.key != "proxy" && member.key != "delay" {
                fail(member.keyLine, "'proxy' forwards the request, so '\(member.key)' has no effect; leave it out")
            }
        }
        if let delay = node["delay"] { response.delay = decodeDelay(delay) }
        if let throttle = node["throttle"] { response.throttle = decodeThrottle(throttle) }
        if let fault = node["fault"] { response.fault = decodeFault(fault) }
        if let paginate = node["paginate"] { response.pagination = decodePagination(paginate) }
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
        decodeRealtime(node, members, into: &response, scope: scope)
        checkConflicts(members, response, isTemplate: isTemplate)
        response.headers = internedHeaders.insert(response.headers).memberAfterInsert
        return response
    }

    /// Keys that make no sense together: a body beside the page that `paginate` makes, a response beside a fault
    /// that sends none, an encoding for a body made per request.
    private mutating func checkConflicts(
        _ members: [(key: String, keyLine: Int, value: SourceNode)], _ response: ResponseDefinition, isTemplate: Bool
    ) {
        func line(_ key: String) -> Int? { members.first { $0.key == key }?.keyLine }
        if let paginateLine = line("paginate") {
            for key in ["body", "json", "bodyFile"] {
                if let keyLine = line(key) { fail(keyLine, "'paginate' makes the body from its items; leave out '\(key)'") }
            }
            if isTemplate {
                fail(line("template") ?? paginateLine, "'template' cannot be combined with 'paginate': a page's body is made from its items")
            }
        }
        if let fault = response.fault {
            if let paginateLine = line("paginate") {
                fail(paginateLine, "'fault' cannot be combined with 'paginate': a fault answers instead of the page")
            }
            if !fault.sendsResponse {
                for key in ["status", "headers", "body", "json", "bodyFile", "throttle", "encoding"] {
                    if let keyLine = line(key) {
                        fail(keyLine, "'fault: \(fault.rawValue)' sends no response, so '\(key)' has no effect; leave it out")
                    }
                }
                if isTemplate, let keyLine = line("template") {
                    fail(keyLine, "'fault: \(fault.rawValue)' sends no response, so 'template' has no effect; leave it out")
                }
            }
            if fault == .noResponse, let keyLine = line("delay") {
                fail(keyLine, "'fault: noResponse' never answers, so 'delay' has no effect; leave it out")
            }
        }
        if isTemplate || response.pagination != nil, let coding = response.encoding, coding != .identity, let keyLine = line("encoding") {
            fail(keyLine, "a body made per request ('template', 'paginate') is not encoded ahead; leave out 'encoding: \(coding.rawValue)'")
        }
    }

    // MARK: - Templates

    /// Whether the stub text is YAML, where a text of several lines is a block whose lines are the file's.
    private var isYAML: Bool {
        let lowered = displayPath.lowercased()
        return lowered.hasSuffix(".yaml") || lowered.hasSuffix(".yml")
    }

    /// Compiles a body or header template, reporting an error at its line in the stub file.
    mutating func compile(_ text: String, _ compiler: TemplateCompiler, line: Int) -> Template? {
        do {
            return try compiler.compileReportingAll(text)
        } catch {
            for error in error.errors {
                fail(TemplateCompiler.fileLine(of: error, in: text, at: line, isYAML: isYAML), "template: \(error.message)")
            }
            return nil
        }
    }

    mutating func compileJSON(_ node: SourceNode, _ compiler: TemplateCompiler) -> Template? {
        do {
            return try compiler.compileJSONReportingAll(node, isYAML: isYAML)
        } catch {
            for error in error.errors { fail(error.line, "template: \(error.message)") }
            return nil
        }
    }

    private mutating func compileBodyFile(_ bytes: [UInt8], _ relative: String, _ compiler: TemplateCompiler, line: Int) -> Template? {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            fail(line, "bodyFile '\(relative)' is not UTF-8 text, so it cannot be a template")
            return nil
        }
        do {
            return try compiler.compileReportingAll(text)
        } catch {
            for error in error.errors { fail(line, "template in bodyFile '\(relative)', line \(error.line): \(error.message)") }
            return nil
        }
    }

    mutating func decodeStatus(_ node: SourceNode) -> Int? {
        guard let status = decodeStatusCode(node) else { return nil }
        // A 1xx is not an answer: a client reading one waits for the final one that never comes.
        guard status >= 200 else {
            fail(
                node.line,
                "status \(status) is informational (1xx) and cannot be a stub's answer; use 200...599"
                    + (status == 101 ? " (101 Switching Protocols belongs to WebSocket stubs)" : ""))
            return nil
        }
        return status
    }

    private mutating func decodeStatusCode(_ node: SourceNode) -> Int? {
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

    mutating func readBodyFile(_ relative: String, line: Int) -> [UInt8]? {
        do {
            return try source.bodyFile(relative, from: folder, maximumBytes: maximumBodyFileBytes)
        } catch .outsideRoot {
            fail(line, "bodyFile '\(relative)' is outside the stubs folder")
        } catch .tooLarge(let size) {
            fail(line, "bodyFile '\(relative)' is \(size) bytes, over --max-body-file (\(maximumBodyFileBytes) bytes)")
        } catch {
            fail(line, "bodyFile '\(relative)' cannot be read")
        }
        return nil
    }

    /// The response headers, and the line each value was written on (for errors in templated values).
    mutating func responseHeaders(_ node: SourceNode) -> (headers: HTTPHeaders, lines: [Int]) {
        var headers = HTTPHeaders()
        var lines: [Int] = []
        guard case .object(let members) = node.value else {
            fail(node.line, "'headers' must be a mapping, not \(node.kindName)")
            return (headers, lines)
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
                lines.append(value.line)
            }
        }
        return (headers, lines)
    }
}
