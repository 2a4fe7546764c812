import Foundation
import OrreryClient

/// A running `orrery` daemon that a test started (or attached to), with its URL, a client and a way to stop it.
///
/// ```swift
/// let daemon = try await OrreryDaemon.start(.init(stubs: "Stubs"))
/// defer { daemon.stop() }
/// try await stubRequest(.get, "/users/1").andReturn(.ok).withJSON(["id": 1]).install(on: daemon.client)
/// ```
///
/// It is started with `serve --port 0 --ready-file FILE --exit-on-stdin-eof --ignore-env-state` in a fresh
/// temporary folder, and is ready when the ready file is there; its standard error goes to a file there too and is
/// shown when it fails. It never outlives this process, however this process ends (see `ChildProcess`). Most tests
/// use the `.orrery` trait or `OrreryTestCase` instead, which share one daemon and give each test a session.
public final class OrreryDaemon: Sendable {
    /// How a daemon's process ended.
    public enum ExitStatus: Sendable, Hashable, CustomStringConvertible {
        /// It exited with this status (0 after `SIGTERM` or the lifeline).
        case exited(Int32)
        /// A signal ended it (9 when it had to be killed).
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let status): "exit status \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// Where the daemon answers, such as `http://127.0.0.1:49152`.
    public let url: URL
    /// Its port, from the ready file.
    public let port: Int
    /// Its process id; nil for a daemon this process attached to.
    public let pid: Int32?
    /// Its version, from the ready file (nil when attached).
    public let version: String?
    /// The executable that runs (nil when attached).
    public let binary: URL?
    /// What it was started with.
    public let options: Options
    /// A client for the daemon itself, not a session.
    public let client: OrreryClient

    /// The temporary folder: the ready file, `stdout.log`, `stderr.log`, and empty `stubs/` and `config/` folders.
    let folder: URL?
    #if os(macOS) || os(Linux)
        let child: ChildProcess?
    #endif
    private let stopped = LockedValue<Stopped?>(nil)

    /// What is left once the daemon has been stopped and its folder removed.
    private struct Stopped: Sendable {
        var status: ExitStatus?
        var standardError: String
    }

    #if os(macOS) || os(Linux)
        private init(ready: ReadyFile, url: URL, binary: URL, folder: URL, child: ChildProcess, options: Options) {
            self.url = url
            self.port = ready.port
            self.pid = child.pid
            self.version = ready.version
            self.binary = binary
            self.folder = folder
            self.child = child
            self.options = options
            self.client = OrreryClient(baseURL: url)
        }
    #endif

    private init(attachedTo url: URL, options: Options) {
        self.url = url
        self.port = url.port ?? 80
        self.pid = nil
        self.version = nil
        self.binary = nil
        self.folder = nil
        #if os(macOS) || os(Linux)
            self.child = nil
        #endif
        self.options = options
        self.client = OrreryClient(baseURL: url)
    }

    deinit {
        _ = stop()
    }

    /// Whether this daemon was already running elsewhere (`Options.url` or `$ORRERY_URL`), so is not this process's
    /// to stop.
    public var isAttached: Bool { pid == nil }

    /// Whether the daemon's process still runs (always true when attached).
    public var isRunning: Bool {
        #if os(macOS) || os(Linux)
            guard let child else { return true }
            return child.isRunning
        #else
            return true
        #endif
    }

    /// The daemon's standard error so far (after a stop, what it was then); empty when attached.
    public var standardError: String {
        if let stopped = stopped.withLock({ $0 }) { return stopped.standardError }
        guard let folder else { return "" }
        return Self.tail(of: folder.appendingPathComponent("stderr.log"))
    }
}

// MARK: - Starting

extension OrreryDaemon {
    /// Starts a daemon (or attaches to the running one `options.url` or `$ORRERY_URL` names) and returns once it
    /// answers.
    ///
    /// Throws an ``OrreryTestingError``: no binary (`.binaryNotFound`, naming every place looked at), the daemon
    /// exited first (`.exitedBeforeReady`, with its standard error), or it wrote no ready file in time
    /// (`.readyTimeout`; it is killed).
    public static func start(_ options: Options = Options()) async throws -> OrreryDaemon {
        if let url = options.attachURL { return try await attach(to: url, options: options) }
        #if os(macOS) || os(Linux)
            let launch = try Launch(options: options)
            let child = try await ChildProcess.spawn(
                executable: launch.binary, arguments: launch.arguments, environment: launch.environment,
                standardOutput: launch.standardOutput, standardError: launch.standardError)
            while true {
                if let daemon = try launch.check(child) { return daemon }
                if Task.isCancelled {
                    launch.abandon(child)
                    try? FileManager.default.removeItem(at: launch.folder)
                    throw CancellationError()
                }
                try? await Task.sleep(for: .milliseconds(5))
            }
        #else
            throw OrreryTestingError.unsupportedPlatform()
        #endif
    }

