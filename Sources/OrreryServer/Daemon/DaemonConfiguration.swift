import OrreryEvent

/// Everything `orrery serve` is told on its command line.
public struct DaemonConfiguration: Sendable {
    public var http = HTTPServerConfiguration()
    /// Folder of stub files.
    public var stubsFolder = "stubs"
    /// Folder of `orrery.json` and `hosts.json`.
    public var configFolder = "config"
    public var logLevel = LogLevel.info
    /// How often the stubs folder is checked for changes; 0 turns watching off.
    public var watchIntervalMilliseconds = 1000
    /// Token that lets non-loopback clients use the admin API.
    public var adminToken: String?

    public init() {}
}
