import Foundation

extension OrreryDaemon {
    /// How to start a daemon, or which running one to use.
    ///
    /// Daemons started with equal options are shared (see ``Orrery``), so options are values that compare: two
    /// suites that name the same stubs folder get one daemon and a session per test.
    public struct Options: Sendable, Hashable {
        /// The `orrery` executable; nil follows the lookup rule (`ORRERY_BINARY`, the package's build, `PATH`).
        public var binary: String?
        /// A daemon already running (`http://127.0.0.1:8080`) to open sessions on instead of starting one; nil uses
        /// `$ORRERY_URL` when set. Nothing is started or stopped then: on iOS, where tests cannot start processes,
        /// this is the way.
        public var url: URL?
        /// The stubs folder (`--stubs`), absolute or relative to the folder of the source file that made these
        /// options; nil serves an empty folder, and tests add stubs over the admin API.
        public var stubs: String?
        /// The config folder (`--config`, holding `hosts.json`), as `stubs`; nil has no host map.
        public var config: String?
        /// Whether requests no stub answers go to the host map's upstreams; off passes `--no-proxy`, so a miss is
        /// the explaining 404.
        public var isProxying: Bool
        /// The daemon's `--log-level` (its standard error is kept and shown when it fails).
        public var logLevel: String
        /// Event loops (`--threads`); nil leaves the daemon's default, one per core.
        public var threads: Int?
        /// More arguments for `orrery serve`, after the kit's own.
        public var arguments: [String]
        /// Variables added to the daemon's environment, which is otherwise this process's.
        public var environment: [String: String]
        /// How long the daemon may take to write its ready file.
        public var readyTimeout: Duration
        /// How long the daemon may take to exit after `SIGTERM` before it is killed with `SIGKILL`.
        public var stopTimeout: Duration

        /// Describes a daemon to start, or to attach to.
        /// - Parameters:
        ///   - stubs: the stubs folder; a relative path is taken from the folder of the file that calls this (so
        ///     `"Stubs"` is a folder beside the test file, whatever the current directory).
        ///   - config: the config folder, taken the same way; nil has no host map.
        ///   - isProxying: forward misses to the host map's upstreams; off (`--no-proxy`) unless asked.
        ///   - binary: the executable, absolute or relative to the current directory; nil follows the lookup rule.
        ///   - url: a running daemon to use instead of starting one; nil uses `$ORRERY_URL` if set.
        ///   - logLevel: `silent`, `error`, `warning` (the default), `info` or `debug`.
        ///   - threads: event loops; nil is the daemon's default.
        ///   - arguments: more options for `orrery serve`.
        ///   - environment: variables for the daemon on top of this process's (secrets for `inject_headers`, ...).
        ///   - readyTimeout: the longest wait for the ready file (30 seconds unless given).
        ///   - stopTimeout: the longest wait after `SIGTERM` before `SIGKILL` (5 seconds unless given).
        ///   - filePath: the source file relative `stubs` and `config` start from; leave the default.
        public init(
            stubs: String? = nil, config: String? = nil, isProxying: Bool = false, binary: String? = nil,
            url: URL? = nil, logLevel: String = "warning", threads: Int? = nil, arguments: [String] = [],
            environment: [String: String] = [:], readyTimeout: Duration = .seconds(30),
            stopTimeout: Duration = .seconds(5), filePath: String = #filePath
        ) {
            let base = URL(fileURLWithPath: filePath).deletingLastPathComponent()
            self.stubs = stubs.map { Self.resolve($0, against: base) }
            self.config = config.map { Self.resolve($0, against: base) }
            self.isProxying = isProxying
            self.binary = binary
            self.url = url
            self.logLevel = logLevel
            self.threads = threads
            self.arguments = arguments
            self.environment = environment
            self.readyTimeout = readyTimeout
            self.stopTimeout = stopTimeout
        }

        /// `path` as it is when absolute, else under `base`.
        static func resolve(_ path: String, against base: URL) -> String {
            if path.hasPrefix("/") || path.hasPrefix("~") { return (path as NSString).expandingTildeInPath }
            return base.appendingPathComponent(path).standardizedFileURL.path
        }

        /// The daemon to attach to: `url`, else `$ORRERY_URL`.
        var attachURL: URL? {
            if let url { return url }
            guard let value = ProcessInfo.processInfo.environment["ORRERY_URL"], !value.isEmpty else { return nil }
            return URL(string: value)
        }

        /// The arguments of `orrery serve` for a daemon whose files go in `folder`.
        func serveArguments(readyFile: String, folder: URL) -> [String] {
            var arguments = [
                "serve", "--host", "127.0.0.1", "--port", "0", "--ready-file", readyFile, "--exit-on-stdin-eof",
                // A test's leftovers (a `noResponse` fault still open) should not hold up its end for long.
                "--ignore-env-state", "--drain-timeout", "1s", "--log-level", logLevel,
                "--stubs", stubs ?? folder.appendingPathComponent("stubs").path,
                "--config", config ?? folder.appendingPathComponent("config").path,
            ]
            if !isProxying { arguments.append("--no-proxy") }
            if let threads { arguments += ["--threads", String(threads)] }
            return arguments + self.arguments
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
