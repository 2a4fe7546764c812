import OrreryCore

/// An operation's answers, made when the spec loads: for each documented status and content type, the body of its
/// first example (or one generated from its schema) encoded, and each named example.
final class PreparedOperation: Sendable {
    /// Classes, as the operation is: a request reads them in place rather than copying each field out.
    final class Media: Sendable {
        let contentType: String
        /// A JSON type, which a client that accepts anything gets first.
        let isJSON: Bool
        let schemaLocation: String?
        let answer: OpenAPIAnswer
        let examples: [(name: String, answer: OpenAPIAnswer)]

        init(
            contentType: String, isJSON: Bool, schemaLocation: String?, answer: OpenAPIAnswer,
            examples: [(name: String, answer: OpenAPIAnswer)]
        ) {
            self.contentType = contentType
            self.isJSON = isJSON
            self.schemaLocation = schemaLocation
            self.answer = answer
            self.examples = examples
        }
    }

    final class Status: Sendable {
        /// As documented: `200`, `2XX`, `default`.
        let status: String
        /// The code sent: the status itself, a range's `x00`, `200` for `default`.
        let code: Int
        let media: [Media]
        /// The answer when no content is documented.
        let empty: OpenAPIAnswer
        /// The declared headers that have an example or a schema, with their values as sent.
        let headers: [(name: String, value: String)]
        /// The media a client that accepts anything gets: the first JSON one, else the first.
        let anyMedia: Media?

        init(status: String, code: Int, media: [Media], empty: OpenAPIAnswer, headers: [(name: String, value: String)])
        {
            self.status = status
            self.code = code
            self.media = media
            self.empty = empty
            self.headers = headers
            anyMedia = media.first { $0.isJSON } ?? media.first
        }
    }

    let validator: OperationValidator
    let operationId: String
    let source: String
    let responses: [Status]
    /// The answer without a `Prefer`: the first 2xx, else `default`, else the first documented.
    let primary: Int?

    init(_ operation: OpenAPIOperation, spec: OpenAPISpec, source: SchemaSource) {
        validator = OperationValidator(operation, spec: spec, source: source)
        let operationId = operation.operationId ?? "\(operation.method) \(operation.pathTemplate)"
        self.operationId = operationId
        self.source = spec.source
        responses = operation.responses.map { response in
            let code = Self.code(response.status)
            let headers = response.headers.compactMap { header -> (name: String, value: String)? in
                var generator = BodyGenerator(source: source, direction: .response)
                guard let value = header.example ?? header.schema.map({ generator.value(at: $0.location) }) else {
                    return nil
                }
                // A header described by a `content` type (JSON) is sent as JSON text.
                let isJSON = header.schema?.location.contains("/content/") ?? false
                return (header.name, isJSON ? value.encoded : Self.headerText(value))
            }
            let media = response.content.map { media in
                var generator = BodyGenerator(source: source, direction: .response)
                let first = media.example ?? media.examples.first?.value
                let value = first ?? media.schema.map { generator.value(at: $0.location) } ?? .null
                let make = { (value: JSONValue) in
                    Self.answer(
                        code: code, contentType: media.contentType, value: value, operationId: operationId,
                        source: spec.source, headers: headers)
                }
                return Media(
                    contentType: media.contentType,
                    isJSON: OperationValidator.isJSON(OperationValidator.mediaType(media.contentType)),
                    schemaLocation: media.schema?.location, answer: make(value),
                    examples: media.examples.map { ($0.name, make($0.value)) })
            }
            var emptyHeaders = HTTPHeaders()
            for header in headers { emptyHeaders.add(header.name, header.value) }
            let empty = OpenAPIAnswer(
                Response(status: HTTPStatus(code), headers: emptyHeaders, body: Payload.empty),
                operationId: operationId,
                source: spec.source)
            return Status(status: response.status, code: code, media: media, empty: empty, headers: headers)
        }
        primary =
            responses.firstIndex { (200..<300).contains($0.code) && $0.status != "default" }
            ?? responses.firstIndex { $0.status == "default" } ?? (responses.isEmpty ? nil : 0)
    }

    static func code(_ status: String) -> Int {
        if let code = Int(status) { return code }
        if status.count == 3, status.uppercased().hasSuffix("XX"), let first = status.first?.wholeNumberValue {
            return first * 100
        }
        return 200
    }

    static func answer(
        code: Int, contentType: String, value: JSONValue, operationId: String, source: String,
        headers: [(name: String, value: String)] = []
    ) -> OpenAPIAnswer {
        let bytes: [UInt8]
        if case .string(let text) = value, !OperationValidator.isJSON(OperationValidator.mediaType(contentType)) {
            bytes = Array(text.utf8)
        } else {
            bytes = value.encodedBytes
        }
        let type = contentType.contains("*") ? "application/json" : contentType
        var fields: HTTPHeaders = ["Content-Type": type]
        for header in headers { fields.add(header.name, header.value) }
        let response = Response(status: HTTPStatus(code), headers: fields, body: Payload(bytes))
        return OpenAPIAnswer(response, operationId: operationId, source: source)
    }

    /// A header's value as its `simple` style writes it: a scalar as text, an array's items and an object's
    /// names and values separated by commas.
    static func headerText(_ value: JSONValue) -> String {
        switch value {
        case .null: ""
        case .bool(let flag): flag ? "true" : "false"
        case .number(_, let text): text
        case .string(let text): text
        case .array(let items): items.map(headerText).joined(separator: ",")
        case .object(let members): members.map { $0.0 + "," + headerText($0.1) }.joined(separator: ",")
        }
    }
}
