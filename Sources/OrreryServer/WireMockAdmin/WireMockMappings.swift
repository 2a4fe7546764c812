import OrreryCore
import Synchronization

/// The mappings a session was given through WireMock's admin API, kept as they were posted (with their id), so that
/// `GET /__admin/mappings` answers what a WireMock client sent. The stubs that answer are in the session's
/// `SessionStubs`, converted once when posted; this is only what the admin API reads back.
final class WireMockMappings: Sendable {
    struct Record: Sendable {
        let id: String
        /// The mapping as posted, `id` and `uuid` set.
        var json: JSONValue
        /// WireMock's priority, 1 the highest.
        var priority: Int
        /// When it was added: among equal priorities the most recent wins.
        var insertion: Int
    }

    private struct State {
        var records: [String: Record] = [:]
        var nextInsertion = 0
    }

    private let state = Mutex(State())
    /// What `POST /__admin/settings` last set, read back by `GET /__admin/settings`.
    let settings = Mutex<JSONValue>(.object([]))

    /// The next insertion number: later mappings take higher numbers.
    func nextInsertion() -> Int {
        state.withLock { state in
            state.nextInsertion += 1
            return state.nextInsertion
        }
    }

    func put(_ record: Record) {
        state.withLock { $0.records[record.id] = record }
    }

    func record(id: String) -> Record? {
        state.withLock { $0.records[id] }
    }

    @discardableResult
    func remove(id: String) -> Record? {
        state.withLock { $0.records.removeValue(forKey: id) }
    }

    func removeAll() {
        state.withLock { $0.records.removeAll() }
    }

    /// Every mapping in the order WireMock tries them: priority, then the most recently added first.
    var all: [Record] {
        state.withLock { Array($0.records.values) }.sorted {
            $0.priority != $1.priority ? $0.priority < $1.priority : $0.insertion > $1.insertion
        }
    }

    /// The native priority that ranks a posted mapping as WireMock does: by its priority, then the most recent
    /// first. Every posted mapping ranks before the stub files and `--wiremock-root` mappings (whose priorities are
    /// not negative), as a test's own stubs override the shared ones.
    static func nativePriority(wireMock priority: Int, insertion: Int) -> Int {
        let bounded = min(max(priority, -1_000), 1_000_000)
        return (bounded - 1_000_001) * 1_000_000_000 - insertion
    }
}
