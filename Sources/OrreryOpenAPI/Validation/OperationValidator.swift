import Foundation
import OrreryCore

/// Checks requests (and responses) against one operation, with everything the checks need prepared at load:
/// each parameter's reading, the security requirement, the schemas compiled.
struct OperationValidator: Sendable {
    let operation: OpenAPIOperation
    let readers: [ParameterReader]
    let security: SecurityRequirement
    /// The fields of an `application/x-www-form-urlencoded` body and their types.
    let formFields: [(name: String, types: [String])]
    /// Whether a parameter or a credential is read from the `Cookie` header.
    let readsCookies: Bool

    init(_ operation: OpenAPIOperation, spec: OpenAPISpec, source: SchemaSource) {
        self.operation = operation
        readers = operation.parameters.map { ParameterReader($0, source: source) }
        let form = operation.requestBody?.content.first {
            Self.mediaType($0.contentType) == "application/x-www-form-urlencoded"
        }
        if let location = form?.schema?.location, let (schema, at) = source.schema(at: location) {
            formFields = (schema["properties"]?.objectMembers ?? []).map { name, _ in
                (name, source.types(at: at + "/properties/" + name.replacingOccurrences(of: "/", with: "~1")))
            }
        } else {
            formFields = []
        }
        let raw = source.schema(at: operation.location)?.value
        security = SecurityRequirement(operation: raw, document: spec.document, source: source, documentURI: spec.uri)
        readsCookies =
            operation.parameters.contains { $0.location == .cookie }
            || security.alternatives.contains { $0.contains { if case .cookie = $0 { true } else { false } } }
    }

    /// What a request was found to break.
    struct Verdict: Sendable {
        var violations: [ContractViolation] = []
        /// A parameter or the body could not be read at all (`400`, not `422`).
        var isUnparseable = false
        var missingCredentials: [SecurityRequirement.Credential] = []

        var isValid: Bool { violations.isEmpty && missingCredentials.isEmpty }
    }

    func check(_ request: HTTPRequest, pathValues: [(name: String, value: String)]) -> Verdict {
        var verdict = Verdict()
        // Read only when a parameter or a credential is a cookie: most operations have none.
        let cookies = readsCookies ? Self.cookies(request.headers) : []
        // Decoded once for every parameter (a request decodes its query when asked).
        let query = request.query
        verdict.missingCredentials = security.missing(query: query, headers: request.headers, cookies: cookies)
        for reader in readers {
            let parameter = reader.parameter
            let pathValue = parameter.location == .path ? pathValues.first { $0.name == parameter.name }?.value : nil
            let pointer = "/" + parameter.name
            switch reader.read(query: query, headers: request.headers, cookies: cookies, pathValue: pathValue) {
            case .absent:
                if parameter.isRequired {
                    verdict.violations.append(
                        ContractViolation(
                            location: parameter.location.rawValue, pointer: pointer,
                            message:
                                "the required \(parameter.location.rawValue) parameter '\(parameter.name)' is missing"))
                }
            case .unparseable(let why):
                verdict.isUnparseable = true
                verdict.violations.append(
                    ContractViolation(location: parameter.location.rawValue, pointer: pointer, message: why))
            case .value(let value):
                for violation in parameter.schema?.validate(value, direction: .request) ?? [] {
                    verdict.violations.append(
                        ContractViolation(
                            location: parameter.location.rawValue, pointer: pointer + violation.instancePointer,
                            message: violation.message, schemaPointer: violation.schemaPointer))
                }
            }
        }
        checkBody(request, into: &verdict)
        return verdict
    }

