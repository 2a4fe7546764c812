import Foundation
import OrreryClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Orrery run as several replicas behind a proxy that routes by `X-Orrery-Session` (see `deploy/nginx/nginx.conf`),
/// reached at one URL: `ORRERY_URL` in a CI job's environment. Each test opens a session there under an id it chose,
/// and every request of the test carries that id in the header, so it reaches the replica holding the session.
///
/// ```swift
/// let fleet = try #require(OrreryFleet.fromEnvironment())
/// let session = try await fleet.openSession(name: "checkout")
/// try await stubRequest(.get, "/v1/cart").andReturn(.ok).withJSON(["items": 0]).install(on: session.client)
/// let app = URLSession(configuration: session.urlSessionConfiguration)   // carries X-Orrery-Session
/// ```
public struct OrreryFleet: Sendable {
    /// The proxy's URL (or a single daemon's): every session is reached there.
    public let url: URL
    /// Sent as `X-Orrery-Admin-Token` when the fleet needs one.
    public let adminToken: String?

    public init(url: URL, adminToken: String? = nil) {
        self.url = url
        self.adminToken = adminToken
    }

    /// The fleet named by `ORRERY_URL` (and `ORRERY_ADMIN_TOKEN`), or nil when it is not set.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        -> OrreryFleet?
    {
        guard let text = environment["ORRERY_URL"], !text.isEmpty, let url = URL(string: text) else { return nil }
        return OrreryFleet(url: url, adminToken: environment["ORRERY_ADMIN_TOKEN"])
    }

    /// Opens a session under a new id chosen here: the name made safe for an id (`A-Za-z0-9._-`), then 12 random
    /// hexadecimal digits, so that jobs sharing the fleet never collide.
    public func openSession(name: String? = nil) async throws -> OrreryFleetSession {
        let id = Self.newID(for: name)
        let client = OrreryClient(baseURL: url, session: id, adminToken: adminToken)
        do {
            _ = try await client.createSession(id: id, name: name)
        } catch {
            throw OrreryTestingError.sessionFailed(
                "The fleet at \(url.absoluteString) did not open session \(id).", underlyingError: error)
        }
        return OrreryFleetSession(id: id, name: name, fleet: self)
    }

    /// An id for a session named `name`: at most 64 characters of `A-Za-z0-9._-`.
    static func newID(for name: String?) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let safe = String((name ?? "session").map { allowed.contains($0) ? $0 : "-" }.prefix(48))
        var generator = SystemRandomNumberGenerator()
        let random = String(generator.next() & 0xFFFF_FFFF_FFFF, radix: 16)
        return safe + "-" + String(repeating: "0", count: 12 - random.count) + random
    }
}
