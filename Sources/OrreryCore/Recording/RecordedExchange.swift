import Foundation

/// One exchange as a recording keeps it: already redacted, the response body decoded, ready to become a fixture.
///
/// Made by the recorder from a proxied exchange and by `orrery import har` from a HAR entry; both go through this
/// initializer, so the two agree on what a fixture holds.
public struct RecordedExchange: Sendable {
    public var method: String
    /// The host the fixture will require, as the client wrote it; nil when the request did not name one that
    /// matters (a client pointed straight at Orrery), so that the fixture answers on any address.
    public var host: String?
    /// The folder the fixture goes in: the upstream's host (`api.example.com`, `127.0.0.1_9001`).
    public var folder: String
    /// The request target in origin form (`/a%20b?x=1`), the query as received.
    public var target: String
    /// The decoded path.
    public var path: String
    /// Request headers the fixture must match (the recording's `matchHeaders`), as sent.
    public var matchedHeaders: [(name: String, value: String)]
    public var requestBody: [UInt8]
    public var status: Int
    /// The response headers to replay, without those the server recomputes.
    public var responseHeaders: HTTPHeaders
    /// The response body decoded (a gzip body as its text).
    public var responseBody: [UInt8]
    /// The coding the upstream used, applied again on replay for clients that accept it.
    public var encoding: ContentCoding?
    /// A `text/event-stream` answer as its events, each with the delay it came after the one before it: the fixture
    /// replays them as an `events` stub rather than one body.
    public var events: [EventStreamScript.Event]?
    /// Fields the upstream sent after the body (gRPC's `grpc-status`): replayed as the stub's `trailers`.
    public var trailers: HTTPHeaders?
    /// What redaction took out of the exchange, by kind and name (`JSON field password`), for the recording's
    /// summary.
    public var redactions: [String] = []

    /// Headers a replay computes itself (the date, the framing) or that belong to one connection only.
    static let recomputedHeaders = ProxyHeaders.hopByHop.union(["date", "content-length", "content-encoding"])

    /// - Parameters:
    ///   - request: the request as received (redacted); its target may be absolute.
    ///   - responseHeaders: the response headers as sent to the client; `Content-Encoding` among them says what
    ///     `decodedBody` was decoded from.
    ///   - decodedBody: the response body without its content coding.
    ///   - encoding: the coding `decodedBody` came in, nil for none (or one that could not be undone, in which
    ///     case the body stays as it was and the header with it).
    public init(
        request: HTTPRequest, host: String?, folder: String, matchHeaders: [String], status: Int,
        responseHeaders: HTTPHeaders, decodedBody: [UInt8], encoding: ContentCoding?
    ) {
        method = request.method
        self.host = host
        self.folder = folder
        let origin = request.originForm
        target = origin.firstIndex(of: "#").map { String(origin[..<$0]) } ?? origin
        path = request.path
        matchedHeaders = matchHeaders.flatMap { name in
            request.headers.entries.filter { $0.name.equalsIgnoringASCIICase(name) }
        }
        requestBody = request.body
        self.status = status
        let isDecoded = encoding.map { $0 != .identity } ?? false
        self.responseHeaders = HTTPHeaders(
            responseHeaders.entries.filter { entry in
                let name = entry.name.lowercased()
                // A body left encoded keeps the header that says so.
                if name == "content-encoding" && !isDecoded { return true }
                return !Self.recomputedHeaders.contains(name)
            })
        responseBody = decodedBody
        self.encoding = isDecoded ? encoding : nil
    }

    /// An exchange with its secrets redacted as the journal redacts them (the response body already decoded, so
    /// that a secret echoed inside gzip is found), bodies whole whatever the journal's limit.
    public static func redacted(
        request: HTTPRequest, host: String?, folder: String, matchHeaders: [String], status: Int,
        responseHeaders: HTTPHeaders, decodedBody: Payload, encoding: ContentCoding?, redactor: Redactor
    ) -> RecordedExchange {
        var entry = JournalEntry(
            startedAt: Date(), durationMicroseconds: 0, request: request, requestBodySize: request.body.count,
            clientAddress: "",
            response: CapturedResponse(status: status, headers: responseHeaders, body: decodedBody, limit: .max),
            outcome: .proxied(environment: nil, upstream: folder, error: nil))
        let redactions = redactor.redact(&entry)
        var exchange = RecordedExchange(
            request: entry.request, host: host, folder: folder, matchHeaders: matchHeaders, status: status,
            responseHeaders: entry.response.headers, decodedBody: entry.response.body.bytes, encoding: encoding)
        exchange.redactions = redactions
        return exchange
    }

    /// What makes two requests the same for a fixture: repeats of it with new answers form a sequence.
    var requestKey: RequestKey {
        RequestKey(
            method: method, host: host, path: path,
            query: PercentDecoding.queryItems(target.split(separator: "?", maxSplits: 1).dropFirst().first ?? "")
                .sorted { ($0.name, $0.value) < ($1.name, $1.value) },
            headers: matchedHeaders.map { "\($0.name.lowercased()): \($0.value)" }, body: requestBody)
    }

    struct RequestKey: Hashable {
        var method: String
        var host: String?
        var path: String
        var query: [QueryItem]
        var headers: [String]
        var body: [UInt8]
    }

    /// The response alone, to tell a repeat with the same answer from a new one.
    var response: RecordedResponse {
        RecordedResponse(
            status: status, headers: responseHeaders, body: responseBody, encoding: encoding, events: events,
            trailers: trailers)
    }
}

/// One answer of a fixture.
struct RecordedResponse: Equatable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    var encoding: ContentCoding?
    var events: [EventStreamScript.Event]?
    var trailers: HTTPHeaders?
}