    /// The same, blocking the calling thread: for places that cannot wait asynchronously, such as XCTest's
    /// `class func setUp()`. An attached daemon is not checked until it is first used.
    public static func launch(_ options: Options = Options()) throws -> OrreryDaemon {
        if let url = options.attachURL { return OrreryDaemon(attachedTo: url, options: options) }
        #if os(macOS) || os(Linux)
            let launch = try Launch(options: options)
            let child = try ChildProcess.spawnBlocking(
                executable: launch.binary, arguments: launch.arguments, environment: launch.environment,
                standardOutput: launch.standardOutput, standardError: launch.standardError)
            while true {
                if let daemon = try launch.check(child) { return daemon }
                usleep(5_000)
            }
        #else
            throw OrreryTestingError.unsupportedPlatform()
        #endif
    }

    private static func attach(to url: URL, options: Options) async throws -> OrreryDaemon {
        let daemon = OrreryDaemon(attachedTo: url, options: options)
        do {
            _ = try await daemon.client.health()
        } catch {
            throw OrreryTestingError.launchFailed(
                "No orrery answers at \(url.absoluteString) (from \(options.url == nil ? "ORRERY_URL" : "Options(url:)"))."
                    + " Start it first, or unset ORRERY_URL to let the kit start one.", underlyingError: error)
        }
        return daemon
    }

    #if os(macOS) || os(Linux)
        /// One start: the binary, a fresh temporary folder, the arguments, and the wait for the ready file.
        private struct Launch {
            let options: Options
            let binary: URL
            let folder: URL
            let readyFile: String
            let standardOutput: URL
            let standardError: URL
            let arguments: [String]
            let environment: [String: String]
            let deadline: ContinuousClock.Instant

            init(options: Options) throws {
                self.options = options
                binary = try BinaryLocator.forThisProcess(explicitPath: options.binary).locate()
                folder = try Self.makeFolder()
                readyFile = folder.appendingPathComponent("ready.json").path
                standardOutput = folder.appendingPathComponent("stdout.log")
                standardError = folder.appendingPathComponent("stderr.log")
                do {
                    for name in ["stubs", "config"] {
                        try FileManager.default.createDirectory(
                            at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
                    }
                    try Data().write(to: standardOutput)
                    try Data().write(to: standardError)
                } catch {
                    try? FileManager.default.removeItem(at: folder)
                    throw OrreryTestingError.launchFailed(
                        "Could not prepare the temporary folder \(folder.path).", underlyingError: error)
                }
                arguments = options.serveArguments(readyFile: readyFile, folder: folder)
                environment = ProcessInfo.processInfo.environment.merging(options.environment) { $1 }
                deadline = .now + options.readyTimeout
            }

            /// A new folder of its own under the temporary directory (`mkdtemp`: no other run can have it).
            private static func makeFolder() throws -> URL {
                let template = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-test-XXXXXX").path
                var bytes = Array(template.utf8CString)
                let made = bytes.withUnsafeMutableBufferPointer { buffer -> Bool in
                    guard let base = buffer.baseAddress else { return false }
                    return mkdtemp(base) != nil
                }
                guard made else {
                    throw OrreryTestingError.launchFailed(
                        "Could not make a temporary folder like \(template): \(String(cString: strerror(errno))).")
                }
                let path = bytes.withUnsafeBufferPointer { buffer in
                    buffer.baseAddress.map { String(cString: $0) } ?? template
                }
                return URL(fileURLWithPath: path, isDirectory: true)
            }

            /// The daemon once its ready file is there; nil while it is starting; an error when it exited or took
            /// too long.
            func check(_ child: ChildProcess) throws -> OrreryDaemon? {
                if let ready = ReadyFile.read(at: readyFile), ready.pid == child.pid,
                    let url = URL(string: ready.url)
                {
                    return OrreryDaemon(
                        ready: ready, url: url, binary: binary, folder: folder, child: child, options: options)
                }
                if let status = child.exitStatus {
                    let errors = OrreryDaemon.tail(of: standardError)
                    try? FileManager.default.removeItem(at: folder)
                    throw OrreryTestingError.exitedBeforeReady(binary: binary.path, status: status, standardError: errors)
                }
                if ContinuousClock.now >= deadline {
                    abandon(child)
                    let errors = OrreryDaemon.tail(of: standardError)
                    try? FileManager.default.removeItem(at: folder)
                    throw OrreryTestingError.readyTimeout(
                        binary: binary.path, seconds: options.readyTimeout.seconds, standardError: errors)
                }
                return nil
            }

            /// Kills a daemon that will not be used, and waits (bounded) until it is gone; the caller removes the
            /// folder once it has read what it needs from it.
            func abandon(_ child: ChildProcess) {
                child.closeLifeline()
                child.send(SIGKILL)
                _ = child.waitForExit(until: .now + .seconds(2))
            }
        }
    #endif
}

// MARK: - Stopping

extension OrreryDaemon {
    /// Stops the daemon and waits until it has exited: `SIGTERM` and the lifeline closed, then `SIGKILL` if it is
    /// still there after `options.stopTimeout`. Removes its temporary folder. Returns how it ended (nil when attached,
    /// which leaves the daemon alone); calling it again returns the same.
    ///
    /// This blocks the calling thread; in `async` code use ``shutdown()``.
    @discardableResult
    public func stop() -> ExitStatus? {
        #if os(macOS) || os(Linux)
            guard let child else { return nil }
            if let stopped = stopped.withLock({ $0 }) { return stopped.status }
            child.send(SIGTERM)
            child.closeLifeline()
            if !child.waitForExit(until: .now + options.stopTimeout) {
                child.send(SIGKILL)
                _ = child.waitForExit(until: .now + .seconds(5))
            }
            return finish(child)
        #else
            return nil
        #endif
    }

