/// Which environment each configuration of the host map sends to, and how a request finds its upstream.
public struct Environments: Sendable {
    public let map: HostMap
    /// Choices made at run time (admin API, `--env`, the state file), by lower-cased canonical host.
    public private(set) var choices: [String: EnvironmentChoice] {
        didSet { resolveUpstreams() }
    }
    /// Each configuration's upstream under the current choices, by the configuration's index in the map: worked out
    /// when a choice changes, not for every request.
    private var upstreams: [Result<Upstream, UpstreamSelectionError>] = []
    /// The names the configurations answer to (`HostMap.Configuration.names`), in the map's order, each with its
    /// configuration's index: asked of every request's host, which is compared with them as bytes, by length first.
    /// (Searched one configuration's names at a time, through nested closures, the lookup cost some 400
    /// instructions a request with a single configuration.)
    private let hostNames: [(name: String, index: Int)]

    public init(map: HostMap, choices: [String: EnvironmentChoice] = [:]) {
        self.map = map
        hostNames = map.configurations.enumerated().flatMap { index, configuration in
            configuration.hostNames.map { ($0, index) }
        }
        self.choices = [:]
        for (host, choice) in choices {
            // A saved choice that no longer fits the map (a key removed since) is dropped, not fatal.
            try? choose(choice, forCanonicalHost: host)
        }
        resolveUpstreams()
    }

    private mutating func resolveUpstreams() {
        upstreams = map.configurations.map(resolveUpstream(of:))
    }

    /// The environment a configuration sends to: the one chosen, else its `release_key`, else its first host.
    public func activeChoice(for configuration: HostMap.Configuration) -> EnvironmentChoice {
        if let choice = choices[configuration.canonicalHost.lowercased()] { return choice }
        return EnvironmentChoice(key: configuration.releaseKey ?? configuration.hosts.first?.key ?? "")
    }

    /// Chooses an environment. `USER` takes a host (and protocol) with it; other keys must be in the map.
    public mutating func choose(_ choice: EnvironmentChoice, forCanonicalHost canonicalHost: String) throws(EnvironmentError) {
        guard let configuration = map.configurations.first(where: { $0.canonicalHost.equalsIgnoringASCIICase(canonicalHost) }) else {
            throw EnvironmentError("there is no configuration for '\(canonicalHost)'; known: \(map.configurations.map(\.canonicalHost).joined(separator: ", "))")
        }
        guard configuration.host(forKey: choice.key) != nil else {
            throw EnvironmentError("'\(canonicalHost)' has no environment '\(choice.key)'; known: \(configuration.hosts.map(\.key).joined(separator: ", "))")
        }
        if let protocolName = choice.protocol, protocolName != "http" && protocolName != "https" {
            throw EnvironmentError("protocol must be \"http\" or \"https\", not \"\(protocolName)\"")
        }
        if choice.key == EnvironmentChoice.userKey {
            guard let host = choice.host, !host.isEmpty, !host.contains("/"), !host.contains(" ") else {
                throw EnvironmentError("the USER environment needs a \"host\" (with an optional port)")
            }
        } else if choice.host != nil {
            throw EnvironmentError("only the USER environment takes a host; '\(choice.key)' has one in the host map")
        }
        choices[configuration.canonicalHost.lowercased()] = choice
    }

    /// Chooses `key` for every configuration that has it (`--env`); an error if none has it.
    public mutating func chooseEverywhere(_ key: String) throws(EnvironmentError) {
        let matching = map.configurations.filter { $0.host(forKey: key) != nil }
        guard !matching.isEmpty else { throw EnvironmentError("no configuration in the host map has an environment '\(key)'") }
        for configuration in matching where key != EnvironmentChoice.userKey || choices[configuration.canonicalHost.lowercased()]?.key == key {
            choices[configuration.canonicalHost.lowercased()] = EnvironmentChoice(key: key)
        }
    }

    /// Where a request no stub answered goes: found from the absolute URI's host, else the `Host` header when it
    /// names a configuration exactly, else the default configuration. Nil when there is no upstream for it.
    public func upstream(for request: HTTPRequest) -> Result<Upstream, UpstreamSelectionError>? {
        if request.isAbsoluteForm, let host = request.host {
            if let index = configurationIndex(named: host) {
                return upstreams[index]
            }
            // A client using Orrery as its HTTP proxy for a host the map does not know: send it where it asked.
            let scheme = request.target.lowercased().hasPrefix("https://") ? "https" : "http"
            return .success(Upstream(scheme: scheme, hostAndPort: host, environmentKey: nil, canonicalHost: nil))
        }
        if let host = request.host, let index = configurationIndex(named: host) {
            return upstreams[index]
        }
        return map.defaultConfigurationIndex.map { upstreams[$0] }
    }

