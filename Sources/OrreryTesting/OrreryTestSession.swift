import Foundation
import OrreryClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One test's own Orrery: a session on a shared daemon, with its own port, API stubs, journal and scenarios.
///
/// Point the code under test at ``url`` and stub and verify with ``client``: both reach this session alone, so tests
/// that run in parallel on one daemon never see each other's stubs or requests. The daemon's file stubs and host map
/// are seen by every session.
public struct OrreryTestSession: Sendable {
    /// The session's id (`X-Orrery-Session` on the daemon's own port selects it too).
    public let id: String
    /// The name it was opened with (the trait uses the test's name).
    public let name: String?
    /// The session's own base URL, such as `http://127.0.0.1:49153`: the app's base URL in the test.
    public let url: URL
    /// The session's own port.
    public let port: Int
    /// The daemon the session lives in.
    public let daemon: OrreryDaemon

    /// A client for this session's admin API: stubs added, requests verified and `reset()` touch this session only.
    /// On a daemon running elsewhere (`ORRERY_URL`, perhaps a fleet behind a proxy) it calls the daemon's URL with
    /// `X-Orrery-Session`, which reaches the session wherever its own port is not reachable.
    public var client: OrreryClient {
        daemon.isAttached ? OrreryClient(baseURL: daemon.url, session: id) : OrreryClient(baseURL: url)
    }

    /// A configuration for the app's `URLSession` that sends `X-Orrery-Session: id` with every request: with it the
    /// app may call the daemon's (or a fleet's) URL, `daemon.url`, instead of the session's own port, which a proxy
    /// in front of several daemons does not reach.
    public var urlSessionConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        var headers = configuration.httpAdditionalHeaders ?? [:]
        headers["X-Orrery-Session"] = id
        configuration.httpAdditionalHeaders = headers
        return configuration
    }

    /// `url` with `path` appended, such as `session.url("/v1/forecast")`.
    public func url(_ path: String) -> URL {
        let base = url.absoluteString.hasSuffix("/") ? String(url.absoluteString.dropLast()) : url.absoluteString
        let tail = path.hasPrefix("/") ? path : "/" + path
        return URL(string: base + tail) ?? url.appendingPathComponent(path)
    }

    /// Ends the session (`DELETE /__admin/sessions/{id}`): its port closes and its stubs and journal go.
    public func end() async throws {
        do {
            try await daemon.client.endSession(id: id)
        } catch {
            throw daemon.failure("The daemon did not end session \(id).", error)
        }
    }
}
