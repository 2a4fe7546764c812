import Foundation
import Logging

/// Writes the daemon's log as one JSON object per line on standard error (`--log-format json`): `time`, `level`,
/// `message`, `source` (the module that logged), then the event's fields, for a log shipper to index.
///
/// `{"time":"2026-11-22T10:00:00.123Z","level":"info","message":"stubs reloaded ...","source":"OrreryServer"}`
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let isSilent: Bool
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where each line goes (standard error; a test gives its own).
    public init(
        label: String, level: LogLevel,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.label = label
        logLevel = level.loggerLevel ?? .critical
        isSilent = level == .silent
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        guard !isSilent else { return }
        write(Self.line(event, label: label, metadata: metadata, at: Date()))
    }

    /// One event as its line, newline included. The four fixed keys come first; a field of the same name as one of
    /// them is kept under `field.<name>`.
    static func line(_ event: LogEvent, label: String, metadata: Logger.Metadata, at date: Date) -> String {
        var members = [
            ("time", quote(timestamp(date))), ("level", quote("\(event.level)")),
            ("message", quote("\(event.message)")),
            ("source", quote(event.source)), ("logger", quote(label)),
        ]
        let fixed = Set(members.map(\.0))
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            members.append((fixed.contains(key) ? "field.\(key)" : key, json(value)))
        }
        return "{" + members.map { "\(quote($0.0)):\($0.1)" }.joined(separator: ",") + "}\n"
    }

    private static func json(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): quote(text)
        case .stringConvertible(let convertible):
            if let number = convertible as? any BinaryInteger {
                "\(number)"
            } else if let flag = convertible as? Bool {
                "\(flag)"
            } else {
                quote(convertible.description)
            }
        case .array(let items): "[" + items.map(json).joined(separator: ",") + "]"
        case .dictionary(let fields):
            "{" + fields.sorted { $0.key < $1.key }.map { "\(quote($0.key)):\(json($0.value))" }.joined(separator: ",")
                + "}"
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped, so no message can break its line.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value):
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func timestamp(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var now = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&now, &parts)
        let milliseconds = Int((seconds - seconds.rounded(.down)) * 1000)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, milliseconds)
    }
}
