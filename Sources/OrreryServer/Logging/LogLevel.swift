import Logging

/// The levels `--log-level` accepts.
public enum LogLevel: String, Sendable, CaseIterable {
    case silent, error, warning, info, debug

    /// swift-log's level, or nil for `silent`.
    public var loggerLevel: Logger.Level? {
        switch self {
        case .silent: nil
        case .error: .error
        case .warning: .warning
        case .info: .info
        case .debug: .debug
        }
    }
}