    /// The first configuration `host` names, as `HostMap.Configuration.names` tells.
    private func configurationIndex(named host: String) -> Int? {
        var host = host
        return host.withUTF8 { bytes in hostNames.first { bytes.equalsIgnoringASCIICase($0.name) }?.index }
    }

    /// The host a fixture recorded from this request should require: the one the client named, when the name chose
    /// the upstream (an absolute URI, or a `Host` naming a configured host). Nil for a request that reached the
    /// default configuration with Orrery's own address, so its fixture answers on whatever address replays it.
    public func recordedHost(for request: HTTPRequest) -> String? {
        guard let host = request.host else { return nil }
        if request.isAbsoluteForm { return host }
        return configurationIndex(named: host) != nil ? host : nil
    }

    private func resolveUpstream(of configuration: HostMap.Configuration) -> Result<Upstream, UpstreamSelectionError> {
        let choice = activeChoice(for: configuration)
        guard let entry = configuration.host(forKey: choice.key) else {
            return .failure(UpstreamSelectionError(canonicalHost: configuration.canonicalHost, key: choice.key, message: "the environment '\(choice.key)' is not in the host map"))
        }
        guard let host = choice.host ?? entry.host else {
            return .failure(
                UpstreamSelectionError(
                    canonicalHost: configuration.canonicalHost, key: choice.key,
                    message: "the \(choice.key) environment of \(configuration.canonicalHost) has no host yet; set one with PUT /__admin/environments/\(configuration.canonicalHost)"))
        }
        let scheme = choice.protocol ?? entry.protocol ?? configuration.canonicalProtocol
        return .success(
            Upstream(
                scheme: scheme, hostAndPort: host, environmentKey: choice.key,
                canonicalHost: configuration.canonicalHost,
                injectedHeaders: configuration.injectedHeaders + entry.injectedHeaders,
                // Prior knowledge is for plain connections; a TLS upstream says by ALPN whether it speaks HTTP/2.
                usesHTTP2PriorKnowledge: entry.speaksHTTP2 && scheme == "http"))
    }

    /// The admin API's view: each configuration, its hosts and the active key.
    public var json: JSONValue {
        .object([
            (
                "configurations",
                .array(
                    map.configurations.map { configuration in
                        let choice = activeChoice(for: configuration)
                        return .object([
                            ("canonical_host", .string(configuration.canonicalHost)),
                            ("canonical_protocol", .string(configuration.canonicalProtocol)),
                            ("release_key", .string(configuration.releaseKey)),
                            ("prerelease_key", .string(configuration.prereleaseKey)),
                            ("default", .bool(configuration.isDefault || map.configurations.count == 1)),
                            ("active", .string(choice.key)),
                            (
                                "hosts",
                                .array(
                                    configuration.hosts.map { host in
                                        let isUser = host.key == EnvironmentChoice.userKey
                                        let hostName = isUser && choice.key == host.key ? choice.host : host.host
                                        let protocolName = (isUser ? choice.protocol : nil) ?? host.protocol ?? configuration.canonicalProtocol
                                        var members: [(String, JSONValue)] = [
                                            ("key", .string(host.key)), ("host", .string(hostName)),
                                            ("protocol", .string(protocolName)), ("active", .bool(host.key == choice.key)),
                                        ]
                                        if host.speaksHTTP2 { members.append(("http2", .bool(true))) }
                                        return .object(members)
                                    })
                            ),
                        ])
                    })
            )
        ])
    }

    /// The state file's contents: the choices, by canonical host.
    public var stateJSON: JSONValue {
        .object(
            choices.sorted { $0.key < $1.key }.map { host, choice in
                var members: [(String, JSONValue)] = [("key", .string(choice.key))]
                if let host = choice.host { members.append(("host", .string(host))) }
                if let protocolName = choice.protocol { members.append(("protocol", .string(protocolName))) }
                return (host, .object(members))
            })
    }

