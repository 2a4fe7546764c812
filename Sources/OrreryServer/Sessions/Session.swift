import Foundation
import OrreryCore
import Synchronization

/// A private Orrery inside the daemon: its own stubs added over the API, journal, sequence positions and scenario
/// states, on top of the stub files and the host map that every session shares. The daemon's own traffic is the
/// main session (no id), whose API stubs live in the shared registry as they always have.
final class Session: Sendable {
    /// Nil for the main session.
    let id: String?
    let name: String?
    /// The session's own port (0 for the main session, which is reached on the daemon's port), and the listener
    /// tag its connections carry.
    let port: Int
    let tag: Int
    let createdAt = Date()
    let journal: Journal
    let scenarios = ScenarioStore()
    /// Stubs added over the API to this session (not for the main session: its are in the registry).
    private let ownStubs = Mutex<[IndexedStub]>([])
    private let ownIndex = Mutex<StubIndex?>(nil)
    /// How many requests each sequence stub has answered in this session, by stub id.
    private let sequencePositions = Mutex<[String: Int]>([:])

    init(id: String?, name: String?, port: Int, tag: Int, journal: Journal) {
        self.id = id
        self.name = name
        self.port = port
        self.tag = tag
        self.journal = journal
    }

    var isMain: Bool { id == nil }

    // MARK: - Stubs

    /// The session's own stubs, indexed; nil when it has none (the usual case: one lock, no lookup).
    var index: StubIndex? { ownIndex.withLock { $0 } }

    var stubs: [IndexedStub] { ownStubs.withLock { $0 } }

    /// Adds a stub; false when one of the session's own already has its id.
    func add(_ stub: IndexedStub) -> Bool {
        ownStubs.withLock { stubs in
            guard !stubs.contains(where: { $0.stub.id == stub.stub.id }) else { return false }
            stubs.append(stub)
            publish(stubs)
            return true
        }
    }

    /// Replaces the stub with `stub`'s id; false when the session has none.
    func replace(_ stub: IndexedStub) -> Bool {
        ownStubs.withLock { stubs in
            guard let position = stubs.firstIndex(where: { $0.stub.id == stub.stub.id }) else { return false }
            stubs[position] = stub
            publish(stubs)
            return true
        }
    }

    func remove(id: String) -> Bool {
        ownStubs.withLock { stubs in
            let before = stubs.count
            stubs.removeAll { $0.stub.id == id }
            publish(stubs)
            return stubs.count != before
        }
    }

    /// Removes every stub of the session; returns how many there were.
    func removeAllStubs() -> Int {
        ownStubs.withLock { stubs in
            defer {
                stubs.removeAll()
                publish(stubs)
            }
            return stubs.count
        }
    }

    private func publish(_ stubs: [IndexedStub]) {
        ownIndex.withLock { $0 = stubs.isEmpty ? nil : StubIndex(entries: stubs) }
        sequencePositions.withLock { positions in
            let ids = Set(stubs.map(\.stub.id))
            positions = positions.filter { ids.contains($0.key) }
        }
    }

    // MARK: - Answering

    /// The stub that answers `request` for this session: the better of the shared stubs' and the session's own
    /// (on a tie, the shared one, loaded first), each while its scenario allows.
    func lookup(_ request: HTTPRequest, shared: StubIndex) -> IndexedStub? {
        let state: (String) -> String = { [scenarios] in scenarios.state(of: $0) }
        let fromShared = shared.lookup(request, scenarioState: state)
        guard !isMain, let own = index, let fromOwn = own.lookup(request, scenarioState: state) else { return fromShared }
        guard let fromShared else { return fromOwn }
        let sharedRank = (fromShared.rank.priority, -fromShared.rank.specificity)
        let ownRank = (fromOwn.rank.priority, -fromOwn.rank.specificity)
        return ownRank < sharedRank ? fromOwn : fromShared
    }

    /// The closest stubs to a miss, the session's own among them.
    func nearMisses(_ request: HTTPRequest, shared: StubIndex) -> [StubIndex.NearMiss] {
        let state: (String) -> String = { [scenarios] in scenarios.state(of: $0) }
        var misses = shared.nearMisses(request, scenarioState: state)
        if !isMain, let own = index {
            misses = Array((own.nearMisses(request, scenarioState: state) + misses).prefix(5))
        }
        return misses
    }

    /// The response a stub gives now: the next of its sequence (counted per session), and its scenario moved on.
    func nextResponse(of entry: IndexedStub) -> PreparedResponse {
        if let rule = entry.stub.scenario { scenarios.apply(rule) }
        guard !isMain, entry.sequenceLength > 1 else { return entry.nextResponse() }
        let position = sequencePositions.withLock { positions in
            defer { positions[entry.stub.id, default: 0] += 1 }
            return positions[entry.stub.id, default: 0]
        }
        return entry.response(atSequencePosition: position)
    }

    /// Every sequence of the session back at its first response.
    func rewindSequences() {
        sequencePositions.withLock { $0.removeAll() }
    }

    /// Back to the start: sequences at their first response, scenarios in `Started`, the journal empty; for a
    /// session its own stubs are gone too.
    func reset() -> (stubsRemoved: Int, requestsCleared: Int) {
        let cleared = journal.counts.kept
        journal.clear()
        scenarios.reset()
        sequencePositions.withLock { $0.removeAll() }
        let removed = isMain ? 0 : removeAllStubs()
        return (removed, cleared)
    }
}
