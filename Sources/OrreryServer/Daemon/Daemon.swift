import Foundation
import Logging
import OrreryCore
import OrreryEvent
import OrreryOpenAPI

/// The Orrery daemon: loads the stubs, starts the HTTP server on its event loops, and reacts to signals and
/// changes in the stubs folder.
public final class Daemon: Sendable {
    public let configuration: DaemonConfiguration
    public let registry: StubRegistry
    /// Nil without a host map.
    public let environments: EnvironmentRegistry?
    /// The journal (and, when on, the traffic log and recorder) every exchange goes through.
    let serviceLogger: NetworkServiceLogger
    /// The main session and those opened over the admin API.
    let sessions: SessionRegistry
    /// The CA, the TLS context, and which `CONNECT`s are intercepted.
    public let https: HTTPS
    /// The TLS port bound, when there is one.
    public let tlsPort: Int?
    /// `--wiremock-port` as bound, when there is one.
    public let wireMockPort: Int?
    private let server: HTTPServer
    private let logger: Logger
    /// Counted per event loop, folded when scraped (`GET /__admin/metrics`, `--metrics-port`).
    let metrics: DaemonMetrics
    /// `--metrics-port`'s own small server, when there is one.
    private let metricsServer: HTTPServer?
    /// The port `--metrics-port` bound, when there is one.
    public var metricsPort: Int? { metricsServer?.port }

