import Foundation
import OrreryCore

/// `/__admin/recordings`: record proxied traffic as fixture files, switched on and off at run time.
extension AdminAPI {
    /// `{"folder": "recordings", "mode": "once", "matchHeaders": ["X-Tenant"]}`; the folder may be left out when
    /// `--record` named one.
    func startRecording(_ request: HTTPRequest) -> AdminReply {
        let options: JSONValue
        switch Self.options(request, example: #"{"folder": "recordings", "mode": "once"}"#) {
        case .success(let parsed): options = parsed
        case .failure(let reply): return reply
        }
        guard let folder = options["folder"]?.stringValue ?? defaultRecordingFolder else {
            return .error(.Code422UnprocessableContent, "Say where to record: {\"folder\": \"recordings\"} (no --record folder was given).")
        }
        var settings = RecordingSettings(folder: folder)
        for (key, value) in options.objectMembers ?? [] {
            switch (key, value) {
            case ("folder", .string): continue
            case ("mode", .string(let name)):
                guard let mode = RecordMode(rawValue: name) else {
                    let names = RecordMode.allCases.map(\.rawValue).joined(separator: ", ")
                    return .error(.Code422UnprocessableContent, "Unknown record mode '\(name)'; use one of \(names).")
                }
                settings.mode = mode
            case ("matchHeaders", .array(let names)) where names.allSatisfy({ $0.stringValue != nil }):
                settings.matchHeaders = names.compactMap(\.stringValue)
            default:
                return .error(
                    .Code422UnprocessableContent,
                    "Unknown or invalid member '\(key)': use folder (string), mode (once, new_episodes, all or none), matchHeaders (a list of header names).")
            }
        }
        if let reason = WritablePath.refusal(folder, as: .folder) {
            return .error(.Code400BadRequest, "The recording folder must be a folder or a new one: \(reason).")
        }
        do {
            try serviceLogger.recorder.start(settings)
        } catch {
            if let errors = error.sourceErrors {
                return .sourceErrors(errors, message: "The recording folder's fixtures do not load; nothing was started.")
            }
            return .error(.Code409Conflict, "The recording did not start: \(error).")
        }
        return .json(serviceLogger.recorder.status)
    }

    func stopRecording() -> AdminReply {
        .json(serviceLogger.recorder.stop() ?? .object([("recording", .bool(false))]))
    }

    func recordingStatus() -> AdminReply {
        .json(serviceLogger.recorder.status)
    }
}
