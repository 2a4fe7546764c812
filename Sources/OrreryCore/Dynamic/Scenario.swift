/// A stub's place in a scenario: it matches only while the scenario is in `requiredState` (when given), and moves
/// the scenario to `newState` (when given) once it answers.
public struct ScenarioRule: Sendable, Equatable {
    public var name: String
    public var requiredState: String?
    public var newState: String?

    public init(name: String, requiredState: String? = nil, newState: String? = nil) {
        self.name = name
        self.requiredState = requiredState
        self.newState = newState
    }

    /// Whether a stub under this rule may answer while its scenario is in `state`.
    @inline(__always)
    public func allows(_ state: String) -> Bool {
        requiredState.map { $0 == state } ?? true
    }
}

/// The state of every scenario, as a plain value: each one is in `Scenario.started` until a stub moves it.
///
/// The server keeps one per daemon or session behind a lock; this type holds the rules of it.
public struct ScenarioStates: Sendable, Equatable {
    /// The state every scenario starts in.
    public static let started = "Started"

    private var states: [String: String] = [:]

    public init() {}

    public subscript(scenario: String) -> String {
        get { states[scenario] ?? Self.started }
        set { states[scenario] = newValue == Self.started ? nil : newValue }
    }

    /// Applies the rule of a stub that answered: its scenario moves to the new state, if it names one.
    public mutating func apply(_ rule: ScenarioRule) {
        if let newState = rule.newState { self[rule.name] = newState }
    }

    /// Every scenario back in `started`.
    public mutating func reset() {
        states.removeAll()
    }

    /// The scenarios that have left `started`, by name.
    public var changed: [String: String] { states }
}
