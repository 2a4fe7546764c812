import Foundation

/// Turns a Hoverfly response template (Handlebars, as Hoverfly's `templated: true` renders it) into an Orrery
/// template, tag by tag; a tag with no equivalent makes the whole template unconvertible, with the tag named.
enum HoverflyTemplate {
    /// The Orrery template, or why it cannot be made.
    static func convert(_ text: String) -> Result<String, ImportError> {
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            var afterOpen = rest[open.upperBound...]
            let isTriple = afterOpen.hasPrefix("{")
            if isTriple { afterOpen = afterOpen.dropFirst() }
            guard let close = afterOpen.range(of: isTriple ? "}}}" : "}}") else {
                return .failure(ImportError("the template has a '{{' that is never closed"))
            }
            let tag = afterOpen[..<close.lowerBound].trimmingSpaces
            switch convertTag(String(tag)) {
            case .success(let name): out += "{{" + name + "}}"
            case .failure(let error): return .failure(error)
            }
            rest = afterOpen[close.upperBound...]
        }
        out += rest
        return .success(out)
    }

    /// The Orrery name for one Handlebars expression.
    static func convertTag(_ tag: String) -> Result<String, ImportError> {
        let words = arguments(tag)
        guard let head = words.first else { return .failure(ImportError("the template has an empty tag {{}}")) }
        func unsupported(_ why: String = "Orrery's templates have no equivalent") -> Result<String, ImportError> {
            .failure(ImportError("the template tag {{\(tag)}} cannot be converted: \(why)"))
        }
        if words.count == 1 {
            if head == "randomUuid" { return .success("uuid") }
            if head == "Request.Method" { return .success("request.method") }
            if head == "Request.Body" { return .success("request.body") }
            let parts = head.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0] == "Request" else { return unsupported() }
            let name = parts[2].hasPrefix("[") && parts[2].hasSuffix("]") ? String(parts[2].dropFirst().dropLast()) : parts[2]
            switch parts[1] {
            case "Path":
                guard let index = Int(name), index >= 0 else { return unsupported() }
                return .success("request.pathSegments.\(index)")
            case "QueryParam": return isPlainName(name) ? .success("request.query.\(name)") : unsupported()
            case "Header": return isPlainName(name) ? .success("request.headers.\(name.lowercased())") : unsupported()
            default: return unsupported()
            }
        }
        if head == "Request.Body", words.count == 3, words[1] == "jsonpath" {
            guard let path = jsonFields(words[2]) else {
                return unsupported("only JSONPaths of plain members and indexes ($.a.b[0]) can be read by an Orrery template")
            }
            return .success(path.isEmpty ? "request.body" : "request.json." + path)
        }
        if head == "now" || head == "currentDateTime", words.count == 3, words[1].isEmpty || words[1] == "0s",
            words[2].isEmpty || words[2] == "2006-01-02T15:04:05Z07:00"
        {
            return .success("now")
        }
        return unsupported()
    }

    private static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// `$.a.b[0].c` as `a.b.0.c`, or nil for anything else (filters, wildcards, recursive descent).
    static func jsonFields(_ path: String) -> String? {
        guard path.hasPrefix("$") else { return nil }
        var fields: [String] = []
        var rest = path.dropFirst()
        while let first = rest.first {
            if first == "." {
                rest = rest.dropFirst()
                let name = rest.prefix { $0 != "." && $0 != "[" }
                guard isPlainName(String(name)) else { return nil }
                fields.append(String(name))
                rest = rest.dropFirst(name.count)
            } else if first == "[" {
                guard let end = rest.firstIndex(of: "]") else { return nil }
                let inside = rest[rest.index(after: rest.startIndex)..<end]
                if let index = Int(inside), index >= 0 {
                    fields.append(String(index))
                } else if inside.count >= 2, let quote = inside.first, quote == "'" || quote == "\"", inside.last == quote,
                    isPlainName(String(inside.dropFirst().dropLast()))
                {
                    fields.append(String(inside.dropFirst().dropLast()))
                } else {
                    return nil
                }
                rest = rest[rest.index(after: end)...]
            } else {
                return nil
            }
        }
        return fields.joined(separator: ".")
    }

    /// The words of a tag: names, and quoted arguments without their quotes.
    static func arguments(_ tag: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var isInWord = false
        for character in tag {
            if let open = quote {
                if character == open {
                    quote = nil
                } else {
                    current.append(character)
                }
            } else if character == "'" || character == "\"" {
                quote = character
                isInWord = true
            } else if character == " " || character == "\t" || character == "\n" {
                if isInWord { words.append(current) }
                current = ""
                isInWord = false
            } else {
                current.append(character)
                isInWord = true
            }
        }
        if isInWord { words.append(current) }
        return words
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" || first == "\n" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\n" { text = text.dropLast() }
        return text
    }
}
