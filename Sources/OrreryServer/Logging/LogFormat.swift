import Logging

/// The shape of the daemon's own log (`--log-format`): lines for a person, or one JSON object per line for a shipper.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json

    /// The handler that writes this format at `level`.
    public func handler(label: String, level: LogLevel) -> any LogHandler {
        switch self {
        case .text: ConsoleLogHandler(label: label, level: level)
        case .json: JSONLogHandler(label: label, level: level)
        }
    }
}
