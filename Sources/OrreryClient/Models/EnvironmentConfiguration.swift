/// One configuration of the environment map (`config/hosts.json`), with its hosts and the environment in use.
public struct EnvironmentConfiguration: Decodable, Sendable, Equatable {
    /// The host the app asks for, such as `api.example.com`: the key to choose its environment by.
    public let canonicalHost: String
    public let canonicalProtocol: String
    public let releaseKey: String
    public let prereleaseKey: String?
    /// Whether requests whose host names no configuration use this one.
    public let isDefault: Bool
    /// The key of the environment in use, such as `PROD`.
    public let activeKey: String
    public let hosts: [Host]

    /// One environment: its key, host and protocol.
    public struct Host: Decodable, Sendable, Equatable {
        public let key: String
        /// Nil for a `USER` environment whose host was not set yet.
        public let host: String?
        public let `protocol`: String?
        public let isActive: Bool

        enum CodingKeys: String, CodingKey {
            case key, host, `protocol`
            case isActive = "active"
        }
    }

    /// The environment in use.
    public var active: Host? { hosts.first { $0.key == activeKey } }

    enum CodingKeys: String, CodingKey {
        case canonicalHost = "canonical_host"
        case canonicalProtocol = "canonical_protocol"
        case releaseKey = "release_key"
        case prereleaseKey = "prerelease_key"
        case isDefault = "default"
        case activeKey = "active"
        case hosts
    }
}

/// The protocol of an upstream.
public enum UpstreamProtocol: String, Sendable, Hashable, CaseIterable {
    case http
    case https
}

/// The environment map as the admin API answers it.
struct EnvironmentList: Decodable {
    let configurations: [EnvironmentConfiguration]
}