    /// Stops the daemon as ``stop()`` does, suspending instead of blocking while it waits.
    @discardableResult
    public func shutdown() async -> ExitStatus? {
        #if os(macOS) || os(Linux)
            guard let child else { return nil }
            if let stopped = stopped.withLock({ $0 }) { return stopped.status }
            child.send(SIGTERM)
            child.closeLifeline()
            if await !child.exited(by: .now + options.stopTimeout) {
                child.send(SIGKILL)
                _ = await child.exited(by: .now + .seconds(5))
            }
            return finish(child)
        #else
            return nil
        #endif
    }

    #if os(macOS) || os(Linux)
        /// Records how the daemon ended and removes its folder (once, whoever gets here first).
        private func finish(_ child: ChildProcess) -> ExitStatus? {
            stopped.withLock { stopped in
                if let stopped { return stopped.status }
                let errors = folder.map { Self.tail(of: $0.appendingPathComponent("stderr.log")) } ?? ""
                if let folder { try? FileManager.default.removeItem(at: folder) }
                stopped = Stopped(status: child.exitStatus, standardError: errors)
                return stopped?.status
            }
        }
    #endif

    /// How the daemon ended, once it has (nil while it runs, and when attached).
    public var exitStatus: ExitStatus? {
        #if os(macOS) || os(Linux)
            return child?.exitStatus
        #else
            return nil
        #endif
    }

    /// The last 4 KiB of a log file, as text.
    static func tail(of file: URL, bytes: Int = 4096) -> String {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return "" }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > UInt64(bytes) ? size - UInt64(bytes) : 0)
        let data = (try? handle.readToEnd()) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

// MARK: - Sessions

extension OrreryDaemon {
    /// Opens a session (`POST /__admin/sessions`): a private Orrery on a port of its own, with the daemon's file
    /// stubs and host map, and its own API stubs, journal and scenarios.
    public func openSession(name: String? = nil) async throws -> OrreryTestSession {
        let session: OrrerySession
        do {
            if isAttached {
                // A daemon running elsewhere may be a fleet behind a proxy that routes by X-Orrery-Session: the id is
                // chosen here and named in the header, so the creation lands where the session's requests will go.
                let id = OrreryFleet.newID(for: name)
                session = try await client.inSession(id).createSession(id: id, name: name)
            } else {
                session = try await client.createSession(name: name)
            }
        } catch {
            throw failure("The daemon at \(url.absoluteString) did not open a session.", error)
        }
        guard let text = session.url, let sessionURL = URL(string: text), let port = session.port ?? sessionURL.port
        else {
            try? await client.endSession(id: session.id)
            throw OrreryTestingError.sessionFailed(
                "The daemon opened session \(session.id) without a URL of its own; this orrery is too old for the kit.")
        }
        return OrreryTestSession(id: session.id, name: name, url: sessionURL, port: port, daemon: self)
    }

    /// An error for a session call that failed, saying so when the cause is that the daemon is gone.
    func failure(_ message: String, _ error: any Error) -> OrreryTestingError {
        if let status = exitStatus {
            return OrreryTestingError.sessionFailed(
                message + " orrery has exited (\(status)).", standardError: standardError, underlyingError: error)
        }
        return OrreryTestingError.sessionFailed(message, underlyingError: error)
    }
}
