/// Compiles Mustache text into a `Template`: `{{name}}`, `{{{name}}}` and `{{& name}}` (the same: nothing is
/// escaped for HTML), `{{! comment}}`, sections `{{#name}}…{{/name}}` and inverted sections `{{^name}}…{{/name}}`.
///
/// Section, inverted, closing and comment tags alone on a line take the line with them, as the Mustache spec says,
/// so a template written over several lines renders without blank lines where its tags stood.
public struct TemplateCompiler {
    public let scope: TemplateScope
    /// The language of the templates: Orrery's Mustache, or WireMock's Handlebars (`template: handlebars`).
    public let dialect: TemplateDialect

    public init(scope: TemplateScope = TemplateScope(), dialect: TemplateDialect = .mustache) {
        self.scope = scope
        self.dialect = dialect
    }

    /// Compiles text (a text body, a body file or a header value); throws the first error.
    public func compile(_ text: String, mode: Template.Mode = .text) throws(TemplateError) -> Template {
        do {
            return try compileReportingAll(text, mode: mode)
        } catch {
            throw error.errors.first ?? TemplateError(line: 1, message: "the template does not compile")
        }
    }

    /// Compiles text, reporting every error it can find, in the order of their lines: every name that is not one
    /// (a misspelt root, a parameter the path lacks); a tag that breaks the structure (unclosed, unmatched) ends
    /// the search.
    public func compileReportingAll(_ text: String, mode: Template.Mode = .text) throws(TemplateErrors) -> Template {
        if dialect == .handlebars {
            do {
                return try HandlebarsCompiler(parameterNames: scope.parameterNames).compile(text)
            } catch {
                throw TemplateErrors([error])
            }
        }
        var errors: [TemplateError] = []
        var nodes: [TemplateNode] = []
        do {
            nodes = try self.nodes(text, mode: mode, errors: &errors)
        } catch {
            errors.append(error)
        }
        guard errors.isEmpty else { throw TemplateErrors(errors) }
        return Template(source: text, mode: mode, nodes: nodes)
    }

    /// Compiles a `json:` body: each string of the tree (keys too) is a template whose values are JSON-escaped,
    /// and the rest is the tree's compact JSON. Errors are reported at the line of the string that has them, or
    /// with `isYAML`, at the line within a string of several lines (a YAML block, whose text starts on the line
    /// after its indicator).
    public func compileJSON(_ root: SourceNode, isYAML: Bool = false) throws(SourceTemplateError) -> Template {
        do {
            return try compileJSONReportingAll(root, isYAML: isYAML)
        } catch {
            throw error.errors.first ?? SourceTemplateError(line: root.line, message: "the template does not compile")
        }
    }

