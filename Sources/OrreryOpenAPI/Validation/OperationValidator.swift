import Foundation
import OrreryCore

/// Checks requests (and responses) against one operation, with everything the checks need prepared at load:
/// each parameter's reading, the security requirement, the schemas compiled.
/// A class: every request reads it in place, where a value was copied out of its operation field by field.
final class OperationValidator: Sendable {
    let operation: OpenAPIOperation
    let readers: [ParameterReader]
    let security: SecurityRequirement
    /// The fields of an `application/x-www-form-urlencoded` body and their types.
    let formFields: [(name: String, types: [String])]
    /// The fields of a `multipart/form-data` body and their types.
    let multipartFields: [(name: String, types: [String])]
    /// The types a `text/*` body's schema names, by the spec's content type.
    let textTypes: [(contentType: String, types: [String])]
    /// Whether a parameter or a credential is read from the `Cookie` header.
    let readsCookies: Bool
    /// Each response's declared headers, read as `simple` header parameters are, by response.
    let responseHeaders: [[ParameterReader]]
    /// Whether a parameter reads every item of the query (an object's properties), not only those of its name:
    /// only then is the whole query decoded.
    let readsWholeQuery: Bool
    /// The request body's media types, each with its type as `mediaType` writes it, worked out once.
    let bodyMedia: [(type: String, media: OpenAPIMediaType)]

