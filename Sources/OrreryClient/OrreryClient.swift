import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client for a running Orrery daemon's admin API (`/__admin/`), for tests that stub, reset and verify.
///
/// ```swift
/// let orrery = OrreryClient(baseURL: daemonURL)   // http://127.0.0.1:8080
/// try await stubRequest(.get, "/users/1").andReturn(.code200OK).withJSON(["id": 1]).install(on: orrery)
/// try await orrery.verify(.get, "/users/1", count: 1)
/// ```
///
/// Every method but `verify` is one HTTP call with URLSession. Calls never go through a proxy named in the
/// environment (`http_proxy`, `all_proxy`): on Linux URLSession would send even loopback requests there, so making a
/// client adds its host and the loopback names to `no_proxy` for the process (see docs/testing-from-swift.md,
/// "OrreryClient"). Errors are ``OrreryClientError``s that carry the daemon's `message`, `failureReason` and
/// `recoverySuggestion`.
public struct OrreryClient: Sendable {
    /// Where the daemon listens, such as `http://127.0.0.1:8080`; the admin API is under `/__admin/` there.
    public let baseURL: URL
    /// The Orrery session every call is sent to (as `X-Orrery-Session`), or nil for the daemon itself.
    public let session: String?
    /// Sent as `X-Orrery-Admin-Token`: needed when the daemon is not on loopback, or the call crosses origins.
    public let adminToken: String?
    /// How long a call may take before it fails as a transport failure, in seconds.
    public let timeout: TimeInterval

    /// Makes a client for the daemon at `baseURL`.
    /// - Parameters:
    ///   - baseURL: where the daemon listens, such as `http://127.0.0.1:8080`.
    ///   - session: an Orrery session's id; every call then carries `X-Orrery-Session` and acts on that session.
    ///   - adminToken: the daemon's `--admin-token`, when it has one and the call needs it.
    ///   - timeout: seconds a call may take (10 unless given); admin calls on loopback take about a millisecond.
    public init(baseURL: URL, session: String? = nil, adminToken: String? = nil, timeout: TimeInterval = 10) {
        self.baseURL = baseURL
        self.session = session
        self.adminToken = adminToken
        self.timeout = timeout
        LoopbackProxyGuard.exempt(host: baseURL.host)
    }

    /// The same client, acting on the Orrery session `id` (nil: on the daemon itself).
    public func inSession(_ id: String?) -> OrreryClient {
        OrreryClient(baseURL: baseURL, session: id, adminToken: adminToken, timeout: timeout)
    }
}

// MARK: - Transport

extension OrreryClient {
    /// One URLSession for every client: no cache, no cookies, no proxy where the platform honours that setting.
    private static let urlSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // Honoured on Apple platforms; Linux ignores it, which is what LoopbackProxyGuard is for.
        configuration.connectionProxyDictionary = [:]
        return URLSession(configuration: configuration)
    }()

    /// An admin call: the method and the path segments after `/__admin/`, each percent-encoded on its own.
    struct Call: Sendable {
        var method: String
        var segments: [String]
        var query: [URLQueryItem] = []
        var body: JSON?

        init(_ method: String, _ segments: String..., query: [URLQueryItem] = [], body: JSON? = nil) {
            self.method = method
            self.segments = segments
            self.query = query
            self.body = body
        }

        /// `GET /__admin/stubs/users-1`.
        var description: String { "\(method) \(path)" }

        var path: String {
            let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;"))
            let encoded = segments.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }
            return "/__admin/" + encoded.joined(separator: "/")
        }
    }

    /// Sends a call and returns the body of a 2xx answer; any other status is a `daemonError`.
    func perform(_ call: Call) async throws -> Data {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true) else {
            throw OrreryClientError.transport(call: call.description, baseURL: baseURL, URLError(.badURL))
        }
        let prefix =
            components.percentEncodedPath.hasSuffix("/")
            ? String(components.percentEncodedPath.dropLast()) : components.percentEncodedPath
        components.percentEncodedPath = prefix + call.path
        components.queryItems = call.query.isEmpty ? nil : call.query
        guard let url = components.url else {
            throw OrreryClientError.transport(call: call.description, baseURL: baseURL, URLError(.badURL))
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = call.method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let session { request.setValue(session, forHTTPHeaderField: "X-Orrery-Session") }
        if let adminToken { request.setValue(adminToken, forHTTPHeaderField: "X-Orrery-Admin-Token") }
        if let body = call.body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body.data
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await Self.urlSession.data(for: request)
        } catch {
            throw OrreryClientError.transport(call: call.description, baseURL: baseURL, error)
        }
        guard let http = response as? HTTPURLResponse else {
            throw OrreryClientError.invalidResponse(call: call.description, "the answer is not HTTP")
        }
        guard (200..<300).contains(http.statusCode) else {
            throw OrreryClientError.daemon(call: call.description, status: http.statusCode, body: data)
        }
        return data
    }

    /// Sends a call and decodes its answer.
    func send<Answer: Decodable>(_ call: Call, as type: Answer.Type = Answer.self) async throws -> Answer {
        let data = try await perform(call)
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            let text = String(decoding: data.prefix(500), as: UTF8.self)
            throw OrreryClientError.invalidResponse(
                call: call.description,
                "expected \(Answer.self), got \(text.isEmpty ? "an empty body" : text) (\(error))",
                underlyingError: error)
        }
    }
}