    /// Compiles a `json:` body, reporting the errors of every string in it, sorted by line.
    public func compileJSONReportingAll(_ root: SourceNode, isYAML: Bool = false) throws(SourceTemplateErrors) -> Template {
        if dialect == .handlebars {
            // Handlebars templates the JSON's text, as WireMock templates a `jsonBody`.
            do {
                return try HandlebarsCompiler(parameterNames: scope.parameterNames).compile(root.jsonValue.encoded)
            } catch {
                throw SourceTemplateErrors(errors: [SourceTemplateError(line: root.line, message: error.message)])
            }
        }
        var nodes: [TemplateNode] = []
        var errors: [SourceTemplateError] = []
        appendJSON(root, isYAML: isYAML, into: &nodes, errors: &errors)
        guard errors.isEmpty else {
            throw SourceTemplateErrors(
                errors: errors.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element))
        }
        return Template(source: root.jsonValue.encoded, mode: .jsonString, nodes: nodes)
    }

    private func appendJSON(
        _ node: SourceNode, isYAML: Bool, into nodes: inout [TemplateNode], errors: inout [SourceTemplateError]
    ) {
        switch node.value {
        case .string(let text):
            appendJSONString(text, line: node.line, isYAML: isYAML, into: &nodes, errors: &errors)
        case .array(let items):
            nodes.append(.literal([UInt8(ascii: "[")]))
            for (index, item) in items.enumerated() {
                if index > 0 { nodes.append(.literal([UInt8(ascii: ",")])) }
                appendJSON(item, isYAML: isYAML, into: &nodes, errors: &errors)
            }
            nodes.append(.literal([UInt8(ascii: "]")]))
        case .object(let members):
            nodes.append(.literal([UInt8(ascii: "{")]))
            for (index, member) in members.enumerated() {
                if index > 0 { nodes.append(.literal([UInt8(ascii: ",")])) }
                appendJSONString(member.key, line: member.keyLine, isYAML: false, into: &nodes, errors: &errors)
                nodes.append(.literal([UInt8(ascii: ":")]))
                appendJSON(member.value, isYAML: isYAML, into: &nodes, errors: &errors)
            }
            nodes.append(.literal([UInt8(ascii: "}")]))
        default:
            nodes.append(.literal(node.jsonValue.encodedBytes))
        }
    }

    private func appendJSONString(
        _ text: String, line: Int, isYAML: Bool, into nodes: inout [TemplateNode], errors: inout [SourceTemplateError]
    ) {
        nodes.append(.literal([UInt8(ascii: "\"")]))
        do {
            nodes += try compileReportingAll(text, mode: .jsonString).nodes
        } catch {
            for error in error.errors {
                errors.append(
                    SourceTemplateError(line: Self.fileLine(of: error, in: text, at: line, isYAML: isYAML), message: error.message))
            }
        }
        nodes.append(.literal([UInt8(ascii: "\"")]))
    }

    // MARK: - Parsing

    private struct OpenSection {
        var name: String
        var lookup: TemplateLookup
        var isInverted: Bool
        var line: Int
        var outer: [TemplateNode]
    }

    /// The nodes of `text`; a name that does not resolve is added to `errors` and the search goes on, a broken
    /// structure is thrown.
    private func nodes(_ text: String, mode: Template.Mode, errors: inout [TemplateError]) throws(TemplateError) -> [TemplateNode] {
        let source = Array(text.utf8)
        var nodes: [TemplateNode] = []
        var open: [OpenSection] = []
        var pending: [UInt8] = []
        var index = 0

        func flush() {
            guard !pending.isEmpty else { return }
            nodes.append(.literal(mode == .jsonString ? TemplateRenderer.jsonEscaped(pending) : pending))
            pending.removeAll(keepingCapacity: true)
        }

        while index < source.count {
            guard let tagStart = Self.find([0x7B, 0x7B], in: source, from: index) else {
                pending += source[index...]
                break
            }
            pending += source[index..<tagStart]
            let isTriple = tagStart + 2 < source.count && source[tagStart + 2] == UInt8(ascii: "{")
            let contentStart = tagStart + (isTriple ? 3 : 2)
            let closer: [UInt8] = isTriple ? [0x7D, 0x7D, 0x7D] : [0x7D, 0x7D]
            guard let contentEnd = Self.find(closer, in: source, from: contentStart) else {
                throw TemplateError(
                    line: Self.line(of: tagStart, in: source),
                    message: "unclosed tag '\(Self.excerpt(source, from: tagStart))': no '\(isTriple ? "}}}" : "}}")' after it")
            }
            var tagEnd = contentEnd + closer.count
            let content = Self.trimmed(source[contentStart..<contentEnd])
            let line = Self.line(of: tagStart, in: source)
            let sigil = isTriple ? UInt8(ascii: "&") : content.first ?? 0
            let isStandaloneKind = !isTriple && [UInt8(ascii: "#"), UInt8(ascii: "^"), UInt8(ascii: "/"), UInt8(ascii: "!")].contains(sigil)
            if isStandaloneKind, let lineEnd = Self.standaloneEnd(source, tagStart: tagStart, tagEnd: tagEnd) {
                while let last = pending.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { pending.removeLast() }
                tagEnd = lineEnd
            }
            index = tagEnd
            let name: String
            switch sigil {
            case UInt8(ascii: "!"):
                continue
            case UInt8(ascii: "#"), UInt8(ascii: "^"), UInt8(ascii: "/"), UInt8(ascii: "&"):
                name = String(decoding: Self.trimmed(isTriple ? content[...] : content.dropFirst()), as: UTF8.self)
            case UInt8(ascii: ">"):
                throw TemplateError(line: line, message: "partials ('{{>') are not supported in response templates")
            case UInt8(ascii: "="):
                throw TemplateError(line: line, message: "changing delimiters ('{{=') is not supported in response templates")
            default:
                name = String(decoding: content, as: UTF8.self)
            }
            guard !name.isEmpty else {
                throw TemplateError(line: line, message: "an empty tag '\(Self.excerpt(source, from: tagStart))' names nothing")
            }
            switch sigil {
            case UInt8(ascii: "#"), UInt8(ascii: "^"):
                flush()
                let lookup = resolveReporting(name, inSection: !open.isEmpty, line: line, errors: &errors)
                open.append(OpenSection(name: name, lookup: lookup, isInverted: sigil == UInt8(ascii: "^"), line: line, outer: nodes))
                nodes = []
            case UInt8(ascii: "/"):
                flush()
                guard let section = open.popLast() else {
                    throw TemplateError(line: line, message: "'{{/\(name)}}' closes a section that was never opened")
                }
                guard section.name == name else {
                    throw TemplateError(
                        line: line,
                        message: "'{{/\(name)}}' does not match the open section '{{\(section.isInverted ? "^" : "#")\(section.name)}}' (line \(section.line))")
                }
                let children = nodes
                nodes = section.outer
                nodes.append(.section(section.lookup, inverted: section.isInverted, children))
            default:
                flush()
                nodes.append(.value(resolveReporting(name, inSection: !open.isEmpty, line: line, errors: &errors)))
            }
        }
        flush()
        if let section = open.last {
            throw TemplateError(
                line: section.line,
                message: "the section '{{\(section.isInverted ? "^" : "#")\(section.name)}}' is never closed (no '{{/\(section.name)}}')")
        }
        return nodes
    }

    /// The lookup for a name; one that does not resolve is reported and stands in as `.current`, since the template
    /// will not be used.
    private func resolveReporting(
        _ name: String, inSection: Bool, line: Int, errors: inout [TemplateError]
    ) -> TemplateLookup {
        do {
            return try resolve(name, inSection: inSection, line: line)
        } catch {
            errors.append(error)
            return .current
        }
    }

    private func resolve(_ name: String, inSection: Bool, line: Int) throws(TemplateError) -> TemplateLookup {
        if name == "." {
            guard inSection else {
                throw TemplateError(line: line, message: "'{{.}}' stands for a section's item, and is outside any section")
            }
            return .current
        }
        let components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !components.contains(where: { $0.isEmpty || $0.contains(where: \.isWhitespace) }) else {
            throw TemplateError(line: line, message: "'\(name)' is not a name (parts joined by single dots, no spaces)")
        }
        let isRootName = components.first.map { TemplateScope.roots.contains($0) } ?? false
        // Inside a section, a name may be a field of the items, which loading cannot know: only names that start
        // like the context's are checked there.
        if inSection && !isRootName { return .contextual(components, fallback: nil) }
        switch scope.rootLookup(components) {
        case .success(let lookup): return inSection ? .contextual(components, fallback: lookup) : .root(lookup)
        case .failure(let error): throw TemplateError(line: line, message: error.message)
        }
    }

    /// The stub file's line of an error in a template written at `line`: a text of several lines in YAML is a
    /// block (`|`), which starts on the next line; elsewhere line breaks are escapes that do not move in the file.
    public static func fileLine(of error: TemplateError, in text: String, at line: Int, isYAML: Bool) -> Int {
        isYAML && text.contains("\n") ? line + error.line : line
    }

    // MARK: - Bytes

    static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard needle.count > 0, bytes.count >= needle.count else { return nil }
        var index = start
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == needle[0] {
                var matched = true
                for offset in 1..<needle.count where bytes[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    /// Where the text after a standalone tag's line starts, or nil when the tag shares its line with other text.
    static func standaloneEnd(_ source: [UInt8], tagStart: Int, tagEnd: Int) -> Int? {
        var before = tagStart
        while before > 0, source[before - 1] == UInt8(ascii: " ") || source[before - 1] == UInt8(ascii: "\t") { before -= 1 }
        guard before == 0 || source[before - 1] == UInt8(ascii: "\n") else { return nil }
        var after = tagEnd
        while after < source.count, source[after] == UInt8(ascii: " ") || source[after] == UInt8(ascii: "\t") { after += 1 }
        if after == source.count { return after }
        if source[after] == UInt8(ascii: "\n") { return after + 1 }
        if source[after] == UInt8(ascii: "\r"), after + 1 < source.count, source[after + 1] == UInt8(ascii: "\n") { return after + 2 }
        return nil
    }

    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { slice.removeFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { slice.removeLast() }
        return slice
    }

    static func line(of position: Int, in source: [UInt8]) -> Int {
        1 + source[..<position].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    /// The tag at `start`, up to its first line break or 40 bytes, for error messages.
    static func excerpt(_ source: [UInt8], from start: Int) -> String {
        let end = min(source.count, start + 40)
        let piece = source[start..<end].prefix { $0 != UInt8(ascii: "\n") }
        return String(decoding: piece, as: UTF8.self) + (piece.count < end - start || end < source.count ? "…" : "")
    }
}

/// The language a stub's templates are written in.
public enum TemplateDialect: Sendable, Equatable {
    /// Orrery's compiled Mustache subset (`template: true`).
    case mustache
    /// WireMock's Handlebars, its request model and helpers (`template: handlebars`).
    case handlebars
}

/// A template error inside a `json:` tree: the line is the line of the stub file.
public struct SourceTemplateError: Error, Sendable, Equatable {
    public var line: Int
    public var message: String
}

/// Every template error of a `json:` tree, sorted by line (never empty when thrown).
public struct SourceTemplateErrors: Error, Sendable, Equatable {
    public var errors: [SourceTemplateError]
}

/// Every error of one template, in the order of their lines (never empty when thrown).
public struct TemplateErrors: Error, Sendable, Equatable {
    public var errors: [TemplateError]

    public init(_ errors: [TemplateError]) {
        self.errors = errors.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
    }
}
