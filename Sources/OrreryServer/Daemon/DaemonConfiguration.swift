import OrreryCore
import OrreryEvent
import OrreryOpenAPI

/// Everything `orrery serve` is told on its command line.
public struct DaemonConfiguration: Sendable {
    public var http = HTTPServerConfiguration()
    /// Folder of stub files.
    public var stubsFolder = "stubs"
    /// WireMock roots served beside the stubs (`--wiremock-root`), as WireMock would serve them.
    public var wireMockRoots: [String] = []
    /// `--openapi`: specs whose operations are answered where no stub answers.
    public var openAPISpecs: [String] = []
    /// `--openapi-validate`: what a request that breaks its spec operation gets.
    public var openAPIValidation = OpenAPIValidationMode.enforce
    /// `--validate-against`: specs every exchange is checked against (`GET /__admin/contract`).
    public var validateAgainst: [String] = []
    /// Folder of `orrery.json` and `hosts.json`.
    public var configFolder = "config"
    public var logLevel = LogLevel.info
    /// How long SIGTERM and SIGINT wait for answers under way before closing what is left.
    public var drainTimeoutMilliseconds = 5_000
    /// How often the stubs folder is checked for changes; 0 turns watching off.
    public var watchIntervalMilliseconds = 1000
    /// Token that lets non-loopback clients use the admin API.
    public var adminToken: String?
    /// Whether requests no stub answers go to the host map's upstreams (`--no-proxy` turns it off).
    public var isProxyEnabled = true
    /// `--offline`: no upstream connection is ever opened (no forwarding, no tunnels); misses are journaled 404s.
    public var isOffline = false

    /// Whether misses may go to the host map's upstreams, if there is a host map.
    var forwardsMisses: Bool { isProxyEnabled && !isOffline }
    /// Whether environment choices are read from and saved to `hosts.state.json` (`--ignore-env-state`: not).
    public var persistsEnvironmentChoices = true
    /// A stubs folder that does not exist serves no stubs (with a warning) instead of stopping the start.
    public var allowsMissingStubsFolder = false
    /// `--exit-on-stdin-eof`: the daemon stops when its standard input closes (its parent, a test run, has gone).
    public var exitsOnStdinEOF = false
    /// `--tls-port`: a port that serves everything the main port serves, over TLS (0 picks a free one).
    public var tlsPort: Int?
    /// `--wiremock-port`: a port that serves what the main port serves, with WireMock's admin API under `/__admin/`
    /// (0 picks a free one).
    public var wireMockPort: Int?
    /// `--ca-dir`: the local CA's folder; nil for the default (`$XDG_DATA_HOME/orrery/ca`, else
    /// `~/.local/share/orrery/ca`).
    public var caFolder: String?
    /// `--mitm`: every `CONNECT` is intercepted.
    public var interceptsEveryConnect = false
    /// `--mitm-host`: the hosts whose `CONNECT`s are intercepted.
    public var interceptedHosts: [HostPattern] = []
    /// `--env`: the environment chosen for every configuration that has it.
    public var environment: String?
    /// Timeouts, extra CA, DNS server for upstream requests.
    public var upstream = UpstreamClientConfiguration()
    /// `--max-body-file`: body files larger than this are refused at load.
    public var maximumBodyFileBytes = StubDecoder.defaultMaximumBodyFileBytes
    /// `--template-max-bytes`, and the work a render may do.
    public var templateBudget = TemplateBudget()
    /// How much of the traffic the journal keeps.
    public var journal = JournalLimits()
    /// `--record-body-limit`: an answer whose body is larger is not recorded as a fixture (the log says so).
    public var recordBodyLimit = 16 << 20
    /// Header names, query parameters and JSON fields redacted on top of the usual sensitive headers.
    public var redactedHeaders: [String] = []
    public var redactedQueryParameters: [String] = []
    public var redactedJSONFields: [String] = []
    /// Whether the common secret names (`SecretNames.common`) are redacted too.
    public var redactsCommonNames = true
    /// `--log-traffic`: the traffic log to start with.
    public var trafficLog: TrafficLogSettings?
    /// `--record`: the recording session to start with.
    public var recording: RecordingSettings?
    /// `--no-metrics` turns off counting requests (`GET /__admin/metrics` then has the daemon's gauges only).
    public var isCountingRequests = true
    /// `--metrics-port`: a port that answers `GET /metrics` (and `/__admin/health`) to anyone, for a scraper.
    public var metricsPort: Int?

    /// `hosts.json` in the config folder.
    public var hostMapPath: String { (configFolder.hasSuffix("/") ? configFolder : configFolder + "/") + "hosts.json" }
    /// Where environment choices are saved, next to the host map.
    public var environmentStatePath: String { (configFolder.hasSuffix("/") ? configFolder : configFolder + "/") + "hosts.state.json" }

    public init() {}
}
