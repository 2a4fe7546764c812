/// How a recording session treats routes that already have fixtures (after Ruby's VCR).
public struct RecordMode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The daemon's name for it: `once`, `new_episodes`, `all` or `none`.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Routes that had fixtures replay them; every request on other routes is recorded (the default).
    public static let once = RecordMode(rawValue: "once")
    /// Requests a fixture answers replay; every other request is recorded.
    public static let newEpisodes = RecordMode(rawValue: "new_episodes")
    /// Nothing replays from the folder; everything is recorded anew.
    public static let all = RecordMode(rawValue: "all")
    /// The folder's fixtures replay and nothing is recorded (the daemon's `none`).
    public static let replayOnly = RecordMode(rawValue: "none")

    public var description: String { rawValue }
}

/// `GET /__admin/recordings`: the recording session under way, or the last one.
public struct RecordingStatus: Decodable, Sendable, Equatable {
    public let isRecording: Bool
    public let folder: String?
    public let mode: RecordMode?
    /// Request headers the fixtures must match.
    public let matchHeaders: [String]?
    public let startedAt: String?
    public let exchangesRecorded: Int?
    /// Exchanges not recorded, by why: the write queue was full (a disk slower than the traffic), or the answer's
    /// body was over `--record-body-limit`.
    public let notRecorded: NotRecorded?
    /// Route files written (the first thousand; `filesListed` false when there were more).
    public let files: [String]?
    public let filesListed: Bool?
    /// Why the session stopped, when a write failed.
    public let error: String?

    enum CodingKeys: String, CodingKey {
        case isRecording = "recording"
        case folder, mode, matchHeaders, startedAt, exchangesRecorded, notRecorded, files, filesListed, error
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        isRecording = try container.decode(Bool.self, forKey: .isRecording)
        folder = try container.decodeIfPresent(String.self, forKey: .folder)
        mode = try container.decodeIfPresent(String.self, forKey: .mode).map(RecordMode.init(rawValue:))
        matchHeaders = try container.decodeIfPresent([String].self, forKey: .matchHeaders)
        startedAt = try container.decodeIfPresent(String.self, forKey: .startedAt)
        exchangesRecorded = try container.decodeIfPresent(Int.self, forKey: .exchangesRecorded)
        notRecorded = try container.decodeIfPresent(NotRecorded.self, forKey: .notRecorded)
        files = try container.decodeIfPresent([String].self, forKey: .files)
        filesListed = try container.decodeIfPresent(Bool.self, forKey: .filesListed)
        error = try container.decodeIfPresent(String.self, forKey: .error)
    }
}

extension RecordingStatus {
    /// Exchanges a recording session did not write, by why.
    public struct NotRecorded: Decodable, Sendable, Equatable {
        /// Not queued, because the writes waiting were at their bound.
        public let writeQueueFull: Int
        /// Their answer's body was over `--record-body-limit`.
        public let overBodyLimit: Int
    }
}
