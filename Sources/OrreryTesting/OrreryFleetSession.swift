import Foundation
import OrreryClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One test's session on a fleet: reached at the fleet's URL with `X-Orrery-Session: id` on every request.
public struct OrreryFleetSession: Sendable {
    /// The id this kit chose, sent as `X-Orrery-Session`.
    public let id: String
    public let name: String?
    public let fleet: OrreryFleet

    /// The base URL the code under test calls: the fleet's, with ``urlSessionConfiguration`` carrying the header.
    public var url: URL { fleet.url }

    /// A client for this session's admin API (each call carries the header).
    public var client: OrreryClient { OrreryClient(baseURL: fleet.url, session: id, adminToken: fleet.adminToken) }

    /// A configuration for the app's `URLSession` that sends `X-Orrery-Session: id` with every request.
    public var urlSessionConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        var headers = configuration.httpAdditionalHeaders ?? [:]
        headers["X-Orrery-Session"] = id
        configuration.httpAdditionalHeaders = headers
        return configuration
    }

    /// Ends the session on the replica that holds it.
    public func end() async throws {
        do {
            try await client.endSession(id: id)
        } catch {
            throw OrreryTestingError.sessionFailed(
                "The fleet at \(fleet.url.absoluteString) did not end session \(id).", underlyingError: error)
        }
    }
}
