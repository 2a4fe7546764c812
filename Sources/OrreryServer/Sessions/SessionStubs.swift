import OrreryCore
import Synchronization

/// A session's own stubs, over the stub files every session shares: those added over the admin API, those that
/// replace a shared stub for this session alone, and the ids of shared stubs the session replaced or removed.
///
/// Adding a stub inserts it into a table in place, in time that does not grow with the stubs the session has; only
/// replacing or removing one rebuilds the table. Requests match outside the lock, on an immutable snapshot of the
/// table: the lock is held only to take the snapshot's reference, so every event loop matches in parallel even in a
/// session with stubs of its own. A session that has none takes no lock at all (one atomic load).
final class SessionStubs: Sendable {
    /// The session's own stubs as requests see them, never changed once made.
    private final class Snapshot: Sendable {
        let table: StubTable
        let hidden: Set<String>

        init(table: StubTable, hidden: Set<String>) {
            self.table = table
            self.hidden = hidden
        }
    }

    private struct Own {
        var table = StubTable()
        /// Shared stubs that do not answer in this session: replaced by one of its own, or removed.
        var hidden: Set<String> = []
        /// The snapshot of `table` and `hidden` requests match on; nil after a change, made again by the next request.
        /// Made lazily so that a run of adds copies nothing: the table's storage is shared with a snapshot until the
        /// next change, which copies it once.
        var published: Snapshot?

        /// The current snapshot, made now if a change dropped it.
        mutating func snapshot() -> Snapshot {
            if let published { return published }
            let made = Snapshot(table: table, hidden: hidden)
            published = made
            return made
        }
    }

    private let own = Mutex(Own())
    /// Where the positions of the session's own sequence stubs are forgotten when the stubs go.
    private let sequences: SequencePositions
    /// Whether `own` holds anything: the request path looks no further when it does not.
    private let isInUse = Atomic<Bool>(false)

    init(sequences: SequencePositions) {
        self.sequences = sequences
    }

    /// The session's own stubs, in the order they were added.
    var all: [IndexedStub] { own.withLock { $0.table.stubs } }

    /// How many stubs of its own the session has.
    var count: Int { own.withLock { $0.table.count } }

    /// The stubs the session sees, in the order they are tried on a tie: the shared ones it did not hide, then its own.
    func visible(shared: StubIndex) -> [IndexedStub] {
        guard isInUse.load(ordering: .acquiring) else { return shared.stubs }
        return own.withLock { own in
            (own.hidden.isEmpty ? shared.stubs : shared.stubs.filter { !own.hidden.contains($0.stub.id) }) + own.table.stubs
        }
    }

    /// How many stubs the session sees, counted without listing them.
    func visibleCount(shared: StubIndex) -> Int {
        guard isInUse.load(ordering: .acquiring) else { return shared.count }
        return own.withLock { own in
            shared.count - own.hidden.count { shared.stub(id: $0) != nil } + own.table.count
        }
    }

    /// The stub with this id as the session sees it: its own, else a shared one it did not hide.
    func stub(id: String, shared: StubIndex) -> IndexedStub? {
        own.withLock { own in
            own.table.stub(id: id) ?? (own.hidden.contains(id) ? nil : shared.stub(id: id))
        }
    }

    /// Adds a stub; false, changing nothing, when the session already sees one with its id.
    func add(_ entry: IndexedStub, shared: StubIndex) -> Bool {
        own.withLock { own in
            let id = entry.stub.id
            guard own.table.stub(id: id) == nil, own.hidden.contains(id) || shared.stub(id: id) == nil else { return false }
            own.table.insert(entry)
            own.published = nil
            isInUse.store(true, ordering: .releasing)
            return true
        }
    }

