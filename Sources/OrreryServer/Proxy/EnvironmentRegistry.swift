import Foundation
import OrreryCore
import Synchronization

/// The environment map and the choices made at run time, shared by every event loop, saved to a state file next to
/// the host map so a restart keeps them.
public final class EnvironmentRegistry: Sendable {
    private let environments: Mutex<Environments>
    /// `config/hosts.state.json`.
    public let statePath: String

    /// Whether choices are read from and saved to the state file (`--ignore-env-state` turns it off).
    public let persistsChoices: Bool

    /// - Parameter override: `--env`: chosen for every configuration that has it, over the saved state.
    public init(map: HostMap, statePath: String, override: String?, persistsChoices: Bool = true) throws(EnvironmentError) {
        self.statePath = statePath
        self.persistsChoices = persistsChoices
        var saved: [String: EnvironmentChoice] = [:]
        if persistsChoices, let data = FileManager.default.contents(atPath: statePath),
            let state = try? JSONValue.parse(Array(data))
        {
            saved = Environments.choices(fromState: state)
        }
        var environments = Environments(map: map, choices: saved)
        if let override { try environments.chooseEverywhere(override) }
        self.environments = Mutex(environments)
    }

    /// The host map as loaded.
    public var map: HostMap { environments.withLock { $0.map } }

    public func upstream(for request: HTTPRequest) -> Result<Upstream, UpstreamSelectionError>? {
        environments.withLock { $0.upstream(for: request) }
    }

    /// See `Environments.recordedHost(for:)`.
    public func recordedHost(for request: HTTPRequest) -> String? {
        environments.withLock { $0.recordedHost(for: request) }
    }

    /// `api.example.com → PROD (https://api.example.com)`, for the start-up log.
    public var activeSummary: String {
        environments.withLock { environments in
            environments.map.configurations.map { configuration in
                let choice = environments.activeChoice(for: configuration)
                let host = choice.host ?? configuration.host(forKey: choice.key)?.host ?? "no host yet"
                return "\(configuration.canonicalHost) → \(choice.key) (\(host))"
            }.joined(separator: ", ")
        }
    }

    public var json: JSONValue {
        environments.withLock { $0.json }
    }

    /// Chooses an environment and saves the choice atomically (a temporary file, then a rename).
    public func choose(_ choice: EnvironmentChoice, forCanonicalHost host: String) throws(EnvironmentError) {
        let state = try environments.withLock { environments throws(EnvironmentError) in
            try environments.choose(choice, forCanonicalHost: host)
            return environments.stateJSON
        }
        guard persistsChoices else { return }
        do {
            try AtomicFile.write(Array((state.prettyEncoded + "\n").utf8), to: statePath)
        } catch {
            throw EnvironmentError("the choice is active but could not be saved to \(statePath): \(error)")
        }
    }
}
