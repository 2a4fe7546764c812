/// Writes an OpenAPI spec's answers as stub files to edit (`orrery import openapi`): one file per spec, one stub
/// per operation, answering as `serve --openapi` does without a `Prefer` header.
public enum OpenAPIImport {
    /// One operation's answer, as the spec gives it.
    public struct Answer: Sendable {
        public var name: String
        public var method: String
        /// The base path and the template: `/v1/pets/{petId}`.
        public var path: String
        public var status: Int
        public var contentType: String?
        public var body: [UInt8]
        /// The other response headers the spec declares, with the values `serve --openapi` sends.
        public var headers: [(name: String, value: String)]

        public init(
            name: String, method: String, path: String, status: Int, contentType: String?, body: [UInt8],
            headers: [(name: String, value: String)] = []
        ) {
            self.name = name
            self.method = method
            self.path = path
            self.status = status
            self.contentType = contentType
            self.body = body
            self.headers = headers
        }
    }

    public static func stubs(title: String, source: String, answers: [Answer]) -> StubImport {
        var result = StubImport(unit: "operations")
        let path = ImportedFile.fileName(title, fallback: "openapi") + ".yaml"
        var file = ImportedFile(path: path, comment: "Imported from the OpenAPI document \(source) (\(title)).")
        for answer in answers {
            result.entryCount += 1
            var response: [(String, YAMLText.Value)] = [("status", .number(answer.status))]
            let headers =
                (answer.contentType.map { [("Content-Type", $0)] } ?? []) + answer.headers.map { ($0.name, $0.value) }
            if !headers.isEmpty {
                response.append(("headers", .mapping(headers.map { ($0.0, .scalar($0.1)) })))
            }
            if !answer.body.isEmpty { response.append(file.body(answer.body, contentType: answer.contentType)) }
            file.add([
                ("name", .scalar(answer.name)),
                ("request", .mapping([("method", .scalar(answer.method)), ("path", .scalar(answer.path))])),
                ("response", .mapping(response)),
            ])
            result.importedCount += 1
        }
        if file.stubCount > 0 { result.files = [file] }
        return result
    }
}