    /// Loads the stubs and the host map (throwing every error found) and binds the port; serving starts with
    /// `start` or `run`.
    public init(configuration: DaemonConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        let limit = OpenFileLimit.raise()
        if let warning = OpenFileLimit.warning(
            limit: limit.soft, maxConnectionsPerLoop: configuration.http.maxConnectionsPerLoop, threads: configuration.http.threads)
        {
            logger.warning("\(warning)")
        }
        Pattern.onAbandonedMatch { [logger] pattern, bytes in
            logger.warning("regex /\(pattern)/ gave up on a \(bytes)-byte text (too much work): taken as no match")
        }
        registry = StubRegistry(
            stubsFolder: configuration.stubsFolder, allowsMissingFolder: configuration.allowsMissingStubsFolder,
            maximumBodyFileBytes: configuration.maximumBodyFileBytes, wireMockRoots: configuration.wireMockRoots)
        try registry.reload()
        for issue in registry.wireMock?.issues ?? [] { logger.warning("WireMock: \(issue)") }
        if let map = try HostMapDecoder.load(path: configuration.hostMapPath) {
            environments = try EnvironmentRegistry(
                map: map, statePath: configuration.environmentStatePath, override: configuration.environment,
                persistsChoices: configuration.persistsEnvironmentChoices)
        } else if let key = configuration.environment {
            throw EnvironmentError("--env \(key) needs a host map, and there is none at \(configuration.hostMapPath)")
        } else if configuration.forwardsMisses, let recording = configuration.recording, recording.mode != .none {
            // Recording with no host map: a client that uses Orrery as its HTTP proxy names the host of each request
            // (an absolute URI), and that is where it goes; requests to Orrery's own address stay stubs only.
            environments = try EnvironmentRegistry(
                map: HostMap(configurations: []), statePath: configuration.environmentStatePath, override: nil,
                persistsChoices: false)
        } else {
            environments = nil
        }
        let proxyEnvironments = configuration.forwardsMisses ? environments : nil
        let serviceLogger = NetworkServiceLogger(
            // One budget for every session's journal: the bounds hold for the daemon, however many sessions.
            journal: Journal(limits: configuration.journal, budget: JournalBudget(configuration.journal)),
            redactor: Redactor(
                headers: configuration.redactedHeaders, queryParameters: configuration.redactedQueryParameters,
                jsonFields: configuration.redactedJSONFields, usesCommonNames: configuration.redactsCommonNames,
                injectedSecrets: Self.injectedSecrets(environments?.map)),
            registry: registry, isProxying: proxyEnvironments != nil, logger: logger,
            contract: try Self.loadContract(configuration, logger: logger))
        if let settings = configuration.trafficLog { try serviceLogger.startTrafficLog(settings) }
        self.serviceLogger = serviceLogger
        let sessions = SessionRegistry(mainJournal: serviceLogger.journal)
        self.sessions = sessions
        let https = HTTPS(
            caFolder: configuration.caFolder, interceptsEveryConnect: configuration.interceptsEveryConnect,
            interceptedHosts: configuration.interceptedHosts, warn: { [logger] warning in logger.warning("\(warning)") }
        )
        self.https = https
        // With a TLS port or interception the CA is needed now: a CA that cannot be used stops the start.
        let tlsEndpoint: TLSEndpoint?
        if configuration.tlsPort != nil || https.intercepts {
            let context = try https.context()
            let hosts = Self.certificateHosts(configuration, environments)
            tlsEndpoint = try configuration.tlsPort.map { _ throws(EventError) in
                TLSEndpoint(context: context, certificate: try context.makePortCertificate(extraHosts: hosts))
            }
        } else {
            tlsEndpoint = nil
        }
        let metrics = DaemonMetrics(
            environments: Self.environmentKeys(environments?.map), loops: configuration.http.threads,
            isCountingRequests: configuration.isCountingRequests)
        self.metrics = metrics
        let admin = AdminAPI(
            registry: registry, sessions: sessions, https: https, environments: environments, serviceLogger: serviceLogger,
            isProxying: proxyEnvironments != nil, logger: logger, threads: configuration.http.threads,
            token: configuration.adminToken, defaultRecordingFolder: configuration.recording?.folder, metrics: metrics)
        let wireMockAdmin = WireMockAdmin(api: admin) { [sessions] session in
            // WireMock's shutdown ends the server it is sent to: a session's, or with --wiremock-port the daemon.
            if let id = session.id {
                _ = sessions.remove(id: id)
            } else {
                kill(getpid(), SIGTERM)
            }
        }
        let registry = self.registry
        let openAPI = try Self.loadOpenAPI(configuration, logger: logger)
        let forwarderEnvironments =
            try proxyEnvironments
            ?? EnvironmentRegistry(
                map: HostMap(configurations: []), statePath: configuration.environmentStatePath, override: nil,
                persistsChoices: false)
        // This daemon's name in the Via of what it forwards: a request that comes back with it is a loop.
        let via = ProxyHeaders.requestVia(token: String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16))
        server = try HTTPServer(configuration: configuration.http, onEvent: { event in Self.log(event, logger) }) {
            index, loop throws(EventError) in
            // Every loop has a forwarder: stubs with `proxy:` forward even when misses are not forwarded.
            let proxy = ProxyForwarder(
                environments: forwarderEnvironments,
                client: try UpstreamClient(loop: loop, configuration: configuration.upstream),
                serviceLogger: serviceLogger, logger: logger, recordBodyLimit: configuration.recordBodyLimit, via: via)
            let pipeline = Pipeline(
                registry: registry, admin: admin, sessions: sessions, environments: proxyEnvironments, https: https,
                isOffline: configuration.isOffline, templateBudget: configuration.templateBudget, via: via,
                wireMockAdmin: wireMockAdmin, openAPI: openAPI)
            return RequestPipeline(
                pipeline: pipeline, proxy: proxy, serviceLogger: serviceLogger, logger: logger,
                metrics: metrics.loop(index))
        }
        admin.listening(host: configuration.http.host, port: server.port)
        metrics.attach(
            Self.metricSources(server: server, sessions: sessions, registry: registry, serviceLogger: serviceLogger))
        if let port = configuration.metricsPort {
            var http = configuration.http
            http.port = port
            http.threads = 1
            metricsServer = try HTTPServer(configuration: http) { _, _ in
                MetricsEndpoint(metrics: metrics, admin: admin)
            }
        } else {
            metricsServer = nil
        }
        serviceLogger.recorder.listening(port: server.port)
        // Started once the port is known, so that the recording folder's lock names it.
        if let settings = configuration.recording {
            do {
                try serviceLogger.recorder.start(settings)
            } catch {
                throw error.sourceErrors ?? error
            }
        }
        // Parsing left its trees freed but kept by malloc (the stubs', and a recording folder's); hand that memory
        // back before serving.
        ProcessMemory.returnFreedMemory()
        sessions.attach(server, host: configuration.http.host)
        if let tlsEndpoint, let port = configuration.tlsPort {
            tlsPort = try server.addListener(port: port, tag: 0, tls: tlsEndpoint)
        } else {
            tlsPort = nil
        }
        if let port = configuration.wireMockPort {
            wireMockPort = try server.addListener(port: port, tag: SessionRegistry.wireMockPortListenerTag)
            sessions.attachWireMockPort(tag: SessionRegistry.wireMockPortListenerTag)
        } else {
            wireMockPort = nil
        }
    }

    /// The values the proxy injects into upstream requests, read from the environment as the proxy reads them: each
    /// is a secret to scrub from what an upstream echoes.
    private static func injectedSecrets(_ map: HostMap?) -> [Redactor.InjectedSecret] {
        guard let map else { return [] }
        var headers: [HostMap.InjectedHeader] = []
        for configuration in map.configurations {
            headers += configuration.injectedHeaders
            for host in configuration.hosts { headers += host.injectedHeaders }
        }
        return headers.compactMap { header in
            guard let value = getenv(header.variable).map({ String(cString: $0) }), !value.isEmpty else { return nil }
            return Redactor.InjectedSecret(header: header.name, value: value)
        }
    }

    /// The names the TLS port's certificate covers besides loopback: the address it listens on (unless it is a
    /// wildcard) and every host of the host map.
    private static func certificateHosts(_ configuration: DaemonConfiguration, _ environments: EnvironmentRegistry?) -> [String] {
        var hosts: [String] = []
        let listen = configuration.http.host
        if listen != "0.0.0.0", listen != "::" { hosts.append(listen) }
        for map in [environments?.map].compactMap({ $0 }) {
            for configuration in map.configurations {
                hosts.append(configuration.canonicalHost)
                hosts += configuration.hosts.compactMap { $0.host }
            }
        }
        // Names only: a host written with a port (127.0.0.1:9001) is certified for its name.
        return hosts.map { host in
            if host.hasPrefix("["), let end = host.firstIndex(of: "]") { return String(host[host.index(after: host.startIndex)..<end]) }
            if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") { return String(host[..<colon]) }
            return host
        }.filter { CertificateName($0) != nil }
    }

    /// What the server reports, as log lines.
    private static func log(_ event: ServerEvent, _ logger: Logger) {
        switch event {
        case .acceptPaused(let loop, let reason, let milliseconds):
            logger.warning("event loop \(loop): cannot accept connections (\(reason)); pausing accept for \(milliseconds) ms")
        case .acceptResumed(let loop):
            logger.info("event loop \(loop): accepting connections again")
        case .connectionLimitReached(let loop, let limit):
            logger.warning(
                "event loop \(loop): \(limit) connections open, its limit (--max-connections); not accepting more until one closes")
        }
    }

    /// Whether misses go to upstreams.
    public var isProxying: Bool { configuration.forwardsMisses && environments != nil }

    /// The bound port.
    public var port: Int { server.port }

    public var baseURL: String {
        let host = configuration.http.host.contains(":") ? "[\(configuration.http.host)]" : configuration.http.host
        return "http://\(host):\(port)"
    }

    /// Starts the event loop threads and returns.
    public func start() throws {
        try server.start()
        try metricsServer?.start()
    }

    /// Graceful stop: no new connections, queued responses delivered, threads joined.
    public func stop() {
        server.shutdown(drainMilliseconds: configuration.drainTimeoutMilliseconds)
        metricsServer?.shutdown(drainMilliseconds: 0)
        // Every exchange answered is queued by now: write it out before the process goes.
        serviceLogger.stopTrafficLog()
        serviceLogger.recorder.stop()
    }

    /// Reloads the stubs from disk, keeping the running set (and logging why) when the files are broken.
    @discardableResult
    public func reload(reason: String) -> Bool {
        do {
            let (stubs, files) = try registry.reload()
            logger.info("stubs reloaded (\(reason)): \(stubs) stubs from \(files) files")
            logWireMockIssues()
            return true
        } catch {
            logger.error("reload (\(reason)) failed; still serving the previous \(registry.index.count) stubs:\n\(error)")
            return false
        }
    }

    /// Says which WireMock mappings are not served, or served with a difference, and why.
    private func logWireMockIssues() {
        for issue in registry.wireMock?.issues ?? [] { logger.warning("WireMock: \(issue)") }
    }

    /// Serves until SIGINT or SIGTERM, on the calling thread: SIGHUP reloads, and the stubs folder is watched.
    /// `onReady` runs once the server answers.
    public func run(onReady: () -> Void) throws {
        let control = try EventLoop()
        let signals = try SignalWatcher(loop: control, signals: [SIGINT, SIGTERM, SIGHUP]) { [self] signal in
            if signal == SIGHUP {
                reload(reason: "SIGHUP")
                return
            }
            logger.info("received \(signal == SIGINT ? "SIGINT" : "SIGTERM"), finishing in-flight requests")
            stop()
            control.stop()
        }
        // The lifeline: a test run that started the daemon holds its standard input; when that run ends, however
        // it ends (a crash or SIGKILL included), the input closes and the daemon stops as on SIGTERM.
        let lifeline = try configuration.exitsOnStdinEOF
            ? EndOfInputWatcher(loop: control, fd: STDIN_FILENO) { [self] in
                logger.info("standard input closed (--exit-on-stdin-eof), finishing in-flight requests")
                stop()
                control.stop()
            } : nil
        var watcher: RepeatingTimer?
        if configuration.watchIntervalMilliseconds > 0 {
            var changes = FolderChanges(folders: registry.watchedFolders, logger: logger)
            watcher = try RepeatingTimer(loop: control, intervalMilliseconds: configuration.watchIntervalMilliseconds) {
                [self] in
                let folders = registry.watchedFolders
                guard changes.check(folders) else { return }
                reload(reason: "files changed under \(folders.map(\.folder).joined(separator: " or "))")
            }
        }
        try start()
        onReady()
        control.run()
        watcher?.cancel()
        lifeline?.cancel()
        signals.cancel()
        logger.info("stopped")
    }
}
