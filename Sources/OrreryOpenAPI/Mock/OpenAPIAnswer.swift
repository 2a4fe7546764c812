import OrreryCore

/// What a spec answered a request with: the response (encoded once at load for the usual answers), the operation
/// that answered, and what the request was found to break.
public struct OpenAPIAnswer: Sendable {
    public var encoded: EncodedResponse
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Payload
    /// The operation's `operationId` (`METHOD /template` when it has none); nil when no operation was found.
    public var operationId: String?
    /// The spec file.
    public var source: String
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
        self.encoded = encoded
        self.status = status
        self.headers = headers
        self.body = body
        self.operationId = operationId
        self.source = source
        self.violations = violations
    }
}