    /// Replaces the stub with `entry`'s id for this session: one of its own, or a shared one, which then stays
    /// hidden here until the session is reset. False when the session sees none with that id.
    func replace(_ entry: IndexedStub, shared: StubIndex) -> Bool {
        let id = entry.stub.id
        let (isReplaced, gone) = own.withLock { own -> (Bool, IndexedStub?) in
            if let old = own.table.stub(id: id) {
                own.table = StubTable(entries: own.table.stubs.map { $0.stub.id == id ? entry : $0 })
                own.published = nil
                return (true, old)
            }
            guard !own.hidden.contains(id), shared.stub(id: id) != nil else { return (false, nil) }
            own.hidden.insert(id)
            own.table.insert(entry)
            own.published = nil
            isInUse.store(true, ordering: .releasing)
            return (true, nil)
        }
        if let gone { forgetSequence(of: gone) }
        return isReplaced
    }

    /// Removes the stub with this id for this session (a shared one is hidden); false when it sees none.
    func remove(id: String, shared: StubIndex) -> Bool {
        let (isRemoved, gone) = own.withLock { own -> (Bool, IndexedStub?) in
            if let old = own.table.stub(id: id) {
                own.table = StubTable(entries: own.table.stubs.filter { $0.stub.id != id })
                own.published = nil
                return (true, old)
            }
            guard !own.hidden.contains(id), shared.stub(id: id) != nil else { return (false, nil) }
            own.hidden.insert(id)
            own.published = nil
            isInUse.store(true, ordering: .releasing)
            return (true, nil)
        }
        if let gone { forgetSequence(of: gone) }
        return isRemoved
    }

    /// Every stub of the session's own goes and every shared one answers again; returns how many it had added (those
    /// that replaced a shared stub not counted: the shared one is back).
    func removeAll() -> Int {
        let (added, gone) = own.withLock { own -> (Int, [IndexedStub]) in
            defer {
                own = Own()
                isInUse.store(false, ordering: .releasing)
            }
            return (own.table.stubs.count { !own.hidden.contains($0.stub.id) }, own.table.stubs)
        }
        for entry in gone { forgetSequence(of: entry) }
        return added
    }

    /// Forgets the sequence position of one of the session's own stubs that went. Only its own count goes: a file
    /// stub with the same id keeps its place, since nothing the session does to its own stubs moves a file stub's.
    private func forgetSequence(of entry: IndexedStub) {
        guard let token = entry.sequenceToken else { return }
        sequences.forget(id: entry.stub.id, token: token)
    }

    /// The stub that answers `request` in this session: the better of the shared stubs' and its own (on a tie, the
    /// shared one, loaded first), each while its scenario allows.
    func lookup(_ request: HTTPRequest, shared: StubIndex, scenarioState: (String) -> String) -> IndexedStub? {
        guard isInUse.load(ordering: .acquiring) else { return shared.lookup(request, scenarioState: scenarioState) }
        // Only the reference is taken under the lock; matching (regexes, bodies, scenario states) runs outside it.
        let snapshot = own.withLock { $0.snapshot() }
        let fromShared = shared.lookup(request, scenarioState: scenarioState, hiding: snapshot.hidden)
        guard let fromOwn = snapshot.table.lookup(request, scenarioState: scenarioState) else { return fromShared }
        guard let fromShared else { return fromOwn }
        let sharedRank = (fromShared.rank.priority, -fromShared.rank.specificity)
        let ownRank = (fromOwn.rank.priority, -fromOwn.rank.specificity)
        return ownRank < sharedRank ? fromOwn : fromShared
    }

    /// The closest stubs to a miss, the session's own first among equals.
    func nearMisses(_ request: HTTPRequest, shared: StubIndex, scenarioState: (String) -> String) -> [StubIndex.NearMiss] {
        guard isInUse.load(ordering: .acquiring) else { return shared.nearMisses(request, scenarioState: scenarioState) }
        let snapshot = own.withLock { $0.snapshot() }
        let misses =
            snapshot.table.nearMisses(request, scenarioState: scenarioState)
            + shared.nearMisses(request, scenarioState: scenarioState, hiding: snapshot.hidden)
        return Array(misses.sorted { $0.mismatches.count < $1.mismatches.count }.prefix(5))
    }
}
