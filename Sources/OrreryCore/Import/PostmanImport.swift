import Foundation

/// Reads a Postman collection (v2.0 or v2.1) into stub files: one stub per saved example response, the requests at
/// the top in one file and each folder in a file of its own.
///
/// An example answers what Postman's mock server would send it for: its method and path (the host set aside),
/// with the query parameters it was saved with. `{{variables}}` are resolved from the collection's variables; one
/// that is not there, and a `:name` path variable, becomes a path parameter (`{name}`). A second example for the
/// same request is chosen, as in Postman's mock server, by the request header `x-mock-response-name`.
public enum PostmanImport {
    public static func stubs(from document: JSONValue, name fileName: String) throws(ImportError) -> StubImport {
        guard case .array(let items)? = document["item"], let info = document["info"] else {
            throw ImportError("not a Postman collection: there is no info and item list")
        }
        if let schema = info["schema"]?.stringValue, !schema.contains("v2.0") && !schema.contains("v2.1") {
            throw ImportError("the collection schema \(schema) is not v2.0 or v2.1 (export it again as v2.1 from Postman)")
        }
        let title = info["name"]?.stringValue ?? fileName
        var variables: [String: String] = [:]
        if case .array(let list)? = document["variable"] {
            for variable in list {
                guard let key = variable["key"]?.stringValue ?? variable["id"]?.stringValue else { continue }
                variables[key] = text(variable["value"])
            }
        }
        var walker = Walker(
            collection: ImportedFile.fileName(title, fallback: ImportedFile.fileName(fileName, fallback: "postman")),
            title: title, variables: variables)
        walker.walk(items, folder: [], place: "item")
        var result = walker.result
        result.files = walker.order.compactMap { walker.files[$0] }.filter { $0.stubCount > 0 }
        return result
    }

