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
        /// Headers added to every upstream request of this configuration (an extension, see docs/proxy.md).
        public var injectedHeaders: [InjectedHeader] = []

        /// The host entry of an environment key.
        public func host(forKey key: String) -> Host? {
            hosts.first { $0.key == key }
        }

        /// The names that choose this configuration: its canonical host, and each environment's host.
        public var hostNames: [String] { [canonicalHost] + hosts.compactMap(\.host) }

        /// Whether `host` (as a `Host` header or absolute URI writes it) names this configuration: one of
        /// `hostNames`, without regard to ASCII case.
        public func names(_ host: String) -> Bool {
            canonicalHost.equalsIgnoringASCIICase(host) || hosts.contains { $0.host?.equalsIgnoringASCIICase(host) == true }
        }
    }

    /// A header whose value comes from an environment variable when the proxy sends a request: secrets stay out of
    /// the files, the logs and the error bodies.
    public struct InjectedHeader: Sendable, Equatable {
        public var name: String
        /// The environment variable that holds the value.
        public var variable: String
    }

    public struct Host: Sendable {
        public var key: String
        /// Host and optional port; nil for the `USER` key, whose host is set at run time.
        public var host: String?
        /// `http` or `https`; nil means the configuration's canonical protocol.
        public var `protocol`: String?
        /// Headers added to upstream requests sent to this environment (on top of the configuration's).
        public var injectedHeaders: [InjectedHeader] = []
        /// `"http2": true`: the host speaks HTTP/2 without TLS (h2c, prior knowledge), as a gRPC server does. TLS
        /// hosts need no mark: they are offered `h2` by ALPN.
        public var speaksHTTP2 = false
    }

    /// The configuration a request belongs to: the one its host names, else the default one.
    public func configuration(forHost host: String?) -> Configuration? {
        if let host, let named = configurations.first(where: { $0.names(host) }) { return named }
        return defaultConfiguration
    }

    /// The only configuration, or the one marked `"default": true`.
    public var defaultConfiguration: Configuration? {
        defaultConfigurationIndex.map { configurations[$0] }
    }

    public var defaultConfigurationIndex: Int? {
        configurations.count == 1 ? 0 : configurations.firstIndex(where: \.isDefault)
    }

    public var configurations: [Configuration]

    public init(configurations: [Configuration]) {
        self.configurations = configurations
    }
}