    /// Reads the state file's contents; entries that do not parse are skipped.
    public static func choices(fromState state: JSONValue) -> [String: EnvironmentChoice] {
        guard case .object(let members) = state else { return [:] }
        var choices: [String: EnvironmentChoice] = [:]
        for (host, value) in members {
            guard let key = value["key"]?.stringValue else { continue }
            choices[host] = EnvironmentChoice(key: key, host: value["host"]?.stringValue, protocol: value["protocol"]?.stringValue)
        }
        return choices
    }
}

/// The environment chosen for one configuration; only `USER` carries its own host and protocol.
public struct EnvironmentChoice: Sendable, Equatable {
    public static let userKey = "USER"

    public var key: String
    public var host: String?
    public var `protocol`: String?

    public init(key: String, host: String? = nil, protocol: String? = nil) {
        self.key = key
        self.host = host
        self.protocol = `protocol`
    }
}

/// A choice of environment that cannot be made.
public struct EnvironmentError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// A request whose configuration has no usable upstream (a USER environment with no host yet).
public struct UpstreamSelectionError: Error, Sendable {
    public var canonicalHost: String
    public var key: String
    public var message: String
}

/// The real host a request is forwarded to.
///
/// A reference, immutable once made: an upstream goes with every forwarded request through the pipeline, the relay
/// and the upstream exchange, and every copy of it as a value retained and released each of its eight references.
public final class Upstream: Sendable, Equatable {
    /// `http` or `https`.
    public let scheme: String
    /// Host name or address without brackets (`api.example.com`, `::1`).
    public let host: String
    public let port: Int
    /// What the `Host` header says: the host as written, with its port when it is not the scheme's default.
    public let hostHeader: String
    /// `https://api.example.com:8443`: for logs and errors, and what the upstream client pools connections by.
    public let origin: String
    /// The environment key (`PROD`, `USER`), nil for a forward-proxy request to a host outside the map.
    public let environmentKey: String?
    public let canonicalHost: String?
    /// Headers added to every request forwarded here, their values read from the environment.
    public let injectedHeaders: [HostMap.InjectedHeader]
    /// Spoken to in HTTP/2 from the first byte (h2c, the host map's `"http2": true`).
    public let usesHTTP2PriorKnowledge: Bool
    /// What the upstream client pools connections by: the origin, told apart for h2c.
    public let poolKey: String

    public init(
        scheme: String, hostAndPort: String, environmentKey: String?, canonicalHost: String?,
        injectedHeaders: [HostMap.InjectedHeader] = [], usesHTTP2PriorKnowledge: Bool = false
    ) {
        self.scheme = scheme
        self.environmentKey = environmentKey
        self.canonicalHost = canonicalHost
        let defaultPort = scheme == "https" ? 443 : 80
        var name = Substring(hostAndPort)
        var port = defaultPort
        if name.hasPrefix("["), let close = name.firstIndex(of: "]") {
            let rest = name[name.index(after: close)...]
            if rest.hasPrefix(":"), let number = Int(rest.dropFirst()) { port = number }
            name = name[name.index(after: name.startIndex)..<close]
        } else if let colon = name.lastIndex(of: ":"), name.firstIndex(of: ":") == colon, let number = Int(name[name.index(after: colon)...]) {
            port = number
            name = name[..<colon]
        }
        host = String(name)
        self.port = port
        let written = host.contains(":") ? "[\(host)]" : host
        hostHeader = port == defaultPort ? written : "\(written):\(port)"
        let origin = "\(scheme)://\(hostHeader)"
        self.origin = origin
        self.injectedHeaders = injectedHeaders
        self.usesHTTP2PriorKnowledge = usesHTTP2PriorKnowledge
        poolKey = usesHTTP2PriorKnowledge ? "h2c+" + origin : origin
    }

    public static func == (lhs: Upstream, rhs: Upstream) -> Bool {
        lhs === rhs
            || (lhs.scheme == rhs.scheme && lhs.host == rhs.host && lhs.port == rhs.port
                && lhs.hostHeader == rhs.hostHeader
                && lhs.environmentKey == rhs.environmentKey && lhs.canonicalHost == rhs.canonicalHost
                && lhs.injectedHeaders == rhs.injectedHeaders
                && lhs.usesHTTP2PriorKnowledge == rhs.usesHTTP2PriorKnowledge)
    }
}
