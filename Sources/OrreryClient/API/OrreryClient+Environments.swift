extension OrreryClient {
    /// `GET /__admin/environments`: each configuration of the environment map, its hosts and the one in use.
    /// A daemon without a host map answers 404.
    public func environments() async throws -> [EnvironmentConfiguration] {
        try await send(Call("GET", "environments"), as: EnvironmentList.self).configurations
    }

    /// `PUT /__admin/environments/{canonicalHost}` `{"key": ...}`: sends the configuration's misses to the
    /// environment `key` (such as `QA`) from now on; the choice survives a restart. Returns the map as it is now.
    @discardableResult
    public func chooseEnvironment(_ key: String, for canonicalHost: String) async throws -> [EnvironmentConfiguration] {
        try await send(
            Call("PUT", "environments", canonicalHost, body: ["key": .string(key)]), as: EnvironmentList.self
        )
        .configurations
    }

    /// `PUT /__admin/environments/{canonicalHost}` `{"key": "USER", "host": ..., "protocol": ...}`: sends the
    /// configuration's misses to a host of your choosing (`127.0.0.1:9001`); without a protocol, the
    /// configuration's own.
    @discardableResult
    public func chooseUserEnvironment(
        host: String, protocol scheme: UpstreamProtocol? = nil, for canonicalHost: String
    ) async throws -> [EnvironmentConfiguration] {
        var body: JSON = ["key": "USER", "host": .string(host)]
        if let scheme { body = body.setting("protocol", .string(scheme.rawValue)) }
        return try await send(Call("PUT", "environments", canonicalHost, body: body), as: EnvironmentList.self)
            .configurations
    }
}
