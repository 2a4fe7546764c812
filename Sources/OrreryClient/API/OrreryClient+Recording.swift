extension OrreryClient {
    /// `POST /__admin/recordings/start`: records what the proxy forwards as fixture files in `folder` (relative to
    /// the daemon's working directory; nil: the daemon's `--record` folder). A session already on is a 409.
    @discardableResult
    public func startRecording(folder: String? = nil, mode: RecordMode? = nil, matchHeaders: [String]? = nil)
        async throws -> RecordingStatus
    {
        var body = JSON.object([])
        if let folder { body = body.setting("folder", .string(folder)) }
        if let mode { body = body.setting("mode", .string(mode.rawValue)) }
        if let matchHeaders { body = body.setting("matchHeaders", .array(matchHeaders.map { .string($0) })) }
        return try await send(Call("POST", "recordings", "start", body: body))
    }

    /// `POST /__admin/recordings/stop`: stops recording once what is queued is written; the session's account.
    @discardableResult
    public func stopRecording() async throws -> RecordingStatus {
        try await send(Call("POST", "recordings", "stop"))
    }

    /// `GET /__admin/recordings`: the recording session under way, or the last one.
    public func recordingStatus() async throws -> RecordingStatus {
        try await send(Call("GET", "recordings"))
    }

    /// `POST /__admin/logging/start`: writes every journaled exchange to the traffic log, one JSON object per line.
    /// Each option left nil keeps the daemon's setting; `file` is needed when the daemon was started without
    /// `--log-traffic`.
    @discardableResult
    public func startTrafficLog(
        file: String? = nil, includeHeaders: Bool? = nil, includeBody: Bool? = nil, maxBytes: Int? = nil
    ) async throws -> TrafficLogStatus {
        var body = JSON.object([])
        if let file { body = body.setting("file", .string(file)) }
        if let includeHeaders { body = body.setting("includeHeaders", .bool(includeHeaders)) }
        if let includeBody { body = body.setting("includeBody", .bool(includeBody)) }
        if let maxBytes { body = body.setting("maxBytes", .number(Double(maxBytes))) }
        return try await send(Call("POST", "logging", "start", body: body))
    }

    /// `POST /__admin/logging/stop`: stops the traffic log once what is queued is written.
    @discardableResult
    public func stopTrafficLog() async throws -> TrafficLogStatus {
        try await send(Call("POST", "logging", "stop"))
    }

    /// `GET /__admin/logging`: whether the traffic log is on, where, and with what.
    public func trafficLogStatus() async throws -> TrafficLogStatus {
        try await send(Call("GET", "logging"))
    }
}
