import Foundation
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import OrreryCore

/// Loads an OpenAPI document from a file: YAML or JSON, 3.0, 3.1 or Swagger 2.0, with the files its `$ref`s name.
///
/// OpenAPIKit reads the document (3.0 through OpenAPIKit30 and its compatibility module, Swagger 2.0 after
/// `SwaggerConverter` has written it as 3.0) for its title and servers; what it rejects becomes a warning naming
/// the part that is wrong. Operations and their schemas come from the documents as written, so that every schema
/// keeps its location (file and JSON pointer); the schemas compile with Orrery's own validator, all in one pass.
public enum OpenAPISpecLoader {
    public static func load(path: String) throws(OpenAPILoadError) -> OpenAPISpec {
        let uri = SpecDocuments.uri(forPath: path)
        var documents = SpecDocuments()
        var root = try SpecDocuments.parse(path: path)
        try documents.add(root, uri: uri, path: path)
        let version: String
        let dialect: JSONSchemaDialect
        if case .string(let swagger)? = versionText(root["swagger"]) {
            guard swagger.hasPrefix("2.") else { throw OpenAPILoadError(file: path, message: "unsupported swagger version \(swagger)") }
            version = swagger
            root = try SwaggerConverter(documents: documents, uri: uri).convert(root)
            try documents.add(root, uri: uri, path: path)
            dialect = .openAPI30
        } else if case .string(let openapi)? = versionText(root["openapi"]) {
            version = openapi
            guard openapi.hasPrefix("3.0") || openapi.hasPrefix("3.1") else {
                throw OpenAPILoadError(file: path, message: "unsupported openapi version \(openapi) (3.0, 3.1 and Swagger 2.0 are read)")
            }
            dialect = openapi.hasPrefix("3.0") ? .openAPI30 : .draft2020_12
        } else {
            throw OpenAPILoadError(file: path, message: "not an OpenAPI document: no 'openapi' or 'swagger' version at the top")
        }
        var builder = Builder(documents: documents, uri: uri, dialect: dialect, path: path)
        // OpenAPIKit is stricter than the specification in places (a boolean schema such as `items: false`, an
        // integer bound past Int64): what it rejects is reported as a warning, and the document as written is read.
        switch decode(root, dialect: dialect) {
        case .success(let document):
            var spec = try builder.build(version: version, title: document.info.title, basePath: basePath(of: document))
            spec.warnings += document.warnings.map { String(describing: $0) }
            return spec
        case .failure(let message):
            var spec = try builder.build(
                version: version, title: root["info"]?["title"]?.stringValue ?? "", basePath: basePath(of: root))
            spec.warnings.append("OpenAPIKit cannot read the document: \(message)")
            return spec
        }
    }

    private enum Decoded {
        case success(OpenAPIKit.OpenAPI.Document)
        case failure(String)
    }

    /// A version written unquoted in YAML (`swagger: 2.0`) is read as a number; its text is what counts.
    private static func versionText(_ value: JSONValue?) -> JSONValue? {
        if case .number(_, let text)? = value { return .string(text) }
        return value
    }

