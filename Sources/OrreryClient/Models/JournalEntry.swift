import Foundation

/// One exchange in the daemon's journal: the request, the response, and who answered it.
public struct JournalEntry: Decodable, Sendable, Equatable, CustomStringConvertible {
    /// The journal's id, for `request(id:)`.
    public let id: String
    /// When it started, RFC 3339 in UTC with milliseconds.
    public let time: String
    public let durationMs: Double?
    public let request: Request
    public let response: Response
    /// Whether a stub answered it.
    public let isMatched: Bool
    /// The stub that answered, when one did.
    public let stub: StubReference?
    /// The upstream it was forwarded to, when no stub answered and the proxy did.
    public let proxied: Proxied?
    /// For a miss: the stubs that came closest and what differed, as the daemon wrote them.
    public let closestStubs: JSON?
    /// Why Orrery refused the request itself (a malformed one), when it did.
    public let rejected: String?
    /// `https` for a request that came through an intercepted `CONNECT` or the TLS port, else `http`.
    public let scheme: String
    /// The session the exchange belongs to, when it came on a session's port or with `X-Orrery-Session`.
    public let session: String?
    /// The fault a stub answered with (`connectionReset`, `truncatedBody`, ...), when it did.
    public let fault: String?
    /// The whole entry as the daemon sent it, members this type has no property for included.
    public let json: JSON

    /// A request as the journal keeps it (secrets redacted).
    public struct Request: JournalMessage, Decodable, Sendable, Equatable {
        public let method: String
        /// The request target as received: path and query.
        public let url: String
        /// The percent-decoded path.
        public let path: String
        public let query: [String: String]?
        /// The `Host` header, or the host of an absolute request URI.
        public let host: String?
        public let clientAddress: String?
        public let headers: [HTTPHeader]?
        public let bodySize: Int?
        /// The body when it is UTF-8 text (cut at the journal's body limit).
        public let body: String?
        /// The body in base64 when it is not text.
        public let bodyBase64: String?
        public let bodyTruncated: Bool?
        /// The GraphQL operation's name (a batch's names joined with `, `), for a GraphQL request.
        public let graphqlOperation: String?
    }

    /// A response as the journal keeps it: the body as it was before any gzip.
    public struct Response: JournalMessage, Decodable, Sendable, Equatable {
        public let status: Int
        public let headers: [HTTPHeader]?
        public let bodySize: Int?
        public let body: String?
        public let bodyBase64: String?
        public let bodyTruncated: Bool?
    }

    /// The stub that answered an exchange.
    public struct StubReference: Decodable, Sendable, Equatable {
        public let id: String
        public let name: String?
        /// `stubs/users.yaml:3`, or `admin API`.
        public let source: String?
    }

    /// Where an exchange was forwarded.
    public struct Proxied: Decodable, Sendable, Equatable {
        /// The environment's key, such as `PROD`.
        public let environment: String?
        /// The upstream's URL.
        public let upstream: String?
        /// Why the upstream failed, when it did.
        public let error: String?
    }

    enum CodingKeys: String, CodingKey {
        case id, time, durationMs, request, response, stub, proxied, closestStubs, rejected, scheme, session, fault
        case isMatched = "matched"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        time = try container.decode(String.self, forKey: .time)
        durationMs = try container.decodeIfPresent(Double.self, forKey: .durationMs)
        request = try container.decode(Request.self, forKey: .request)
        response = try container.decode(Response.self, forKey: .response)
        isMatched = try container.decodeIfPresent(Bool.self, forKey: .isMatched) ?? false
        stub = try container.decodeIfPresent(StubReference.self, forKey: .stub)
        proxied = try container.decodeIfPresent(Proxied.self, forKey: .proxied)
        closestStubs = try container.decodeIfPresent(JSON.self, forKey: .closestStubs)
        rejected = try container.decodeIfPresent(String.self, forKey: .rejected)
        scheme = try container.decodeIfPresent(String.self, forKey: .scheme) ?? "http"
        session = try container.decodeIfPresent(String.self, forKey: .session)
        fault = try container.decodeIfPresent(String.self, forKey: .fault)
        json = try JSON(from: decoder)
    }

    /// `#12 GET /users/1 → 200 (stub users-1)`: one line, as verification failures list exchanges.
    public var description: String {
        var line = "#\(id) \(request.method) \(request.host ?? "")\(request.url) → \(response.status)"
        if let stub {
            line += " (stub \(stub.name ?? stub.id))"
        } else if let proxied {
            line += " (proxied to \(proxied.upstream ?? proxied.environment ?? "an upstream"))"
        } else if let rejected {
            line += " (rejected: \(rejected))"
        } else {
            line += " (no stub matched)"
        }
        return line
    }
}

/// What a journaled request and response have alike: header fields and a body, as text or base64.
public protocol JournalMessage {
    var headers: [HTTPHeader]? { get }
    var body: String? { get }
    var bodyBase64: String? { get }
}

extension JournalMessage {
    /// The first value of a header, its name compared without regard to case.
    public func header(_ name: String) -> String? { headers?.first(named: name) }

    /// The body's bytes, from `body` or `bodyBase64`.
    public var bodyData: Data? { body.map { Data($0.utf8) } ?? bodyBase64.flatMap { Data(base64Encoded: $0) } }
}

/// A header as the journal lists it: name and value, in the order received.
public struct HTTPHeader: Codable, Hashable, Sendable {
    public let name: String
    public let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension [HTTPHeader] {
    /// The first value of the header `name`, compared without regard to case.
    public func first(named name: String) -> String? {
        first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A page of the journal, newest first.
public struct JournalPage: Decodable, Sendable, Equatable {
    public let requests: [JournalEntry]
    /// Exchanges the journal holds.
    public let total: Int
    public let limit: Int
    public let offset: Int
    /// Exchanges journaled since the daemon started, evicted and cleared ones included.
    public let recordedSinceStart: Int?
    /// The journal's limits and the bytes it holds.
    public let journal: JSON?
}
