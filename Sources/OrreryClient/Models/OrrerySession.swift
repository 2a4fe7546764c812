import Foundation

/// An Orrery session: a private Orrery inside the daemon, with its own port, API stubs, journal and scenarios.
public struct OrrerySession: Decodable, Sendable, Equatable {
    /// The id that `X-Orrery-Session` (and `OrreryClient.inSession(_:)`) selects it by.
    public let id: String
    /// The session's own port.
    public let port: Int?
    /// The session's own base URL, such as `http://127.0.0.1:49152`.
    public let url: String?
    public let name: String?

    /// A client for the daemon at the session's own URL, or nil when the daemon gave none.
    public func client(adminToken: String? = nil) -> OrreryClient? {
        guard let url, let baseURL = URL(string: url) else { return nil }
        return OrreryClient(baseURL: baseURL, adminToken: adminToken)
    }
}

/// The sessions as `GET /__admin/sessions` lists them: a list, or an object with one.
struct SessionList: Decodable {
    let sessions: [OrrerySession]

    private enum CodingKeys: String, CodingKey { case sessions }

    init(from decoder: any Decoder) throws {
        if let list = try? [OrrerySession](from: decoder) {
            sessions = list
        } else {
            sessions = try decoder.container(keyedBy: CodingKeys.self).decode([OrrerySession].self, forKey: .sessions)
        }
    }
}
