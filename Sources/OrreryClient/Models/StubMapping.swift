/// A stub the daemon serves, as the admin API lists it: its id, where it came from, and the stub as written.
public struct StubMapping: Decodable, Sendable, Equatable {
    /// The id to read, replace or remove it by.
    public let id: String
    public let name: String?
    /// `stubs/users.yaml:3` for a stub from a file, `admin API` for one added over the API.
    public let source: String
    public let priority: Int?
    /// The points it scores when several stubs match (see "Which stub wins" in docs/stub-files.md).
    public let specificity: Int?
    /// The stub in the stub-file format: `request`, `response` and the rest.
    public let definition: JSON

    /// Whether it was added over the admin API (and so goes with `removeAPIStubs()` and `reset()`).
    public var isFromAdminAPI: Bool { source == "admin API" }

    enum CodingKeys: String, CodingKey {
        case id, name, source, priority, specificity
        case definition = "stub"
    }
}

/// The answer to `removeAPIStubs()`: how many stubs went, and how many are left.
public struct RemovedStubs: Decodable, Sendable, Equatable {
    public let apiStubsRemoved: Int
    /// Stubs still served (those from files).
    public let stubs: Int
}

/// The answer to `reloadStubs()`.
public struct ReloadedStubs: Decodable, Sendable, Equatable {
    public let stubs: Int
    public let files: Int
}

/// The answer to `reset()`: what was undone.
public struct ResetSummary: Decodable, Sendable, Equatable {
    public let apiStubsRemoved: Int
    public let requestsCleared: Int
    /// Stubs served after the reset.
    public let stubs: Int?
    public let stubFiles: Int?
}
