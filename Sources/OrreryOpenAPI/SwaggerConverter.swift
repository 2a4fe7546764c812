import OrreryCore

/// Rewrites a Swagger 2.0 document as OpenAPI 3.0, the way swagger2openapi does, so that one loader reads both:
/// body and form parameters become request bodies, response schemas gain the operation's `produces` types,
/// `definitions` become `components/schemas`, `host` + `basePath` a server.
struct SwaggerConverter {
    let documents: SpecDocuments
    let uri: String

    func convert(_ swagger: JSONValue) throws(OpenAPILoadError) -> JSONValue {
        var members: [(String, JSONValue)] = [("openapi", .string("3.0.3"))]
        if let info = swagger["info"] { members.append(("info", info)) }
        let basePath = swagger["basePath"]?.stringValue ?? ""
        var serverURL = basePath
        if let host = swagger["host"]?.stringValue {
            let scheme = swagger["schemes"].flatMap { value -> String? in
                if case .array(let schemes) = value { return schemes.first?.stringValue }
                return nil
            } ?? "https"
            serverURL = "\(scheme)://\(host)\(basePath)"
        }
        if !serverURL.isEmpty { members.append(("servers", .array([.object([("url", .string(serverURL))])]))) }
        let consumes = Self.strings(swagger["consumes"]) ?? ["application/json"]
        let produces = Self.strings(swagger["produces"]) ?? ["application/json"]
        var paths: [(String, JSONValue)] = []
        for (path, item) in swagger["paths"]?.objectMembers ?? [] {
            let location = SpecDocuments.Location(document: uri, tokens: ["paths", path])
            let (resolved, at) = try documents.follow(item, at: location)
            paths.append((path, try convertPathItem(resolved, at: at, consumes: consumes, produces: produces)))
        }
        members.append(("paths", .object(paths)))
        var components: [(String, JSONValue)] = []
        if let definitions = swagger["definitions"] { components.append(("schemas", Self.rewriteReferences(definitions))) }
        if let security = swagger["securityDefinitions"]?.objectMembers {
            components.append(("securitySchemes", .object(security.map { ($0.0, Self.convertSecurityScheme($0.1)) })))
        }
        if !components.isEmpty { members.append(("components", .object(components))) }
        for key in ["security", "tags", "externalDocs"] { if let value = swagger[key] { members.append((key, value)) } }
        return .object(members)
    }

    private static let methods = ["get", "put", "post", "delete", "options", "head", "patch"]

    private func convertPathItem(
        _ item: JSONValue, at location: SpecDocuments.Location, consumes: [String], produces: [String]
    ) throws(OpenAPILoadError) -> JSONValue {
        var members: [(String, JSONValue)] = []
        let shared = try parameters(item["parameters"], at: location.appending("parameters"))
        if !shared.plain.isEmpty { members.append(("parameters", .array(shared.plain))) }
        for (method, operation) in item.objectMembers ?? [] where Self.methods.contains(method) {
            members.append((method, try convertOperation(
                operation, at: location.appending(method), inherited: shared,
                consumes: Self.strings(operation["consumes"]) ?? consumes,
                produces: Self.strings(operation["produces"]) ?? produces)))
        }
        return .object(members)
    }

    /// Parameters split into the plain ones (converted) and the body or form ones (a request body).
    private struct Parameters {
        var plain: [JSONValue] = []
        var body: JSONValue?
        var isBodyRequired = false
        var form: [(name: String, schema: JSONValue, isRequired: Bool, isFile: Bool)] = []
    }

    private func parameters(_ list: JSONValue?, at location: SpecDocuments.Location) throws(OpenAPILoadError) -> Parameters {
        var result = Parameters()
        guard case .array(let items)? = list else { return result }
        for (index, item) in items.enumerated() {
            let (parameter, _) = try documents.follow(item, at: location.appending(String(index)))
            guard let name = parameter["name"]?.stringValue, let place = parameter["in"]?.stringValue else { continue }
            let isRequired = parameter["required"] == .bool(true)
            switch place {
            case "body":
                result.body = Self.rewriteReferences(parameter["schema"] ?? .object([]))
                result.isBodyRequired = isRequired
            case "formData":
                result.form.append((name, Self.schema(of: parameter), isRequired, parameter["type"]?.stringValue == "file"))
            default:
                var members: [(String, JSONValue)] = [("name", .string(name)), ("in", .string(place))]
                if isRequired || place == "path" { members.append(("required", .bool(true))) }
                if let description = parameter["description"] { members.append(("description", description)) }
                switch parameter["collectionFormat"]?.stringValue {
                case "multi": members += [("style", .string("form")), ("explode", .bool(true))]
                case "ssv": members += [("style", .string("spaceDelimited")), ("explode", .bool(false))]
                case "pipes": members += [("style", .string("pipeDelimited")), ("explode", .bool(false))]
                case "csv", "tsv", nil:
                    if parameter["type"]?.stringValue == "array" {
                        members += place == "query" || place == "cookie"
                            ? [("style", .string("form")), ("explode", .bool(false))] : [("style", .string("simple"))]
                    }
                default: break
                }
                members.append(("schema", Self.schema(of: parameter)))
                result.plain.append(.object(members))
            }
        }
        return result
    }

