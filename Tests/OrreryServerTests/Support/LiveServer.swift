import Foundation
import Logging
import OrreryCore
import OrreryEvent
import OrreryServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real Orrery daemon on an ephemeral loopback port, serving stub files written to a temporary folder.
final class LiveServer {
    let folder: URL
    let daemon: Daemon

    /// Writes `files` (relative path → contents) under a new stubs folder and starts a daemon on it.
    init(files: [String: String], threads: Int = 2, configure: (inout DaemonConfiguration) -> Void = { _ in }) throws {
        folder = try TemporaryFolder.make(files: files)
        var configuration = DaemonConfiguration()
        configuration.http.host = "127.0.0.1"
        configuration.http.port = 0
        configuration.http.threads = threads
        configuration.stubsFolder = folder.appendingPathComponent("stubs").path
        configuration.configFolder = folder.appendingPathComponent("config").path
        configuration.watchIntervalMilliseconds = 0
        configure(&configuration)
        do {
            daemon = try Daemon(configuration: configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            try daemon.start()
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    var port: Int { daemon.port }
    var baseURL: String { "http://127.0.0.1:\(port)" }
    var stubsFolder: URL { folder.appendingPathComponent("stubs") }

    func stop() {
        daemon.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Starts a server, runs `body`, and stops the server on success and on error alike.
    static func with<Result>(
        files: [String: String], threads: Int = 2, configure: (inout DaemonConfiguration) -> Void = { _ in },
        _ body: (LiveServer) async throws -> Result
    ) async throws -> Result {
        let server = try LiveServer(files: files, threads: threads, configure: configure)
        defer { server.stop() }
        return try await body(server)
    }

    /// A GET through URLSession.
    func request(_ path: String, headers: [String: String] = [:]) async throws -> HTTPResult {
        try await request("GET", path, headers: headers)
    }

    /// One request through URLSession.
    func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil
    ) async throws -> HTTPResult {
        try await HTTPClient.request(method, baseURL + path, headers: headers, body: body)
    }
}

/// What a client got back.
struct HTTPResult {
    var status: Int
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first(where: { $0.key.lowercased() == name.lowercased() })?.value
    }

    /// The body as a JSON object.
    func json() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: body)
        return try #require(object as? [String: Any], "body is not a JSON object: \(text)")
    }
}

enum HTTPClient {
    /// A session that never uses a proxy and gives up quickly: tests only talk to loopback.
    static let session: URLSession = {
        setenv("no_proxy", "127.0.0.1,localhost", 1)
        setenv("NO_PROXY", "127.0.0.1,localhost", 1)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 15
        configuration.timeoutIntervalForResource = 30
        configuration.connectionProxyDictionary = [:]
        return URLSession(configuration: configuration)
    }()

    static func request(_ method: String, _ url: String, headers: [String: String] = [:], body: Data? = nil)
        async throws -> HTTPResult
    {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { fields[key] = value }
        }
        return HTTPResult(status: http.statusCode, headers: fields, body: data)
    }
}

/// Temporary folders for stub files, removed by their owner.
enum TemporaryFolder {
    static func make(files: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("stubs"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("config"), withIntermediateDirectories: true)
        for (path, contents) in files {
            try write(contents, to: folder.appendingPathComponent(path))
        }
        return folder
    }

    static func write(_ contents: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url)
    }
}
