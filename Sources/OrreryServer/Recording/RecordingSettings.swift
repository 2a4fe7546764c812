/// Record modes, after Ruby's VCR. The mode decides per route, when a session starts, whether the proxy's answer
/// is recorded or a fixture already on disk replays.
public enum RecordMode: String, Sendable, CaseIterable {
    /// Routes (method, host, path) that had fixtures before the session replay them; all others are recorded.
    case once
    /// Requests that a fixture from before the session answers replay; every other one is recorded.
    case newEpisodes = "new_episodes"
    /// Everything is recorded again: the folder's fixtures do not answer during the session, and the route files
    /// the session records are written anew.
    case all
    /// Nothing is recorded: the folder's fixtures replay, and misses are forwarded as usual.
    case none
}

/// What a recording session writes and how: `serve --record DIR`, or `POST /__admin/recordings/start`.
public struct RecordingSettings: Sendable, Equatable {
    /// The recording folder: fixtures go here, and are served from here.
    public var folder: String
    public var mode = RecordMode.once
    /// Request headers that fixtures must match (none by default: method, host, url and body only).
    public var matchHeaders: [String] = []

    public init(folder: String, mode: RecordMode = .once, matchHeaders: [String] = []) {
        self.folder = folder
        self.mode = mode
        self.matchHeaders = matchHeaders
    }
}
