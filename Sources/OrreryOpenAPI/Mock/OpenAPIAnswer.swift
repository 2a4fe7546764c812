import OrreryCore

/// What a spec answered a request with: the response (encoded once at load for the usual answers), the operation
/// that answered, and what the request was found to break.
///
/// The answer itself is held by reference: the usual answer is one prepared at load, and handing it on (out of its
/// operation, to the reply) then retains one object instead of copying every field.
public struct OpenAPIAnswer: Sendable {
    private final class Storage: Sendable {
        let encoded: EncodedResponse
        let status: Int
        let headers: HTTPHeaders
        let body: Payload
        let operationId: String?
        let source: String

        init(
            encoded: EncodedResponse, status: Int, headers: HTTPHeaders, body: Payload, operationId: String?,
            source: String
        ) {
            self.encoded = encoded
            self.status = status
            self.headers = headers
            self.body = body
            self.operationId = operationId
            self.source = source
        }
    }

    private let storage: Storage
    public var encoded: EncodedResponse { storage.encoded }
    public var status: Int { storage.status }
    public var headers: HTTPHeaders { storage.headers }
    public var body: Payload { storage.body }
    /// The operation's `operationId` (`METHOD /template` when it has none); nil when no operation was found.
    public var operationId: String? { storage.operationId }
    /// The spec file.
    public var source: String { storage.source }
    /// The request's violations, in `report` mode (in `enforce` mode they are the answer's body instead).
    public var violations: [ContractViolation]

    init(_ response: Response, operationId: String?, source: String, violations: [ContractViolation] = []) {
        self.init(
            encoded: response.encoded, status: response.status.code, headers: response.headers, body: response.body,
            operationId: operationId, source: source, violations: violations)
    }

    init(
        encoded: EncodedResponse, status: Int, headers: HTTPHeaders, body: Payload, operationId: String?,
        source: String,
        violations: [ContractViolation]
    ) {
        storage = Storage(
            encoded: encoded, status: status, headers: headers, body: body, operationId: operationId, source: source)
        self.violations = violations
    }
}
