import Foundation
import OrreryClient
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Plain HTTP calls to a daemon's stubbed routes, as an app under test makes them.
enum HTTP {
    struct Answer: Sendable {
        let status: Int
        let headers: [String: String]
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> JSON { try JSON(parsing: body) }
        func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// Sends a request to `path` on the daemon (made after a client, whose guard keeps proxies off loopback).
    static func send(
        _ method: String = "GET", _ path: String, to daemon: Daemon, headers: [String: String] = [:], body: Data? = nil,
        timeout: TimeInterval = 10
    ) async throws -> Answer {
        _ = daemon.client  // makes sure loopback is exempt from any proxy in the environment
        let url = try #require(URL(string: daemon.baseURL.absoluteString + path))
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return Answer(status: http.statusCode, headers: fields, body: data)
    }

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()
}
