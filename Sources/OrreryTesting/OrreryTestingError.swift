import Foundation

/// A daemon that could not be found, started or reached, or a test that asked for Orrery outside of a scope that
/// gives one.
///
/// Its description is written to be read in a failed test: what happened, the daemon's standard error where there is
/// one, and what to do about it.
public struct OrreryTestingError: Error, Sendable, CustomStringConvertible, LocalizedError {
    fileprivate enum Code: Hashable, Sendable {
        case binaryNotFound
        case launchFailed
        case exitedBeforeReady
        case readyTimeout
        case noScope
        case sessionFailed
        case unsupportedPlatform
    }

    /// What kind of failure this is: compare with `==` (`error.kind == .binaryNotFound`).
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        fileprivate let code: Code

        /// No `orrery` binary where the lookup rule looks, or the one named is not an executable file.
        public static let binaryNotFound = Kind(code: .binaryNotFound)
        /// The binary could not be started at all, or its temporary folder could not be made.
        public static let launchFailed = Kind(code: .launchFailed)
        /// The daemon exited before it wrote its ready file (a bad stubs folder, a port in use, ...).
        public static let exitedBeforeReady = Kind(code: .exitedBeforeReady)
        /// The daemon wrote no ready file in time; it has been killed.
        public static let readyTimeout = Kind(code: .readyTimeout)
        /// `Orrery.client` or a sibling was read where no trait, helper or `withValue` set one.
        public static let noScope = Kind(code: .noScope)
        /// The daemon did not open or end a session.
        public static let sessionFailed = Kind(code: .sessionFailed)
        /// Processes cannot be started on this platform (iOS, tvOS, watchOS): attach to a running daemon instead.
        public static let unsupportedPlatform = Kind(code: .unsupportedPlatform)

        public var description: String {
            switch code {
            case .binaryNotFound: "binary not found"
            case .launchFailed: "launch failed"
            case .exitedBeforeReady: "exited before ready"
            case .readyTimeout: "ready timeout"
            case .noScope: "no scope"
            case .sessionFailed: "session failed"
            case .unsupportedPlatform: "unsupported platform"
            }
        }
    }

    private let code: Code
    /// What went wrong, in a sentence or a few.
    public let message: String
    /// The last part of the daemon's standard error, when it had started.
    public let standardError: String?
    /// What to do about it.
    public let recoverySuggestion: String?
    /// The error underneath, such as the one `Process.run()` threw.
    public let underlyingError: (any Error)?

    public var kind: Kind { Kind(code: code) }

    private init(
        _ code: Code, _ message: String, standardError: String? = nil, recoverySuggestion: String? = nil,
        underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        let tail = standardError?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.standardError = (tail?.isEmpty ?? true) ? nil : tail
        self.recoverySuggestion = recoverySuggestion
        self.underlyingError = underlyingError
    }

    static let binaryHelp =
        "Build it (swift build --product orrery in the Orrery package) and set ORRERY_BINARY to its path, "
        + "pass OrreryDaemon.Options(binary:), or put orrery on PATH."

    static func binaryNotFound(_ message: String) -> OrreryTestingError {
        OrreryTestingError(.binaryNotFound, message, recoverySuggestion: binaryHelp)
    }

    static func launchFailed(_ message: String, underlyingError: (any Error)? = nil) -> OrreryTestingError {
        OrreryTestingError(.launchFailed, message, underlyingError: underlyingError)
    }

    static func exitedBeforeReady(binary: String, status: OrreryDaemon.ExitStatus?, standardError: String)
        -> OrreryTestingError
    {
        let how = status.map { " (\($0))" } ?? ""
        return OrreryTestingError(
            .exitedBeforeReady, "orrery (\(binary)) exited before it was ready\(how).", standardError: standardError,
            recoverySuggestion: "Its standard error says why; `orrery validate --stubs FOLDER` checks stub files alone.")
    }

    static func readyTimeout(binary: String, seconds: Double, standardError: String) -> OrreryTestingError {
        OrreryTestingError(
            .readyTimeout,
            "orrery (\(binary)) wrote no ready file within \(String(format: "%.1f", seconds)) seconds; it was killed.",
            standardError: standardError,
            recoverySuggestion:
                "Check that the binary is Orrery's (`\(binary) --version`) and new enough for --ready-file, or allow "
                + "more time with OrreryDaemon.Options(readyTimeout:) on a busy machine.")
    }

    static func noScope(_ what: String) -> OrreryTestingError {
        OrreryTestingError(
            .noScope,
            "\(what) is read outside a test that Orrery scopes: none of the .orrery trait, OrreryTestCase, "
                + "Orrery.withSession or Orrery.$current.withValue applies here.",
            recoverySuggestion:
                "Add .orrery(...) to the test or its suite. Task.detached does not inherit task-local values; use "
                + "Task { } or pass the session in.")
    }

    static func sessionFailed(_ message: String, standardError: String? = nil, underlyingError: (any Error)? = nil)
        -> OrreryTestingError
    {
        OrreryTestingError(
            .sessionFailed, message, standardError: standardError, underlyingError: underlyingError)
    }

    static func unsupportedPlatform() -> OrreryTestingError {
        OrreryTestingError(
            .unsupportedPlatform, "Processes cannot be started on this platform, so neither can orrery.",
            recoverySuggestion:
                "Start orrery on the host (orrery serve --port 8080) and set ORRERY_URL=http://127.0.0.1:8080 in the "
                + "test's environment, or pass OrreryDaemon.Options(url:): the kit then opens sessions on it.")
    }

    public var description: String {
        var lines = [message]
        if let underlyingError { lines.append("Underlying error: \(underlyingError)") }
        if let standardError { lines.append("orrery's standard error (the end of it):\n\(standardError)") }
        if let recoverySuggestion { lines.append("Recovery suggestion: \(recoverySuggestion)") }
        return lines.joined(separator: "\n")
    }

    public var errorDescription: String? { description }
}