    private func convertOperation(
        _ operation: JSONValue, at location: SpecDocuments.Location, inherited: Parameters, consumes: [String],
        produces: [String]
    ) throws(OpenAPILoadError) -> JSONValue {
        var own = try parameters(operation["parameters"], at: location.appending("parameters"))
        // An operation's parameter replaces the path item's of the same name and place.
        var plain = inherited.plain.filter { shared in
            !own.plain.contains { $0["name"] == shared["name"] && $0["in"] == shared["in"] }
        }
        plain += own.plain
        if own.body == nil { own.body = inherited.body; own.isBodyRequired = inherited.isBodyRequired }
        if own.form.isEmpty { own.form = inherited.form }
        var members: [(String, JSONValue)] = []
        for key in ["tags", "summary", "description", "externalDocs", "operationId", "deprecated", "security"] {
            if let value = operation[key] { members.append((key, value)) }
        }
        if !plain.isEmpty { members.append(("parameters", .array(plain))) }
        if let body = own.body {
            members.append(("requestBody", .object([
                ("required", .bool(own.isBodyRequired)),
                ("content", .object(consumes.map { ($0, .object([("schema", body)])) })),
            ])))
        } else if !own.form.isEmpty {
            let isMultipart = consumes.contains("multipart/form-data") || own.form.contains(where: \.isFile)
            let required = own.form.filter(\.isRequired).map { JSONValue.string($0.name) }
            var schema: [(String, JSONValue)] = [
                ("type", .string("object")), ("properties", .object(own.form.map { ($0.name, $0.schema) })),
            ]
            if !required.isEmpty { schema.append(("required", .array(required))) }
            let type = isMultipart ? "multipart/form-data" : "application/x-www-form-urlencoded"
            members.append(("requestBody", .object([
                ("required", .bool(!required.isEmpty)), ("content", .object([(type, .object([("schema", .object(schema))]))])),
            ])))
        }
        var responses: [(String, JSONValue)] = []
        for (status, response) in operation["responses"]?.objectMembers ?? [] {
            let (resolved, _) = try documents.follow(response, at: location.appending("responses", status))
            var converted: [(String, JSONValue)] = [("description", resolved["description"] ?? .string(""))]
            if let schema = resolved["schema"] {
                let examples = resolved["examples"]
                converted.append(("content", .object(produces.map { type in
                    var media: [(String, JSONValue)] = [("schema", Self.rewriteReferences(schema))]
                    if let example = examples?[type] { media.append(("example", example)) }
                    return (type, .object(media))
                })))
            }
            if let headers = resolved["headers"]?.objectMembers {
                converted.append(("headers", .object(headers.map { ($0.0, .object([("schema", Self.schema(of: $0.1))])) })))
            }
            responses.append((status, .object(converted)))
        }
        members.append(("responses", .object(responses)))
        return .object(members)
    }

    /// A non-body parameter's (or header's) type keywords as a schema.
    private static func schema(of parameter: JSONValue) -> JSONValue {
        let keywords: Set<String> = [
            "type", "format", "items", "default", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
            "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "enum", "multipleOf",
        ]
        var members: [(String, JSONValue)] = []
        for (key, value) in parameter.objectMembers ?? [] where keywords.contains(key) {
            if key == "type", value == .string("file") {
                members += [("type", .string("string")), ("format", .string("binary"))]
            } else if key == "items" {
                members.append(("items", schema(of: value)))
            } else {
                members.append((key, value))
            }
        }
        return rewriteReferences(.object(members))
    }

    private static func convertSecurityScheme(_ scheme: JSONValue) -> JSONValue {
        switch scheme["type"]?.stringValue {
        case "basic":
            return .object([("type", .string("http")), ("scheme", .string("basic"))])
        case "oauth2":
            let flow = scheme["flow"]?.stringValue ?? "implicit"
            let name = ["accessCode": "authorizationCode", "application": "clientCredentials"][flow] ?? flow
            var members: [(String, JSONValue)] = [("scopes", scheme["scopes"] ?? .object([]))]
            if let url = scheme["authorizationUrl"] { members.append(("authorizationUrl", url)) }
            if let url = scheme["tokenUrl"] { members.append(("tokenUrl", url)) }
            return .object([("type", .string("oauth2")), ("flows", .object([(name, .object(members))]))])
        default:
            return scheme
        }
    }

    /// `#/definitions/X` becomes `#/components/schemas/X`, wherever it is.
    static func rewriteReferences(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(members.map { key, child in
                if key == "$ref", case .string(let reference) = child, reference.hasPrefix("#/definitions/") {
                    return (key, .string("#/components/schemas/" + reference.dropFirst("#/definitions/".count)))
                }
                return (key, rewriteReferences(child))
            })
        case .array(let items):
            return .array(items.map(rewriteReferences))
        default:
            return value
        }
    }

    private static func strings(_ value: JSONValue?) -> [String]? {
        guard case .array(let items)? = value else { return nil }
        let strings = items.compactMap(\.stringValue)
        return strings.isEmpty ? nil : strings
    }
}
