import OrreryCore

/// An RFC 9457 problem (`application/problem+json`): what a request that breaks the spec gets back, listing every
/// violation by location and JSON pointer.
public struct ProblemDetails: Sendable {
    public var status: Int
    public var title: String
    public var detail: String
    public var errors: [ContractViolation]
    /// Extra headers: `Allow` for a 405, `WWW-Authenticate` for a 401.
    public var headers: HTTPHeaders = HTTPHeaders()

    /// The problem's `type`: one URI per kind of problem, under Orrery's namespace.
    var type: String {
        switch status {
        case 401: "urn:orrery:problem:openapi:missing-credentials"
        case 404: "urn:orrery:problem:openapi:no-such-path"
        case 405: "urn:orrery:problem:openapi:method-not-allowed"
        case 400: "urn:orrery:problem:openapi:unparseable-request"
        default: "urn:orrery:problem:openapi:invalid-request"
        }
    }

    public var json: JSONValue {
        .object([
            ("type", .string(type)), ("title", .string(title)), ("status", .int(status)), ("detail", .string(detail)),
            ("errors", .array(errors.map(\.json))),
        ])
    }

    public var response: Response {
        var headers = headers
        headers.add("Content-Type", "application/problem+json")
        headers.add("Cache-Control", "no-store")
        return Response(
            status: HTTPStatus(status), headers: headers, body: Payload(Array((json.prettyEncoded + "\n").utf8)))
    }
}
