import OrreryCore
import Synchronization

/// The state of every scenario of the daemon or of one session, shared by every event loop.
final class ScenarioStore: Sendable {
    private let states = Mutex(ScenarioStates())

    /// The state a scenario is in (`Started` until a stub moves it).
    func state(of scenario: String) -> String {
        states.withLock { $0[scenario] }
    }

    /// A stub of the scenario answered: it moves to the stub's new state, if it names one.
    func apply(_ rule: ScenarioRule) {
        guard rule.newState != nil else { return }
        states.withLock { $0.apply(rule) }
    }

    func set(_ scenario: String, to state: String) {
        states.withLock { $0[scenario] = state }
    }

    /// Every scenario back in `Started`.
    func reset() {
        states.withLock { $0.reset() }
    }
}
