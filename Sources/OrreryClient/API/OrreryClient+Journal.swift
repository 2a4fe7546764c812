import Foundation

extension OrreryClient {
    /// `GET /__admin/requests`: a page of the journal, newest first (the daemon's defaults: 100 from the newest).
    public func requests(limit: Int? = nil, offset: Int? = nil) async throws -> JournalPage {
        var query: [URLQueryItem] = []
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let offset { query.append(URLQueryItem(name: "offset", value: String(offset))) }
        return try await send(Call("GET", "requests", query: query))
    }

    /// `GET /__admin/requests/{id}`: one exchange.
    public func request(id: String) async throws -> JournalEntry {
        try await send(Call("GET", "requests", id))
    }

    /// `GET /__admin/requests/unmatched`: the exchanges no stub and no upstream answered, newest first.
    public func unmatchedRequests() async throws -> [JournalEntry] {
        try await send(Call("GET", "requests", "unmatched"), as: RequestList.self).requests
    }

    /// `DELETE /__admin/requests`: empties the journal and returns how many exchanges it held.
    @discardableResult
    public func clearRequests() async throws -> Int {
        try await send(Call("DELETE", "requests"), as: Cleared.self).cleared
    }

    /// `POST /__admin/requests/count`: how many journaled exchanges match a pattern.
    public func count(_ pattern: RequestPattern) async throws -> Int {
        try await send(Call("POST", "requests", "count", body: patternJSON(pattern)), as: Count.self).count
    }

    /// How many journaled requests had this method and URL (`/path?query`, or `https://host/path?query`).
    public func count(_ method: HTTPMethod, _ url: String) async throws -> Int {
        try await count(RequestPattern(method, url))
    }

    /// `POST /__admin/requests/find`: the journaled exchanges that match a pattern, newest first.
    public func findRequests(_ pattern: RequestPattern) async throws -> [JournalEntry] {
        try await send(Call("POST", "requests", "find", body: patternJSON(pattern)), as: RequestList.self).requests
    }

    /// The journaled requests with this method and URL, newest first.
    public func findRequests(_ method: HTTPMethod, _ url: String) async throws -> [JournalEntry] {
        try await findRequests(RequestPattern(method, url))
    }

    /// `GET /__admin/requests.har`: the journal as an HTTP Archive (HAR 1.2), oldest first.
    public func har() async throws -> Data {
        try await perform(Call("GET", "requests.har"))
    }

    private func patternJSON(_ pattern: RequestPattern) throws -> JSON {
        guard pattern.problems.isEmpty else {
            throw OrreryClientError.invalidStub(pattern.problems, what: "request pattern")
        }
        return pattern.json
    }
}

/// `{"requests": [...], "total": N}`.
struct RequestList: Decodable {
    let requests: [JournalEntry]
}

/// `{"count": N}`.
struct Count: Decodable {
    let count: Int
}

/// `{"cleared": N}`.
struct Cleared: Decodable {
    let cleared: Int
}
