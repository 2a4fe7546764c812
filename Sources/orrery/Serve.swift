import ArgumentParser
import Foundation
import Logging
import OrreryCore
import OrreryEvent
import OrreryOpenAPI
import OrreryServer

extension LogLevel: ExpressibleByArgument {}
extension OpenAPIValidationMode: ExpressibleByArgument {}
extension RecordMode: ExpressibleByArgument {}
extension LogFormat: ExpressibleByArgument {}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the stubs until SIGINT or SIGTERM.",
        discussion: """
            Prints one line, 'Orrery listening on http://HOST:PORT ...', once it answers. SIGHUP, \
            POST /__admin/stubs/reload and any change under the stubs folder reload the stubs; a reload that \
            fails keeps the running set and logs why. SIGINT and SIGTERM finish in-flight requests and exit 0.
            """
    )

    @Option(help: "Address to listen on. The admin API answers only loopback clients unless --admin-token is set.")
    var host = "127.0.0.1"

    @Option(name: [.short, .long], help: "Port to listen on; 0 picks a free one (the start-up line says which).")
    var port = 8080

    @OptionGroup var sources: SourceOptions

    @Option(help: ArgumentHelp("Event loops, one per thread, all accepting on the port (default: number of cores).", valueName: "n"))
    var threads: Int?

    @Option(
        help: ArgumentHelp(
            "silent, error, warning, info (a line per request no stub answered) or debug (a line per request).", valueName: "level"))
    var logLevel = LogLevel.info

    @Flag(name: [.short, .long], help: "Log a line for every request: the same as --log-level debug.")
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "text (lines for a person) or json (one JSON object per line: time, level, message, source, fields).",
            valueName: "format"))
    var logFormat = LogFormat.text

    @Option(
        help: ArgumentHelp(
            "Also answer GET /metrics (and /__admin/health) on this port, to anyone: for a scraper.", valueName: "port")
    )
    var metricsPort: Int?

    @Flag(help: "Do not count requests (GET /__admin/metrics then has the daemon's gauges only).")
    var noMetrics = false

    @Option(help: ArgumentHelp("How often to check the stubs folder for changes, in milliseconds; 0 turns it off.", valueName: "ms"))
    var watchInterval = 1000

    @Option(help: ArgumentHelp("Token that lets non-loopback clients use the admin API (default: $ORRERY_ADMIN_TOKEN).", valueName: "token"))
    var adminToken: String?

    @Option(help: ArgumentHelp("Largest request body accepted, in bytes; larger ones get 413.", valueName: "bytes"))
    var maxBodySize = 64 * 1024 * 1024

    @Option(help: ArgumentHelp("Largest request head (all header lines) accepted, in bytes; larger ones get 431.", valueName: "bytes"))
    var maxHeaderSize = 64 * 1024

    @Option(
        help: ArgumentHelp(
            "HTTP/2 streams a client may have open at once on one connection; more are refused.", valueName: "count"))
    var h2MaxStreams = 100

    @Option(help: ArgumentHelp("Longest request target accepted, in bytes; longer ones get 414.", valueName: "bytes"))
    var maxUriLength = 8 * 1024

    @Option(help: ArgumentHelp("Close a kept-alive connection after it has been idle this long (ms, or 30s, 2m).", valueName: "time"))
    var idleTimeout = Milliseconds(60_000)

    @Option(help: ArgumentHelp("A request's head must arrive within this time of its first byte; else 408 (ms, or 10s).", valueName: "time"))
    var headerTimeout = Milliseconds(10_000)

    @Option(help: ArgumentHelp("A request body may pause this long between reads; else 408 (ms, or 30s).", valueName: "time"))
    var bodyTimeout = Milliseconds(30_000)

    @Option(help: ArgumentHelp("Connections open at once per event loop; at the limit a loop accepts again once one closes.", valueName: "n"))
    var maxConnections = 10_000

    @Option(
        help: ArgumentHelp(
            "On SIGTERM or SIGINT, wait at most this long for answers under way (seconds, or 500ms); exit as soon as none is.",
            valueName: "time"))
    var drainTimeout = Seconds(5)

    @Option(
        help: ArgumentHelp(
            "Once the daemon answers, write FILE (atomically) with {\"url\", \"port\", \"pid\", \"version\"}: how a test harness started with --port 0 learns where it is.",
            valueName: "file"))
    var readyFile: String?

    @Flag(help: "Stop (as on SIGTERM) when standard input closes: a test run that started the daemon and holds its input never leaves it behind, even when killed.")
    var exitOnStdinEof = false

    @Flag(help: "Neither read nor save the environment chosen at run time (config/hosts.state.json): every start begins with the release key or --env.")
    var ignoreEnvState = false

    @Option(help: ArgumentHelp("Environment key (PROD, QA, DEV, ...) to send to, for every configuration of the host map that has it; overrides the saved choice.", valueName: "key"))
    var env: String?

    @Flag(help: "Do not forward requests no stub answers; they get a 404 that names the closest stubs.")
    var noProxy = false

    @Flag(
        help: """
            Replay only: never open a connection to an upstream (no forwarding, no CONNECT). A miss is a 404 naming \
            the closest stubs, and is kept in the journal so a test can fail on it.
            """)
    var offline = false

    @Option(help: ArgumentHelp("A PEM file of CA certificates trusted for HTTPS upstreams, besides the system's.", valueName: "file"))
    var upstreamCa: String?

    @Option(
        name: .customLong("openapi"),
        help: ArgumentHelp(
            "An OpenAPI document (3.0, 3.1, Swagger 2.0) whose operations are answered where no stub answers (repeatable).",
            valueName: "spec"))
    var openAPISpecs: [String] = []

    @Option(
        name: .customLong("openapi-validate"),
        help: ArgumentHelp(
            "What a request that breaks its --openapi operation gets: off, report (journaled), enforce (a problem answer).",
            valueName: "mode"))
    var openAPIValidation: OpenAPIValidationMode = .enforce

    @Option(
        name: .customLong("validate-against"),
        help: ArgumentHelp(
            "An OpenAPI document every exchange (stubbed, proxied, recorded) is checked against; see GET /__admin/contract (repeatable).",
            valueName: "spec"))
    var validateAgainst: [String] = []

    @Option(
        help: ArgumentHelp(
            "Also serve everything over TLS on this port (0 picks a free one), with a certificate for localhost, the loopback addresses and the host map's hosts, signed by the local CA.",
            valueName: "port"))
    var tlsPort: Int?

    @Option(
        name: .customLong("wiremock-port"),
        help: ArgumentHelp(
            "Also serve the stubs on this port (0 picks a free one), with WireMock's admin API under /__admin/ for WireMock's own clients.",
            valueName: "port"))
    var wiremockPort: Int?

    @Option(
        help: ArgumentHelp(
            "The local CA's folder, made on first need (default: $XDG_DATA_HOME/orrery/ca, else ~/.local/share/orrery/ca). See 'orrery ca export'.",
            valueName: "dir"))
    var caDir: String?

    @Flag(help: "Intercept every CONNECT: answer it with a certificate for its host signed by the local CA, and serve the requests inside like plain ones (stubs, journal, recording, forwarding over verified TLS).")
    var mitm = false

    @Option(
        name: .customLong("mitm-host"),
        help: ArgumentHelp("Intercept CONNECTs to this host (repeatable; *.example.com for the names below it); others stay blind tunnels.", valueName: "pattern"))
    var mitmHosts: [String] = []

    @Option(help: ArgumentHelp("Milliseconds to wait for an upstream connection (TCP and TLS).", valueName: "ms"))
    var connectTimeout = 5_000

    @Option(
        help: ArgumentHelp(
            "Milliseconds an upstream may stay silent: before its response head (then 504), and between bytes of its body (then the answer is cut); a body that keeps flowing is not cut.",
            valueName: "ms"))
    var upstreamTimeout = 30_000

    @Option(help: ArgumentHelp("Close a CONNECT tunnel that carried nothing either way this long (ms, or 30s, 5m).", valueName: "time"))
    var tunnelIdleTimeout = Milliseconds(300_000)

    @Option(help: ArgumentHelp("DNS server (host:port) for upstream names, instead of /etc/resolv.conf's.", valueName: "address"))
    var dnsServer: String?

    @Option(help: ArgumentHelp("Exchanges the request journal keeps, newest first; 0 turns it off.", valueName: "n"))
    var journalEntries = 10_000

    @Option(help: ArgumentHelp("Bytes the journal may hold (bodies and headers); the oldest go first.", valueName: "bytes"))
    var journalBytes = 64 * 1024 * 1024

    @Option(help: ArgumentHelp("Bytes of each request and response body the journal captures.", valueName: "bytes"))
    var journalBodyLimit = 64 * 1024

    @Option(help: ArgumentHelp("Largest answer body a recording writes as a fixture; larger answers are relayed but not recorded.", valueName: "bytes"))
    var recordBodyLimit = 16 * 1024 * 1024

    @Option(help: ArgumentHelp("Bytes a response template may render per request; more is a 500 saying so.", valueName: "bytes"))
    var templateMaxBytes = TemplateBudget.defaultMaximumBytes

    @OptionGroup var redaction: RedactionOptions

    @Option(help: ArgumentHelp("Write every exchange to FILE as JSON Lines, as it happens (redacted like the journal).", valueName: "file"))
    var logTraffic: String?

    @Option(help: ArgumentHelp("Rotate the traffic log (FILE.1, FILE.2, FILE.3) before it grows past this.", valueName: "bytes"))
    var logTrafficMaxSize = 64 * 1024 * 1024

    @Flag(help: "Leave headers out of the traffic log.")
    var noTrafficHeaders = false

    @Flag(help: "Leave bodies out of the traffic log.")
    var noTrafficBodies = false

    @Option(
        help: ArgumentHelp(
            "Record what the proxy forwards as fixture files under this folder (one YAML file per route), and serve "
                + "the fixtures already there. POST /__admin/recordings/stop ends the session.", valueName: "folder"))
    var record: String?

    @Option(
        help: ArgumentHelp(
            "once: routes with fixtures replay, others are recorded; new_episodes: requests no fixture answers are "
                + "recorded; all: everything is recorded anew; none: replay only.", valueName: "mode"))
    var recordMode = RecordMode.once

    @Option(
        name: .customLong("record-match-header"),
        help: ArgumentHelp("A request header that recorded fixtures must match (repeatable; by default they match method, host, url and body).", valueName: "name"))
    var recordMatchHeaders: [String] = []

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        if let tlsPort, !(0...65535).contains(tlsPort) { throw ValidationError("--tls-port must be between 0 and 65535.") }
        if let wiremockPort, !(0...65535).contains(wiremockPort) {
            throw ValidationError("--wiremock-port must be between 0 and 65535.")
        }
        if let metricsPort, !(0...65535).contains(metricsPort) {
            throw ValidationError("--metrics-port must be between 0 and 65535.")
        }
        for pattern in mitmHosts {
            do { _ = try HostPattern(pattern) } catch { throw ValidationError("--mitm-host \(error)") }
        }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be between 1 and 256.") }
        guard watchInterval >= 0 else { throw ValidationError("--watch-interval must not be negative.") }
        guard connectTimeout > 0, upstreamTimeout > 0, tunnelIdleTimeout.milliseconds > 0 else { throw ValidationError("Timeouts must be positive.") }
        guard recordBodyLimit >= 0 else { throw ValidationError("--record-body-limit must not be negative.") }
        if let upstreamCa, !FileManager.default.isReadableFile(atPath: upstreamCa) {
            throw ValidationError("--upstream-ca \(upstreamCa) cannot be read.")
        }
        guard logTrafficMaxSize >= 1024 else { throw ValidationError("--log-traffic-max-size must be at least 1024.") }
        guard journalEntries >= 0, journalBytes >= 0, journalBodyLimit >= 0 else {
            throw ValidationError("Journal limits must not be negative.")
        }
        guard idleTimeout.milliseconds > 0, headerTimeout.milliseconds > 0, bodyTimeout.milliseconds > 0 else {
            throw ValidationError("--idle-timeout, --header-timeout and --body-timeout must be positive.")
        }
        guard maxConnections > 0 else { throw ValidationError("--max-connections must be positive.") }
        guard h2MaxStreams > 0 else {
            throw ValidationError("--h2-max-streams must be positive (it is \(h2MaxStreams)).")
        }
        guard maxBodySize > 0, maxHeaderSize > 0, maxUriLength > 0, templateMaxBytes > 0 else {
            throw ValidationError("Size limits must be positive.")
        }
        if record != nil, recordMode != .none, offline || noProxy {
            throw ValidationError("--record needs the proxy to record from; with --offline or --no-proxy use --record-mode none to replay only.")
        }
    }

    /// The level in force: `-v` is `--log-level debug`.
    var effectiveLogLevel: LogLevel { verbose ? .debug : logLevel }

    func run() throws {
        let logLevel = effectiveLogLevel
        let level = logLevel
        let format = logFormat
        LoggingSystem.bootstrap { label in format.handler(label: label, level: level) }
        let logger = Logger(label: "orrery")

        var configuration = DaemonConfiguration()
        configuration.http.host = host
        configuration.http.port = port
        configuration.http.threads = threads ?? ProcessInfo.processInfo.activeProcessorCount
        configuration.http.maxBodyBytes = maxBodySize
        configuration.http.maxHeaderBytes = maxHeaderSize
        configuration.http.http2MaxStreams = h2MaxStreams
        configuration.http.maxURILength = maxUriLength
        configuration.http.idleTimeoutMilliseconds = idleTimeout.milliseconds
        configuration.http.headerTimeoutMilliseconds = headerTimeout.milliseconds
        configuration.http.bodyTimeoutMilliseconds = bodyTimeout.milliseconds
        configuration.http.maxConnectionsPerLoop = maxConnections
        configuration.drainTimeoutMilliseconds = drainTimeout.milliseconds
        configuration.stubsFolder = sources.stubs
        configuration.maximumBodyFileBytes = sources.maxBodyFile
        configuration.wireMockRoots = sources.wiremockRoots
        // The default folder may not exist in a new project: no stubs, and a warning. One named with --stubs must.
        configuration.allowsMissingStubsFolder = !sources.isStubsFolderGiven
        configuration.persistsEnvironmentChoices = !ignoreEnvState
        configuration.exitsOnStdinEOF = exitOnStdinEof
        configuration.tlsPort = tlsPort
        configuration.wireMockPort = wiremockPort
        configuration.metricsPort = metricsPort
        configuration.isCountingRequests = !noMetrics
        configuration.caFolder = caDir
        configuration.interceptsEveryConnect = mitm
        configuration.interceptedHosts = mitmHosts.compactMap { try? HostPattern($0) }
        configuration.configFolder = sources.config
        configuration.logLevel = logLevel
        configuration.watchIntervalMilliseconds = watchInterval
        configuration.adminToken = adminToken ?? ProcessInfo.processInfo.environment["ORRERY_ADMIN_TOKEN"]
        configuration.isProxyEnabled = !noProxy
        configuration.isOffline = offline
        configuration.openAPISpecs = openAPISpecs
        configuration.openAPIValidation = openAPIValidation
        configuration.validateAgainst = validateAgainst
        configuration.environment = env
        configuration.upstream.caFile = upstreamCa
        configuration.upstream.connectTimeoutMilliseconds = connectTimeout
        configuration.upstream.responseTimeoutMilliseconds = upstreamTimeout
        configuration.upstream.dnsServer = dnsServer
        configuration.journal.maximumEntries = journalEntries
        configuration.journal.maximumBytes = journalBytes
        configuration.journal.maximumBodyBytes = journalBodyLimit
        configuration.recordBodyLimit = recordBodyLimit
        configuration.http.tunnelIdleTimeoutMilliseconds = tunnelIdleTimeout.milliseconds
        configuration.templateBudget.maximumBytes = templateMaxBytes
        configuration.redactedHeaders = redaction.headers
        configuration.redactedQueryParameters = redaction.queryParameters
        configuration.redactedJSONFields = redaction.jsonFields
        configuration.redactsCommonNames = !redaction.noDefaultRedaction
        if let logTraffic {
            var settings = TrafficLogSettings(path: logTraffic)
            settings.maximumBytes = logTrafficMaxSize
            settings.includeHeaders = !noTrafficHeaders
            settings.includeBody = !noTrafficBodies
            configuration.trafficLog = settings
        }

        if let record {
            configuration.recording = RecordingSettings(folder: record, mode: recordMode, matchHeaders: recordMatchHeaders)
        }

        let daemon: Daemon
        do {
            daemon = try Daemon(configuration: configuration, logger: logger)
        } catch let errors as SourceErrors {
            for error in errors.errors { Console.error(error.description) }
            Console.error("orrery: not starting: \(errors.errors.count) problem(s) in the stub files or host map.")
            throw ExitCode(1)
        } catch {
            Console.error("orrery: not starting: \(error)")
            throw ExitCode(1)
        }
        daemon.bootstrapMetricsSystem()
        if !sources.isStubsFolderGiven, sources.wiremockRoots.isEmpty, !FileManager.default.fileExists(atPath: sources.stubs) {
            logger.warning(
                "there is no stubs folder '\(sources.stubs)' here: serving no stubs until it exists (mkdir \(sources.stubs), or point --stubs at yours)")
        }
        if mitm || !mitmHosts.isEmpty || tlsPort != nil, let authority = try? daemon.https.authority() {
            let what = mitm ? "every CONNECT" : (mitmHosts.isEmpty ? nil : "CONNECTs to \(mitmHosts.joined(separator: ", "))")
            logger.info(
                "HTTPS with the local CA in \(authority.folder)\(what.map { "; intercepting \($0)" } ?? ""); clients must trust \(authority.certificatePath) ('orrery ca export', or GET /__admin/ca.pem)")
        }
        if daemon.isProxying, let environments = daemon.environments, environments.map.configurations.isEmpty {
            logger.info(
                "no host map in \(sources.config): forwarding what clients send through Orrery as their HTTP proxy (http_proxy=\(daemon.baseURL)) to the host each names, for the recording")
        } else if daemon.isProxying, let environments = daemon.environments {
            let summary = environments.activeSummary
            logger.info("forwarding requests no stub answers: \(summary)")
        } else if offline {
            logger.info("offline: no upstream connection will be opened; misses are 404s, kept in the journal")
        }
        var readyFileError: (any Error)?
        try daemon.run {
            let index = daemon.registry.index
            if logLevel != .silent {
                Console.out(
                    "Orrery \(OrreryVersion.current) listening on \(daemon.baseURL) "
                        + "(\(index.count) stubs from \(daemon.registry.fileCount) files in \(sources.stubs), "
                        + "\(configuration.http.threads) threads)"
                        + (daemon.tlsPort.map { ", HTTPS on port \($0)" } ?? "")
                        + (daemon.wireMockPort.map { ", WireMock's admin API on port \($0)" } ?? "")
                        + (daemon.metricsPort.map { ", metrics on port \($0)" } ?? ""))
            }
            if let readyFile {
                do {
                    try ReadyFile(
                        url: daemon.baseURL, port: daemon.port, tlsPort: daemon.tlsPort,
                        wireMockPort: daemon.wireMockPort, metricsPort: daemon.metricsPort
                    ).write(to: readyFile)
                } catch {
                    // A harness waiting for the file would wait in vain: stop and say why.
                    readyFileError = error
                    kill(getpid(), SIGTERM)
                }
            }
        }
        if let readyFileError {
            Console.error("orrery: could not write the ready file \(readyFile ?? ""): \(readyFileError)")
            throw ExitCode(1)
        }
    }
}
