/// `GET /__admin/health`: whether the daemon is up, its version and counts.
public struct Health: Decodable, Sendable, Equatable {
    /// `ok` while the daemon serves.
    public let status: String
    public let version: String
    /// Stubs loaded: from files and added over the API.
    public let stubs: Int
    /// Stub files read.
    public let stubFiles: Int?
    public let uptimeSeconds: Int?
    /// Event loops serving requests.
    public let threads: Int?
    /// Whether requests no stub answers are forwarded to an upstream (a host map, and no `--no-proxy`).
    public let isProxying: Bool?

    enum CodingKeys: String, CodingKey {
        case status, version, stubs, stubFiles, uptimeSeconds, threads
        case isProxying = "proxy"
    }
}