    /// OpenAPIKit's reading of the document, 3.0 converted to 3.1; or what it found wrong, and where.
    private static func decode(_ root: JSONValue, dialect: JSONSchemaDialect) -> Decoded {
        let data = Data(root.encodedBytes)
        do {
            if dialect == .openAPI30 {
                return .success(try JSONDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: data).convert(to: .v3_1_1))
            }
            return .success(try JSONDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: data))
        } catch {
            return .failure(
                dialect == .openAPI30
                    ? OpenAPIKit30.OpenAPI.Error(from: error).localizedDescription
                    : OpenAPIKit.OpenAPI.Error(from: error).localizedDescription)
        }
    }

    /// The first server URL's path (`https://api.example.com/v1/` gives `/v1`), server variables at their defaults.
    private static func basePath(of document: OpenAPIKit.OpenAPI.Document) -> String {
        guard let server = document.servers.first else { return "" }
        var url = server.urlTemplate.rawValue
        for (name, variable) in server.variables { url = url.replacingOccurrences(of: "{\(name)}", with: variable.default) }
        return path(ofServerURL: url)
    }

    /// The same, from the document as written.
    private static func basePath(of root: JSONValue) -> String {
        guard case .array(let servers)? = root["servers"], let server = servers.first,
            var url = server["url"]?.stringValue
        else { return "" }
        for (name, variable) in server["variables"]?.objectMembers ?? [] {
            if let value = variable["default"]?.stringValue { url = url.replacingOccurrences(of: "{\(name)}", with: value) }
        }
        return path(ofServerURL: url)
    }

    private static func path(ofServerURL url: String) -> String {
        var path = url
        if let scheme = url.range(of: "://") {
            let afterHost = url[scheme.upperBound...].firstIndex(of: "/") ?? url.endIndex
            path = String(url[afterHost...])
        }
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// Walks the documents as written for operations, parameters, bodies and responses, noting each schema's
    /// location; then compiles every schema at once.
    private struct Builder {
        let documents: SpecDocuments
        let uri: String
        let dialect: JSONSchemaDialect
        let path: String
        /// Schema locations, in the order they are met; validators come back in the same order.
        var schemaLocations: [String] = []

        init(documents: SpecDocuments, uri: String, dialect: JSONSchemaDialect, path: String) {
            self.documents = documents
            self.uri = uri
            self.dialect = dialect
            self.path = path
        }

        static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

        /// Operations with schema indices in place of validators, until the compile.
        struct Draft {
            var operation: OpenAPIOperation
            var parameterSchemas: [Int?]
            var bodySchemas: [Int?]
            var responseSchemas: [[Int?]]
            var responseHeaderSchemas: [[Int?]]
        }

        mutating func build(version: String, title: String, basePath: String) throws(OpenAPILoadError) -> OpenAPISpec {
            guard let root = documents.documents[uri] else { throw OpenAPILoadError(file: path, message: "not loaded") }
            var drafts: [Draft] = []
            for (template, item) in root["paths"]?.objectMembers ?? [] {
                let (pathItem, itemLocation) = try documents.follow(item, at: .init(document: uri, tokens: ["paths", template]))
                let shared = try parameters(pathItem["parameters"], at: itemLocation.appending("parameters"))
                for (method, operation) in pathItem.objectMembers ?? [] where Self.methods.contains(method) {
                    drafts.append(try draft(
                        method: method, template: template, operation: operation,
                        at: itemLocation.appending(method), shared: shared))
                }
            }
            let compilation: SchemaCompilation
            do {
                compilation = try JSONSchemaValidator.compile(schemaLocations, documents: documents.documents, dialect: dialect)
            } catch {
                throw OpenAPILoadError(file: path, message: "schema \(error.schemaPointer): \(error.message)")
            }
            let validators = compilation.validators
            let operations = drafts.map { draft -> OpenAPIOperation in
                var operation = draft.operation
                for index in operation.parameters.indices { operation.parameters[index].schema = draft.parameterSchemas[index].map { validators[$0] } }
                if operation.requestBody != nil {
                    for index in draft.bodySchemas.indices {
                        operation.requestBody?.content[index].schema = draft.bodySchemas[index].map { validators[$0] }
                    }
                }
                for (response, schemas) in draft.responseSchemas.enumerated() {
                    for (index, schema) in schemas.enumerated() {
                        operation.responses[response].content[index].schema = schema.map { validators[$0] }
                    }
                }
                for (response, schemas) in draft.responseHeaderSchemas.enumerated() {
                    for (index, schema) in schemas.enumerated() {
                        operation.responses[response].headers[index].schema = schema.map { validators[$0] }
                    }
                }
                return operation
            }
            var unsupported: [SchemaKeywordUse] = []
            for use in compilation.unsupportedKeywords where !unsupported.contains(use) { unsupported.append(use) }
            return OpenAPISpec(
                source: path, version: version, title: title, basePath: basePath, operations: operations,
                unsupportedKeywords: unsupported, document: root, uri: uri, dialect: dialect, documents: documents.documents)
        }

        private mutating func schemaIndex(_ value: JSONValue, at location: SpecDocuments.Location) -> Int? {
            guard value["schema"] != nil else { return nil }
            schemaLocations.append(location.appending("schema").uri)
            return schemaLocations.count - 1
        }

        private mutating func parameters(
            _ list: JSONValue?, at location: SpecDocuments.Location
        ) throws(OpenAPILoadError) -> [(parameter: OpenAPIParameter, schema: Int?)] {
            guard case .array(let items)? = list else { return [] }
            var result: [(parameter: OpenAPIParameter, schema: Int?)] = []
            for (index, item) in items.enumerated() {
                let (value, at) = try documents.follow(item, at: location.appending(String(index)))
                guard let name = value["name"]?.stringValue, let place = value["in"]?.stringValue.flatMap(OpenAPIParameter.Location.init)
                else { throw documents.error(at: at, "a parameter needs a 'name' and an 'in' of path, query, header or cookie") }
                let style = value["style"]?.stringValue ?? (place == .query || place == .cookie ? "form" : "simple")
                let explode: Bool
                if case .bool(let flag)? = value["explode"] { explode = flag } else { explode = style == "form" }
                var schema = schemaIndex(value, at: at)
                // A parameter described by `content` instead: its one media type's schema.
                if schema == nil, let (type, media) = value["content"]?.objectMembers?.first {
                    schema = schemaIndex(media, at: at.appending("content", type))
                }
                let parameter = OpenAPIParameter(
                    name: name, location: place, style: style, explode: explode,
                    isRequired: place == .path || value["required"] == .bool(true), schema: nil)
                result.append((parameter, schema))
            }
            return result
        }

        private mutating func content(
            _ value: JSONValue?, at location: SpecDocuments.Location
        ) -> (media: [OpenAPIMediaType], schemas: [Int?]) {
            var media: [OpenAPIMediaType] = []
            var schemas: [Int?] = []
            for (type, entry) in value?.objectMembers ?? [] {
                let at = location.appending(type)
                var examples: [(name: String, value: JSONValue)] = []
                for (name, example) in entry["examples"]?.objectMembers ?? [] {
                    if let (resolved, _) = try? documents.follow(example, at: at.appending("examples", name)),
                        let value = resolved["value"]
                    {
                        examples.append((name, value))
                    }
                }
                media.append(OpenAPIMediaType(contentType: type, schema: nil, example: entry["example"], examples: examples))
                schemas.append(schemaIndex(entry, at: at))
            }
            return (media, schemas)
        }

        private mutating func draft(
            method: String, template: String, operation: JSONValue, at location: SpecDocuments.Location,
            shared: [(parameter: OpenAPIParameter, schema: Int?)]
        ) throws(OpenAPILoadError) -> Draft {
            let own = try parameters(operation["parameters"], at: location.appending("parameters"))
            let merged = shared.filter { inherited in
                !own.contains { $0.parameter.name == inherited.parameter.name && $0.parameter.location == inherited.parameter.location }
            } + own
            var requestBody: OpenAPIRequestBody?
            var bodySchemas: [Int?] = []
            if let body = operation["requestBody"] {
                let (value, at) = try documents.follow(body, at: location.appending("requestBody"))
                let (media, schemas) = content(value["content"], at: at.appending("content"))
                requestBody = OpenAPIRequestBody(isRequired: value["required"] == .bool(true), content: media)
                bodySchemas = schemas
            }
            var responses: [OpenAPIResponse] = []
            var responseSchemas: [[Int?]] = []
            var responseHeaderSchemas: [[Int?]] = []
            for (status, response) in operation["responses"]?.objectMembers ?? [] {
                let (value, at) = try documents.follow(response, at: location.appending("responses", status))
                let (media, schemas) = content(value["content"], at: at.appending("content"))
                let (headers, headerSchemas) = try self.headers(value["headers"], at: at.appending("headers"))
                responses.append(OpenAPIResponse(status: status, content: media, headers: headers))
                responseSchemas.append(schemas)
                responseHeaderSchemas.append(headerSchemas)
            }
            let result = OpenAPIOperation(
                method: method.uppercased(), pathTemplate: template, operationId: operation["operationId"]?.stringValue,
                parameters: merged.map(\.parameter), requestBody: requestBody, responses: responses, location: location.uri)
            return Draft(
                operation: result, parameterSchemas: merged.map(\.schema), bodySchemas: bodySchemas,
                responseSchemas: responseSchemas, responseHeaderSchemas: responseHeaderSchemas)
        }

        /// A response's headers: each one's schema (or its one `content` type's) and example.
        private mutating func headers(
            _ value: JSONValue?, at location: SpecDocuments.Location
        ) throws(OpenAPILoadError) -> (headers: [OpenAPIHeader], schemas: [Int?]) {
            var headers: [OpenAPIHeader] = []
            var schemas: [Int?] = []
            for (name, header) in value?.objectMembers ?? [] where name.lowercased() != "content-type" {
                let (resolved, at) = try documents.follow(header, at: location.appending(name))
                var schema = schemaIndex(resolved, at: at)
                var example = resolved["example"]
                if example == nil, let (first, value) = resolved["examples"]?.objectMembers?.first {
                    example = (try? documents.follow(value, at: at.appending("examples", first)))?.0["value"]
                }
                if schema == nil, let (type, media) = resolved["content"]?.objectMembers?.first {
                    schema = schemaIndex(media, at: at.appending("content", type))
                    example = example ?? media["example"]
                }
                headers.append(
                    OpenAPIHeader(
                        name: name, isRequired: resolved["required"] == .bool(true), schema: nil, example: example))
                schemas.append(schema)
            }
            return (headers, schemas)
        }
    }
}
