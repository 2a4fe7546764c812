import Foundation
import OrreryCore

/// `/__admin/logging`: the traffic log, switched on and off at run time (Astro's `start()` and `stop()`).
extension AdminAPI {
    /// `{"file": "...", "includeHeaders": true, "includeBody": true, "maxBytes": N}`; every member optional but the
    /// file when no log was configured before.
    func startLogging(_ request: HTTPRequest) -> AdminReply {
        let options: JSONValue
        switch Self.options(request, example: #"{"file": "traffic.jsonl", "includeBody": false}"#) {
        case .success(let parsed): options = parsed
        case .failure(let reply): return reply
        }
        let previous = serviceLogger.lastTrafficLogSettings
        guard let path = options["file"]?.stringValue ?? previous?.path else {
            return .error(.Code422UnprocessableContent, "Say where to write: {\"file\": \"traffic.jsonl\"} (no --log-traffic file was given).")
        }
        var settings = TrafficLogSettings(path: path)
        if let previous, previous.path == path { settings = previous }
        // Checked again once open: the path may change between the check and the open.
        settings.isRegularFileRequired = true
        for (key, value) in options.objectMembers ?? [] {
            switch (key, value) {
            case ("file", .string): continue
            case ("includeHeaders", .bool(let flag)): settings.includeHeaders = flag
            case ("includeBody", .bool(let flag)): settings.includeBody = flag
            case ("maxBytes", .number(let number, _)) where number >= 1024: settings.maximumBytes = Int(number)
            default:
                return .error(
                    .Code422UnprocessableContent,
                    "Unknown or invalid member '\(key)': use file (string), includeHeaders and includeBody (true or false), maxBytes (1024 or more).")
            }
        }
        if let reason = WritablePath.refusal(path, as: .file) {
            return .error(.Code400BadRequest, "The traffic log must be a regular file or a new one: \(reason).")
        }
        do {
            try serviceLogger.startTrafficLog(settings)
        } catch {
            return .error(.Code422UnprocessableContent, "\(error)")
        }
        return loggingStatus()
    }

    func stopLogging() -> AdminReply {
        guard let log = serviceLogger.stopTrafficLog() else {
            return .json(.object([("logging", .bool(false))]))
        }
        let status = log.status
        return .json(
            .object([
                ("logging", .bool(false)), ("file", .string(log.settings.path)), ("exchangesWritten", .int(status.written)),
                ("exchangesDropped", .int(status.dropped)), ("error", .string(status.failure)),
            ]))
    }

    func loggingStatus() -> AdminReply {
        guard let log = serviceLogger.currentTrafficLog else { return .json(.object([("logging", .bool(false))])) }
        let status = log.status
        return .json(
            .object([
                ("logging", .bool(status.failure == nil)), ("file", .string(log.settings.path)),
                ("includeHeaders", .bool(log.settings.includeHeaders)), ("includeBody", .bool(log.settings.includeBody)),
                ("maxBytes", .int(log.settings.maximumBytes)), ("exchangesWritten", .int(status.written)),
                ("exchangesDropped", .int(status.dropped)), ("error", .string(status.failure)),
            ]))
    }

    /// A start request's options: its body as a JSON object (an empty body is `{}`), or the 400 that says what to send.
    static func options(_ request: HTTPRequest, example: String) -> AdminInput<JSONValue> {
        guard !request.body.isEmpty else { return .success(.object([])) }
        guard let parsed = try? JSONValue.parse(request.body), case .object = parsed else {
            return .failure(.error(.Code400BadRequest, "The body must be a JSON object such as \(example)."))
        }
        return .success(parsed)
    }
}
