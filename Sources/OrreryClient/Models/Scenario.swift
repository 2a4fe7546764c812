/// A scenario and the state it is in: stubs with `scenario` match only in their `requiredState`.
public struct Scenario: Sendable, Equatable {
    public let name: String
    /// Every scenario starts in `Started`.
    public let state: String

    public init(name: String, state: String) {
        self.name = name
        self.state = state
    }

    /// The state every scenario starts in.
    public static let startedState = "Started"
}

/// The scenarios as `GET /__admin/scenarios` answers: a list of `{name, state}`, the same under `scenarios`, or an
/// object from name to state.
struct ScenarioList: Decodable {
    let scenarios: [Scenario]

    private struct Entry: Decodable {
        let name: String
        let state: String
    }

    private enum CodingKeys: String, CodingKey { case scenarios }

    init(from decoder: any Decoder) throws {
        if let entries = try? [Entry](from: decoder) {
            scenarios = entries.map { Scenario(name: $0.name, state: $0.state) }
        } else if let container = try? decoder.container(keyedBy: CodingKeys.self),
            container.contains(.scenarios)
        {
            if let entries = try? container.decode([Entry].self, forKey: .scenarios) {
                scenarios = entries.map { Scenario(name: $0.name, state: $0.state) }
            } else {
                let states = try container.decode([String: String].self, forKey: .scenarios)
                scenarios = states.sorted { $0.key < $1.key }.map { Scenario(name: $0.key, state: $0.value) }
            }
        } else {
            let states = try [String: String](from: decoder)
            scenarios = states.sorted { $0.key < $1.key }.map { Scenario(name: $0.key, state: $0.value) }
        }
    }
}
