/// Where a stub was defined, for errors, listings and near-miss reports.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { line > 0 ? "\(file):\(line)" : file }
}

/// A request pattern and the response it gets (WireMock's `StubMapping`, Nocilla's `stubRequest`).
public struct Stub: Sendable {
    public var id: String
    public var name: String?
    /// The file and line it came from; nil for stubs added through the admin API.
    public var location: SourceLocation?
    /// Lower numbers win over higher ones and over stubs without a priority.
    public var priority: Int?
    public var request: RequestPattern
    /// What the stub answers; more than one is a sequence, answered in order, the last one repeating.
    public var responses: [ResponseDefinition]
    /// `scenario`, `requiredState` and `newState`: the stub answers only in a state of its scenario, and moves it on.
    public var scenario: ScenarioRule? {
        get { scenarioStorage.first }
        set { scenarioStorage = newValue.map { [$0] } ?? [] }
    }
    /// At most one rule, in an array: 8 bytes in a stub without one (nearly all of them) instead of a rule's 48.
    private var scenarioStorage: [ScenarioRule]
    /// The stub as written (base merged in), returned by the admin API; kept as compact JSON text, a fraction of
    /// the memory of its tree, which matters with 100,000 stubs and is read only by the admin API.
    private var definitionText: [UInt8]

    public var definition: JSONValue {
        (try? JSONValue.parse(definitionText)) ?? .object([])
    }

    public init(
        id: String, name: String? = nil, location: SourceLocation? = nil, priority: Int? = nil,
        request: RequestPattern, response: ResponseDefinition, sequel: [ResponseDefinition] = [],
        definition: JSONValue = .object([]), scenario: ScenarioRule? = nil
    ) {
        self.id = id
        self.name = name
        self.location = location
        self.priority = priority
        self.request = request
        responses = [response] + sequel
        scenarioStorage = scenario.map { [$0] } ?? []
        definitionText = Self.compact(definition.encodedBytes)
    }

    /// The bytes in an array of their own size: the encoder's grew by doubling, up to twice what it holds.
    private static func compact(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: bytes)
        }
    }

    /// The first (usually the only) response.
    public var response: ResponseDefinition {
        get { responses[0] }
        set { responses[0] = newValue }
    }

    /// `name (file:line)`, or whichever of those the stub has.
    public var label: String {
        switch (name, location) {
        case (let name?, let location?): "\(name) (\(location))"
        case (let name?, nil): name
        case (nil, let location?): "\(location)"
        case (nil, nil): id
        }
    }
}