    /// A JSON value as Postman shows it in a field: text as it is, numbers and booleans as written.
    static func text(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text)?: return text
        case .number(_, let text)?: return text
        case .bool(let flag)?: return flag ? "true" : "false"
        default: return ""
        }
    }

    private struct Walker {
        let collection: String
        let title: String
        let variables: [String: String]
        var result = StubImport(unit: "examples")
        var files: [String: ImportedFile] = [:]
        var order: [String] = []
        /// The first example of each request (method, path, query), by its place.
        var seen: [String: String] = [:]

        init(collection: String, title: String, variables: [String: String]) {
            self.collection = collection
            self.title = title
            self.variables = variables
        }

        mutating func walk(_ items: [JSONValue], folder: [String], place: String) {
            for (offset, item) in items.enumerated() {
                let itemPlace = "\(place)[\(offset)]"
                let name = item["name"]?.stringValue ?? "item \(offset + 1)"
                if case .array(let children)? = item["item"] {
                    walk(children, folder: folder + [name], place: itemPlace + ".item")
                    continue
                }
                guard let request = item["request"] else { continue }
                // Some tools write the examples as `responses`.
                guard case .array(let examples)? = item["response"] ?? item["responses"], !examples.isEmpty else { continue }
                for (position, example) in examples.enumerated() {
                    let exampleName = example["name"]?.stringValue ?? "example \(position + 1)"
                    let label = (folder + [name]).joined(separator: " / ") + " / \(exampleName.debugDescription) (\(itemPlace).response[\(position)])"
                    result.entryCount += 1
                    do throws(ImportError) {
                        try add(example, name: exampleName, request: example["originalRequest"] ?? request, folder: folder, label: label)
                        result.importedCount += 1
                    } catch {
                        result.skip(label, error.description)
                    }
                }
            }
        }

        mutating func add(_ example: JSONValue, name: String, request: JSONValue, folder: [String], label: String) throws(ImportError) {
            let method = (request.stringValue == nil ? request["method"]?.stringValue : nil)?.uppercased() ?? "GET"
            guard HTTP1Parser.isToken(method) else { throw ImportError("the method \(method.debugDescription) is not an HTTP method") }
            let url = request.stringValue.map { JSONValue.string($0) } ?? request["url"] ?? .string("/")
            let (path, query) = try self.url(url)
            var conditions: [(String, YAMLText.Value)] = [("method", .scalar(method))]
            conditions.append(("path", .scalar(path)))
            if !query.isEmpty {
                conditions.append(("query", .mapping(query.map { ($0.0, .mapping([("equalTo", .scalar($0.1))])) })))
            }
            let key = method + " " + path + "?" + query.map { $0.0 + "=" + $0.1 }.joined(separator: "&")
            if let first = seen[key] {
                conditions.append(("headers", .mapping([("x-mock-response-name", .scalar(name))])))
                result.warn(label, "the same request as \(first); answered when the request carries x-mock-response-name: \(name)")
            } else {
                seen[key] = label
            }

            var answer: [(String, YAMLText.Value)] = []
            let status: Int
            switch example["code"] {
            case .number(let number, _)?:
                guard let code = Int(exactly: number), (100...599).contains(code) else {
                    throw ImportError("the code \(number) is not an HTTP status")
                }
                status = code
            default:
                status = 200
            }
            answer.append(("status", .number(status)))
            var headers: [(String, YAMLText.Value)] = []
            var contentType: String?
            if case .array(let fields)? = example["header"] {
                for field in fields {
                    guard let name = field["key"]?.stringValue ?? field["name"]?.stringValue, field["disabled"] != .bool(true) else { continue }
                    let lower = name.lowercased()
                    // The saved body is decoded and its length is Orrery's to compute.
                    if ["content-length", "transfer-encoding", "content-encoding", "connection"].contains(lower) { continue }
                    guard HTTP1Parser.isToken(name) else { throw ImportError("the response header name \(name.debugDescription) is not an HTTP token") }
                    let value = PostmanImport.text(field["value"])
                    if lower == "content-type" { contentType = value }
                    headers.append((name, .scalar(value)))
                }
            }
            if !headers.isEmpty { answer.append(("headers", .mapping(HeaderConditions.grouped(headers)))) }
            let body = PostmanImport.text(example["body"])
            let fileKey = folder.isEmpty ? collection + ".yaml" : collection + "/" + ImportedFile.fileName(folder.joined(separator: "-"), fallback: "folder") + ".yaml"
            if files[fileKey] == nil {
                let comment = "Imported from the Postman collection \(title)" + (folder.isEmpty ? "." : ", folder \(folder.joined(separator: " / ")).")
                files[fileKey] = ImportedFile(path: fileKey, comment: comment)
                order.append(fileKey)
            }
            guard var file = files[fileKey] else { return }
            // Orrery does not gzip what Postman's mock sends plain.
            if !body.isEmpty {
                answer.append(file.body(Array(body.utf8), contentType: contentType))
                answer.append(("encoding", .scalar("identity")))
            }
            file.add([("name", .scalar(String(name.prefix(160)))), ("request", .mapping(conditions)), ("response", .mapping(answer))])
            files[fileKey] = file
        }

        /// The path (variables resolved or made parameters) and the enabled query parameters of a request's url.
        func url(_ url: JSONValue) throws(ImportError) -> (String, [(String, String)]) {
            var segments: [String]
            var query: [(String, String)] = []
            // The raw URL is what Postman sends (a variable for the host may carry a base path); the parts are
            // read only when it is missing.
            if url.stringValue == nil, url["raw"]?.stringValue == nil, case .array(let parts)? = url["path"] {
                segments = parts.map { part in part.stringValue ?? PostmanImport.text(part["value"]) }
                if case .array(let items)? = url["query"] {
                    for item in items where item["disabled"] != .bool(true) {
                        guard let key = item["key"]?.stringValue else { continue }
                        query.append((resolve(key), resolve(PostmanImport.text(item["value"]))))
                    }
                }
            } else {
                var raw = resolve(url.stringValue ?? url["raw"]?.stringValue ?? "/")
                if let scheme = raw.range(of: "://") { raw = String(raw[scheme.upperBound...]) }
                if raw.hasPrefix("//") { raw = String(raw.dropFirst(2)) }
                let pathStart = raw.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? raw.endIndex
                // Without a scheme the first segment is the host unless a variable stands for it.
                let rest = raw.hasPrefix("/") ? Substring(raw) : raw[pathStart...]
                let queryStart = rest.firstIndex(of: "?") ?? rest.endIndex
                segments = rest[..<queryStart].split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
                if queryStart < rest.endIndex {
                    for item in PercentDecoding.queryItems(rest[rest.index(after: queryStart)...]) { query.append((item.name, item.value)) }
                }
            }
            var path = ""
            for segment in segments {
                let resolved = resolve(segment)
                if resolved.hasPrefix(":") && resolved.count > 1 {
                    path += "/{" + parameterName(String(resolved.dropFirst())) + "}"
                } else if resolved.hasPrefix("{{") && resolved.hasSuffix("}}") {
                    path += "/{" + parameterName(String(resolved.dropFirst(2).dropLast(2))) + "}"
                } else if resolved.contains("{{") {
                    throw ImportError("the path segment \(resolved) holds a variable the collection does not define, beside other text")
                } else {
                    path += "/" + PercentDecoding.decode(resolved).replacingBraces
                }
            }
            return (path.isEmpty ? "/" : path, query)
        }

        func parameterName(_ name: String) -> String {
            let cleaned = String(name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
            return cleaned.isEmpty ? "param" : cleaned
        }

        /// `{{name}}` replaced by the collection's variable; unknown ones are left as they are.
        func resolve(_ text: String) -> String {
            guard text.contains("{{") else { return text }
            var out = ""
            var rest = Substring(text)
            while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
                let name = String(rest[open.upperBound..<close.lowerBound])
                out += rest[..<open.lowerBound]
                out += variables[name] ?? "{{" + name + "}}"
                rest = rest[close.upperBound...]
            }
            return out + rest
        }
    }
}

extension String {
    /// A literal path with `{` and `}` percent-encoded, so that they do not read as a path parameter.
    var replacingBraces: String {
        guard contains(where: { $0 == "{" || $0 == "}" }) else { return self }
        return FixtureFile.literalBraces(self)
    }
}

extension HeaderConditions {
    /// Response headers by name, a repeated one as a list of its values.
    static func grouped(_ headers: [(String, YAMLText.Value)]) -> [(String, YAMLText.Value)] {
        var out: [(String, YAMLText.Value)] = []
        for (name, value) in headers {
            guard let index = out.firstIndex(where: { $0.0.lowercased() == name.lowercased() }) else {
                out.append((name, value))
                continue
            }
            switch out[index].1 {
            case .list(let items): out[index].1 = .list(items + [value])
            default: out[index].1 = .list([out[index].1, value])
            }
        }
        return out
    }
}