    private func checkBody(_ request: HTTPRequest, into verdict: inout Verdict) {
        guard let body = operation.requestBody else { return }
        guard !request.body.isEmpty else {
            if body.isRequired {
                verdict.violations.append(
                    ContractViolation(location: "body", pointer: "", message: "a request body is required"))
            }
            return
        }
        let contentType = Self.mediaType(request.headers.first(named: "Content-Type"))
        guard let media = Self.media(for: contentType, in: body.content) else {
            let known = body.content.map(\.contentType).joined(separator: ", ")
            verdict.violations.append(
                ContractViolation(
                    location: "header", pointer: "/Content-Type",
                    message: "content type '\(contentType.isEmpty ? "(none)" : contentType)' is not one of \(known)"))
            return
        }
        guard let schema = media.schema else { return }
        let instance: JSONValue
        if Self.isJSON(contentType) {
            // The request path's parser first (no line numbers, one tree); the loader's only to say what is wrong.
            if let parsed = JSONBodyParser.parse(request.body) {
                instance = parsed
            } else {
                do {
                    _ = try JSONValue.parse(request.body)
                } catch {
                    verdict.isUnparseable = true
                    verdict.violations.append(
                        ContractViolation(
                            location: "body", pointer: "",
                            message: "the body is not JSON: line \(error.line): \(error.message)"))
                }
                return
            }
        } else if contentType == "application/x-www-form-urlencoded" {
            let items = PercentDecoding.queryItems(Substring(String(decoding: request.body, as: UTF8.self)))
            // Form fields are text: each is read as its property's type, as a query parameter is.
            instance = .object(
                items.map { item in
                    let types = formFields.first { $0.name == item.name }?.types ?? []
                    guard case .value(let value) = ParameterReader.scalar(item.value, types: types) else {
                        return (item.name, .string(item.value))
                    }
                    return (item.name, value)
                })
        } else {
            return
        }
        for violation in schema.validate(instance, direction: .request) {
            verdict.violations.append(
                ContractViolation(
                    location: "body", pointer: violation.instancePointer, message: violation.message,
                    schemaPointer: violation.schemaPointer))
        }
    }

    /// What an answer was found to break: an undocumented status, a content type the status does not list, a
    /// body its schema refuses (`writeOnly` properties refused). Empty for a conforming answer.
    func check(status: Int, headers: HTTPHeaders, body: [UInt8]) -> [ContractViolation] {
        guard let response = Self.response(for: status, in: operation.responses) else {
            return [ContractViolation(location: "status", pointer: "", message: "status \(status) is not documented")]
        }
        guard !response.content.isEmpty, !body.isEmpty else { return [] }
        let contentType = Self.mediaType(headers.first(named: "Content-Type"))
        guard let media = Self.media(for: contentType, in: response.content) else {
            let known = response.content.map(\.contentType).joined(separator: ", ")
            return [
                ContractViolation(
                    location: "header", pointer: "/Content-Type",
                    message: "content type '\(contentType)' is not one of \(known) for status \(response.status)")
            ]
        }
        guard let schema = media.schema, Self.isJSON(contentType) else { return [] }
        guard let instance = try? JSONValue.parse(body) else {
            return [ContractViolation(location: "body", pointer: "", message: "the body is not JSON")]
        }
        return schema.validate(instance, direction: .response).map {
            ContractViolation(
                location: "body", pointer: $0.instancePointer, message: $0.message, schemaPointer: $0.schemaPointer)
        }
    }

    /// The documented response for a status: exact, then its range (`4XX`), then `default`.
    static func response(for status: Int, in responses: [OpenAPIResponse]) -> OpenAPIResponse? {
        let code = String(status)
        let range = String(status / 100) + "XX"
        return responses.first { $0.status == code } ?? responses.first { $0.status.uppercased() == range }
            ?? responses.first { $0.status == "default" }
    }

    /// A media type without its parameters, lower case (`application/json`).
    static func mediaType(_ header: String?) -> String {
        guard let header else { return "" }
        let type = (header.split(separator: ";", maxSplits: 1).first ?? "").trimmingSpaces
        // Already lower case, as almost every client sends it: no new string.
        return type.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
            ? type.lowercased() : String(type)
    }

    /// The spec's media type for a content type: exact, then `type/*`, then `*/*`.
    static func media(for contentType: String, in content: [OpenAPIMediaType]) -> OpenAPIMediaType? {
        if let exact = content.first(where: { mediaType($0.contentType) == contentType }) { return exact }
        let family = (contentType.split(separator: "/").first ?? "") + "/*"
        return content.first { mediaType($0.contentType) == family } ?? content.first { $0.contentType == "*/*" }
    }

    static func isJSON(_ contentType: String) -> Bool {
        contentType == "application/json" || contentType.hasSuffix("+json") || contentType.hasSuffix("/json")
    }

    static func cookies(_ headers: HTTPHeaders) -> [(String, String)] {
        var cookies: [(String, String)] = []
        for header in headers.all(named: "Cookie") {
            for pair in header.split(separator: ";") {
                let trimmed = pair.trimmingSpaces
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                cookies.append((String(trimmed[..<equals]), String(trimmed[trimmed.index(after: equals)...])))
            }
        }
        return cookies
    }
}
