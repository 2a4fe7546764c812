import Foundation
import OrreryCore

@testable import OrreryOpenAPI

/// A request made from an operation of a spec, valid or broken on purpose, with what Orrery should answer it.
struct SpecRequest: Codable {
    var label: String
    var method: String
    /// After the spec's base path: `/pets/1?limit=2`.
    var path: String
    var query: [[String]]
    var headers: [[String]]
    var cookies: [[String]]
    var body: String?
    var contentType: String?
    /// Nil for a valid request; else the status Orrery answers it with.
    var expectedStatus: Int?
    /// The violation's location and pointer the problem must list.
    var expectedLocation: String?
    var expectedPointer: String?
}

/// Makes, for each operation of a spec, a valid request (required parameters and body generated from their
/// schemas, credentials present) and, where the operation gives a way, one that breaks it.
struct SpecRequests {
    let spec: OpenAPISpec
    let source: SchemaSource

    init(_ spec: OpenAPISpec) {
        self.spec = spec
        source = SchemaSource(documents: spec.documents)
    }

    var all: [SpecRequest] {
        spec.operations.flatMap { operation -> [SpecRequest] in
            guard let valid = valid(operation) else { return [] }
            return [valid] + (broken(operation, from: valid).map { [$0] } ?? [])
        }
    }

    private func value(_ parameter: OpenAPIParameter) -> JSONValue {
        var generator = BodyGenerator(source: source, direction: .request)
        return parameter.schema.map { generator.value(at: $0.location) } ?? .string("x")
    }

    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        case .number(_, let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .null: ""
        case .array(let items): items.map(text).joined(separator: ",")
        case .object: value.encoded
        }
    }

    private func valid(_ operation: OpenAPIOperation) -> SpecRequest? {
        var request = SpecRequest(
            label: "\(operation.method) \(operation.pathTemplate)", method: operation.method,
            path: operation.pathTemplate,
            query: [], headers: [], cookies: [])
        for parameter in operation.parameters {
            let value = value(parameter)
            // Objects in parameters are left out of these requests: their serializations are tested as values.
            if case .object = value { if parameter.isRequired { return nil } else { continue } }
            switch parameter.location {
            case .path:
                let encoded =
                    Self.text(value).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"]))
                    ?? ""
                request.path = request.path.replacingOccurrences(of: "{\(parameter.name)}", with: encoded)
            case .query where parameter.isRequired:
                if case .array(let items) = value, parameter.explode {
                    for item in items { request.query.append([parameter.name, Self.text(item)]) }
                } else {
                    request.query.append([parameter.name, Self.text(value)])
                }
            case .header where parameter.isRequired:
                request.headers.append([parameter.name, Self.text(value)])
            case .cookie where parameter.isRequired:
                request.cookies.append([parameter.name, Self.text(value)])
            default:
                break
            }
        }
        if let body = operation.requestBody {
            if let media = body.content.first(where: {
                OperationValidator.isJSON(OperationValidator.mediaType($0.contentType))
            }) {
                var generator = BodyGenerator(source: source, direction: .request)
                var value = media.schema.map { generator.value(at: $0.location) } ?? .object([])
                if let schema = media.schema, !schema.isValid(value, direction: .request) {
                    // The spec's own examples break its schema (swagger-petstore 3.1's `availableInstances: "7"`).
                    generator.usesExamples = false
                    value = generator.value(at: schema.location)
                }
                request.body = value.encoded
                request.contentType = media.contentType
            } else if body.isRequired {
                return nil
            }
        }
        let raw = source.schema(at: operation.location)?.value
        let security = SecurityRequirement(
            operation: raw, document: spec.document, source: source, documentURI: spec.uri)
        for credential in security.alternatives.first ?? [] {
            switch credential {
            case .header(let name): request.headers.append([name, "secret"])
            case .query(let name): request.query.append([name, "secret"])
            case .cookie(let name): request.cookies.append([name, "secret"])
            case .authorization(let scheme):
                request.headers.append(["Authorization", scheme + " c2VjcmV0OnNlY3JldA=="])
            }
        }
        return request
    }

    /// The first way the operation gives to break a request: a path parameter that is not a number, a required
    /// parameter left out, a body of the wrong type, a credential left out.
    private func broken(_ operation: OpenAPIOperation, from valid: SpecRequest) -> SpecRequest? {
        var request = valid
        request.label += " (broken)"
        for parameter in operation.parameters where parameter.location == .path {
            let types = parameter.schema.map { source.types(at: $0.location) } ?? []
            guard types.contains("integer") || types.contains("number"), !types.contains("string") else { continue }
            request.path = operation.pathTemplate
            for other in operation.parameters where other.location == .path {
                let text = other.name == parameter.name ? "not-a-number" : Self.text(value(other))
                request.path = request.path.replacingOccurrences(of: "{\(other.name)}", with: text)
            }
            request.expectedStatus = 400
            request.expectedLocation = "path"
            request.expectedPointer = "/" + parameter.name
            return request
        }
        for parameter in operation.parameters
        where parameter.isRequired && (parameter.location == .query || parameter.location == .header) {
            let pair = [parameter.name]
            if parameter.location == .query {
                request.query.removeAll { $0.first == pair[0] }
            } else {
                request.headers.removeAll { $0.first == pair[0] }
            }
            request.expectedStatus = 422
            request.expectedLocation = parameter.location.rawValue
            request.expectedPointer = "/" + parameter.name
            return request
        }
        if let body = operation.requestBody, request.body != nil,
            let media = body.content.first(where: { $0.contentType == request.contentType }), let schema = media.schema,
            source.schema(at: schema.location)?.value["type"] == .string("object")
        {
            request.body = "[1]"
            request.expectedStatus = 422
            request.expectedLocation = "body"
            request.expectedPointer = ""
            return request
        }
        for parameter in operation.parameters where parameter.location == .query && !parameter.isRequired {
            let types = parameter.schema.map { source.types(at: $0.location) } ?? []
            guard types == ["integer"] || types == ["number"] else { continue }
            request.query.append([parameter.name, "not-a-number"])
            request.expectedStatus = 400
            request.expectedLocation = "query"
            request.expectedPointer = "/" + parameter.name
            return request
        }
        if let body = operation.requestBody, !body.content.contains(where: { $0.contentType.contains("*") }) {
            request.body = "text"
            request.contentType = "text/x-unknown"
            request.expectedStatus = 422
            request.expectedLocation = "header"
            request.expectedPointer = "/Content-Type"
            return request
        }
        if valid.headers.contains(where: { $0.first == "Authorization" }) {
            request.headers.removeAll { $0.first == "Authorization" }
            request.expectedStatus = 401
            request.expectedLocation = "security"
            request.expectedPointer = ""
            return request
        }
        return nil
    }
}