    init(_ operation: OpenAPIOperation, spec: OpenAPISpec, source: SchemaSource) {
        self.operation = operation
        let readers = operation.parameters.map { ParameterReader($0, source: source) }
        self.readers = readers
        responseHeaders = operation.responses.map { response in
            response.headers.map { header in
                ParameterReader(
                    OpenAPIParameter(
                        name: header.name, location: .header, style: "simple", explode: false,
                        isRequired: header.isRequired, schema: header.schema),
                    source: source)
            }
        }
        let content = operation.requestBody?.content ?? []
        formFields = Self.fields(
            of: content.first { Self.mediaType($0.contentType) == "application/x-www-form-urlencoded" }, source: source)
        multipartFields = Self.fields(
            of: content.first { Self.mediaType($0.contentType) == "multipart/form-data" }, source: source)
        textTypes = content.compactMap { media in
            guard Self.mediaType(media.contentType).hasPrefix("text/"), let location = media.schema?.location else {
                return nil
            }
            return (media.contentType, source.types(at: location))
        }
        bodyMedia = content.map { (Self.mediaType($0.contentType), $0) }
        readsWholeQuery = readers.contains { $0.parameter.location == .query && $0.readsWholeQuery }
        let raw = source.schema(at: operation.location)?.value
        let security = SecurityRequirement(
            operation: raw, document: spec.document, source: source, documentURI: spec.uri)
        self.security = security
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

    /// The fields of a request the checks read, found in one walk over its header fields.
    struct Fields {
        var contentType: String?
        var accept: String?
        /// Every `Prefer` value; most requests have none.
        var prefer: [String] = []

        init(_ headers: HTTPHeaders) {
            // Told apart by length first: most fields are none of these, and a name's length costs nothing.
            for (name, value) in headers.entries {
                switch name.utf8.count {
                case 12 where contentType == nil && name.equalsIgnoringASCIICase("Content-Type"): contentType = value
                case 6 where name.equalsIgnoringASCIICase("Accept"): if accept == nil { accept = value }
                case 6 where name.equalsIgnoringASCIICase("Prefer"): prefer.append(value)
                default: break
                }
            }
        }
    }

    func check(_ request: HTTPRequest, pathValues: [(name: String, value: String)]) -> Verdict {
        check(request, pathValues: pathValues, fields: Fields(request.headers))
    }

    func check(_ request: HTTPRequest, pathValues: [(name: String, value: String)], fields: Fields) -> Verdict {
        var verdict = Verdict()
        // Read only when a parameter or a credential is a cookie: most operations have none.
        let cookies = readsCookies ? Self.cookies(request.headers) : []
        // Decoded whole only for a parameter that reads an object's properties from it; the others read their own
        // name's values from the raw query, decoding only those.
        let query = readsWholeQuery ? request.query : []
        verdict.missingCredentials = security.missing(
            rawQuery: request.rawQuery, headers: request.headers, cookies: cookies)
        for reader in readers {
            // Read in place: the parameter (a value) is copied out only for a violation.
            let location = reader.parameter.location
            let pathValue = location == .path ? pathValues.first { $0.name == reader.parameter.name }?.value : nil
            // A path value read as it is, where any string will do: nothing to read or check.
            if let pathValue, reader.takesAnyPlainValue, !ParameterReader.hasEscape(pathValue) { continue }
            // Made only for a violation: most requests have none.
            var parameter: OpenAPIParameter { reader.parameter }
            var pointer: String { "/" + parameter.name }
            switch reader.read(
                rawQuery: request.rawQuery, query: query, headers: request.headers, cookies: cookies,
                pathValue: pathValue)
            {
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
                // A string where any string will do (a boolean where any boolean will) is settled here; else
                // without collecting anything for the usual valid value, the violations only for another.
                if reader.acceptsByType(value) { continue }
                guard let schema = reader.parameter.schema, !schema.isValid(value, direction: .request) else {
                    continue
                }
                for violation in schema.validate(value, direction: .request) {
                    verdict.violations.append(
                        ContractViolation(
                            location: parameter.location.rawValue, pointer: pointer + violation.instancePointer,
                            message: violation.message, schemaPointer: violation.schemaPointer))
                }
            }
        }
        checkBody(request, contentType: fields.contentType, into: &verdict)
        return verdict
    }

    private func checkBody(_ request: HTTPRequest, contentType header: String?, into verdict: inout Verdict) {
        guard let body = operation.requestBody else { return }
        guard !request.body.isEmpty else {
            if body.isRequired {
                verdict.violations.append(
                    ContractViolation(location: "body", pointer: "", message: "a request body is required"))
            }
            return
        }
        let contentType = Self.mediaType(header)
        guard let mediaIndex = Self.media(for: contentType, in: bodyMedia) else {
            let known = body.content.map(\.contentType).joined(separator: ", ")
            verdict.violations.append(
                ContractViolation(
                    location: "header", pointer: "/Content-Type",
                    message: "content type '\(contentType.isEmpty ? "(none)" : contentType)' is not one of \(known)"))
            return
        }
        // Read in place from the operation: the media type's fields are not copied out.
        guard let schema = bodyMedia[mediaIndex].media.schema else { return }
        let instance: JSONValue
        if Self.isJSON(contentType) {
            // The usual case, a valid body, is settled on its bytes without a tree; anything else is read as one.
            if schema.isSettledValid(json: request.body, direction: .request) { return }
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
            instance = Self.form(items.map { ($0.name, $0.value) }, fields: formFields)
        } else if contentType == "multipart/form-data" {
            guard
                let parts = MultipartForm.fields(
                    request.body, contentType: request.headers.first(named: "Content-Type"))
            else {
                verdict.isUnparseable = true
                verdict.violations.append(
                    ContractViolation(
                        location: "body", pointer: "",
                        message: "the body is not multipart/form-data with the boundary its Content-Type names"))
                return
            }
            instance = Self.form(parts, fields: multipartFields)
        } else if contentType.hasPrefix("text/") {
            // Text is read as the schema's type, as a parameter is: `42` is an integer where the schema wants one.
            let types = textTypes.first { $0.contentType == bodyMedia[mediaIndex].media.contentType }?.types ?? []
            switch ParameterReader.scalar(String(decoding: request.body, as: UTF8.self), types: types) {
            case .value(let value):
                instance = value
            case .unparseable(let why):
                verdict.isUnparseable = true
                verdict.violations.append(ContractViolation(location: "body", pointer: "", message: why))
                return
            case .absent:
                return
            }
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

    /// What an answer was found to break: an undocumented status, a declared header missing or refused by its
    /// schema, a content type the status does not list, a body its schema refuses (`writeOnly` properties
    /// refused). Empty for a conforming answer.
    func check(status: Int, headers: HTTPHeaders, body: [UInt8]) -> [ContractViolation] {
        guard let index = Self.responseIndex(for: status, in: operation.responses) else {
            return [ContractViolation(location: "status", pointer: "", message: "status \(status) is not documented")]
        }
        let response = operation.responses[index]
        var violations = Self.headerViolations(responseHeaders[index], headers, status: response.status)
        guard !response.content.isEmpty, !body.isEmpty else { return violations }
        let contentType = Self.mediaType(headers.first(named: "Content-Type"))
        guard let media = Self.media(for: contentType, in: response.content) else {
            let known = response.content.map(\.contentType).joined(separator: ", ")
            violations.append(
                ContractViolation(
                    location: "header", pointer: "/Content-Type",
                    message: "content type '\(contentType)' is not one of \(known) for status \(response.status)"))
            return violations
        }
        guard let schema = media.schema, Self.isJSON(contentType) else { return violations }
        if schema.isSettledValid(json: body, direction: .response) { return violations }
        guard let instance = try? JSONValue.parse(body) else {
            violations.append(ContractViolation(location: "body", pointer: "", message: "the body is not JSON"))
            return violations
        }
        for violation in schema.validate(instance, direction: .response) {
            violations.append(
                ContractViolation(
                    location: "body", pointer: violation.instancePointer, message: violation.message,
                    schemaPointer: violation.schemaPointer))
        }
        return violations
    }

    /// A response's declared headers against those sent: each required one present, each value read as its
    /// schema's type and checked against it.
    static func headerViolations(_ readers: [ParameterReader], _ headers: HTTPHeaders, status: String)
        -> [ContractViolation]
    {
        var violations: [ContractViolation] = []
        for reader in readers {
            let name = reader.parameter.name
            switch reader.read(rawQuery: "", query: [], headers: headers, cookies: [], pathValue: nil) {
            case .absent:
                if reader.parameter.isRequired {
                    violations.append(
                        ContractViolation(
                            location: "header", pointer: "/" + name,
                            message: "the required header '\(name)' of status \(status) is missing"))
                }
            case .unparseable(let why):
                violations.append(ContractViolation(location: "header", pointer: "/" + name, message: why))
            case .value(let value):
                for violation in reader.parameter.schema?.validate(value, direction: .response) ?? [] {
                    violations.append(
                        ContractViolation(
                            location: "header", pointer: "/" + name + violation.instancePointer,
                            message: violation.message, schemaPointer: violation.schemaPointer))
                }
            }
        }
        return violations
    }

    /// The properties of a form body's schema and each one's types.
    static func fields(of media: OpenAPIMediaType?, source: SchemaSource) -> [(name: String, types: [String])] {
        guard let location = media?.schema?.location, let (schema, at) = source.schema(at: location) else { return [] }
        return (schema["properties"]?.objectMembers ?? []).map { name, _ in
            let escaped = name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            return (name, source.types(at: at + "/properties/" + escaped))
        }
    }

    /// A form's fields as an object: fields are text, each read as its property's type, as a query parameter is.
    static func form(_ items: [(name: String, value: String)], fields: [(name: String, types: [String])]) -> JSONValue {
        .object(
            items.map { item in
                let types = fields.first { $0.name == item.name }?.types ?? []
                guard case .value(let value) = ParameterReader.scalar(item.value, types: types) else {
                    return (item.name, .string(item.value))
                }
                return (item.name, value)
            })
    }

    /// The documented response for a status: exact, then its range (`4XX`), then `default`.
    static func responseIndex(for status: Int, in responses: [OpenAPIResponse]) -> Int? {
        let code = String(status)
        let range = String(status / 100) + "XX"
        return responses.firstIndex { $0.status == code } ?? responses.firstIndex { $0.status.uppercased() == range }
            ?? responses.firstIndex { $0.status == "default" }
    }

    /// A media type without its parameters, lower case (`application/json`).
    static func mediaType(_ header: String?) -> String {
        guard let header else { return "" }
        // The usual header, `application/json` as it is: no parameters, no spaces, lower case; returned as it is,
        // after one look at its bytes.
        let isPlain = header.utf8.withContiguousStorageIfAvailable { bytes in
            !bytes.contains { byte in
                byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            }
        }
        if isPlain == true { return header }
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

    /// The same, over media types whose `mediaType` is already worked out: the index of the one found.
    static func media(for contentType: String, in content: [(type: String, media: OpenAPIMediaType)]) -> Int? {
        if let exact = content.firstIndex(where: { $0.type == contentType }) { return exact }
        let family = (contentType.split(separator: "/").first ?? "") + "/*"
        return content.firstIndex { $0.type == family } ?? content.firstIndex { $0.media.contentType == "*/*" }
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
