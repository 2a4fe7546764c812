import Foundation

/// One exchange as the journal keeps it: the request, the answer, how long it took and who answered.
///
/// Bodies are captured up to the journal's body limit; `bodySize` keeps the real length. Secrets are already
/// redacted when an entry is made (see `Redactor`), so nothing that reads the journal can leak them.
public struct JournalEntry: Sendable {
    /// Assigned by the journal, increasing: newer exchanges have larger ids.
    public var id: Int = 0
    /// Wall-clock time the request arrived.
    public var startedAt: Date
    public var durationMicroseconds: Int
    /// The request as received, its body cut at the body limit.
    public var request: HTTPRequest
    public var requestBodySize: Int
    public var clientAddress: String
    public var response: CapturedResponse
    public var outcome: Outcome
    /// How the client reached Orrery: `http`, or `https` (the TLS port, an intercepted tunnel).
    public var scheme = "http"
    /// The request's HTTP version: `1.1`, `1.0` or `2`.
    public var httpVersion = "1.1"
    /// The session the exchange belongs to; nil for the daemon's own.
    public var session: String?
    /// The fault carried out instead of an answer (`connectionReset`, ...): `response` is then what went out.
    public var fault: String?
    /// A WebSocket's frames, in order (empty for plain exchanges).
    public var messages: [JournalMessage] = []
    /// What the exchange breaks in the OpenAPI spec it is checked against (`--validate-against`, or
    /// `--openapi-validate report`): a list of `{location, pointer, message}`; nil when it was not checked.
    public var contractViolations: JSONValue?

    public init(
        startedAt: Date, durationMicroseconds: Int, request: HTTPRequest, requestBodySize: Int, clientAddress: String,
        response: CapturedResponse, outcome: Outcome
    ) {
        self.startedAt = startedAt
        self.durationMicroseconds = durationMicroseconds
        self.request = request
        self.requestBodySize = requestBodySize
        self.clientAddress = clientAddress
        self.response = response
        self.outcome = outcome
    }

    /// Who answered.
    public enum Outcome: Sendable {
        /// A stub (its id, name and where it was defined, nil for the admin API's), for the reader; the location is
        /// put into words only when the entry is read.
        case stub(id: String, name: String?, location: SourceLocation?)
        /// The upstream of an environment; `error` is the failure kind when it was not reached.
        case proxied(environment: String?, upstream: String, error: String?)
        /// No stub and no upstream: a 404, with the closest stubs as its body listed them.
        case unmatched(closestStubs: JSONValue)
        /// Refused before any matching: a malformed request, a refused `CONNECT`.
        case rejected(reason: String)
        /// Answered from an OpenAPI spec (`--openapi`): the operation (nil when the spec has no operation for the
        /// request: a 404 or a 405) and the spec's file.
        case spec(operationId: String?, source: String)

        /// The outcome of an answer `stub` gave.
        public static func stub(_ stub: Stub) -> Outcome {
            .stub(id: stub.id, name: stub.name, location: stub.location)
        }
    }

    public var isUnmatched: Bool {
        if case .unmatched = outcome { return true }
        return false
    }

    /// `approximateSize`, worked out once when the journal takes the entry.
    var recordedSize = 0

    /// Bytes the entry holds, for the journal's byte bound: bodies, headers, and a fixed share for the rest.
    public var approximateSize: Int {
        var size = 256 + request.target.utf8.count + request.body.count + response.body.count
        size += request.headers.fieldBytes + 32 * request.headers.count
        size += response.headers.fieldBytes + 32 * response.headers.count
        if case .unmatched = outcome { size += 512 }
        for message in messages { size += 64 + (message.text?.utf8.count ?? 0) }
        return size
    }
}

/// A response as sent: status, headers and the body, cut at the body limit.
public struct CapturedResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    /// The body, up to the body limit; shared with the stub that answered when it fits.
    public var body: Payload
    public var bodySize: Int
    /// Fields sent after the body (HTTP/2 trailers such as gRPC's `grpc-status`); nil for nearly every answer.
    public var trailers: HTTPHeaders?

    public init(status: Int, headers: HTTPHeaders, body: Payload, bodySize: Int) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodySize = bodySize
    }

    /// Captures `body` whole when it fits in `limit`, else a copy of its first `limit` bytes.
    public init(status: Int, headers: HTTPHeaders, body: Payload, limit: Int) {
        self.status = status
        self.headers = headers
        bodySize = body.count
        self.body = body.count <= limit ? body : body.withUnsafeBytes { Payload($0.prefix(limit)) }
    }

    public var isBodyTruncated: Bool { body.count < bodySize }
}
