/// The environment map (`config/hosts.json`), in SquidKit's host-map format: for each canonical host, the real
/// hosts of its environments (PROD, QA, DEV, and a USER host set at run time).
public struct HostMap: Sendable {
    public struct Configuration: Sendable {
        public var canonicalHost: String
        public var canonicalProtocol: String
        public var prereleaseKey: String?
        public var releaseKey: String?
        public var hosts: [Host]
        /// Marked `"default": true`: used for requests whose host names no configuration.
        public var isDefault: Bool
    }

    public struct Host: Sendable {
        public var key: String
        /// Host and optional port; nil for the `USER` key, whose host is set at run time.
        public var host: String?
        /// `http` or `https`; nil means the configuration's canonical protocol.
        public var `protocol`: String?
    }

    public var configurations: [Configuration]

    public init(configurations: [Configuration]) {
        self.configurations = configurations
    }
}
