import Foundation
import OrreryCore
import Synchronization

/// A WireMock session's recording (`POST /__admin/recordings/start` with a `targetBaseUrl`): while it runs, what no
/// mapping answers on the session's port is forwarded to the target, and `recordings/stop` makes mappings of the
/// exchanges forwarded since it started.
final class WireMockRecording: Sendable {
    /// What `GET /__admin/recordings/status` says, in WireMock's words.
    enum Status: String, Sendable {
        case neverStarted = "NeverStarted"
        case recording = "Recording"
        case stopped = "Stopped"
    }

    /// A running recording: where misses go, when it started (the journal's exchanges after it are its own), and
    /// whether `stop` adds the mappings it makes.
    struct Run: Sendable {
        let target: ProxyTarget
        let startedAt: Date
        let persists: Bool
    }

    private struct State {
        var run: Run?
        var hasStopped = false
    }

    private let state = Mutex(State())

    var status: Status {
        state.withLock { $0.run != nil ? .recording : $0.hasStopped ? .stopped : .neverStarted }
    }

    /// Where a miss is forwarded now, nil when not recording.
    var target: ProxyTarget? {
        state.withLock { $0.run?.target }
    }

    func start(_ run: Run) {
        state.withLock { $0.run = run }
    }

    /// Ends the recording and gives what it was, nil when none was running.
    func stop() -> Run? {
        state.withLock { state in
            defer {
                if state.run != nil { state.hasStopped = true }
                state.run = nil
            }
            return state.run
        }
    }
}
