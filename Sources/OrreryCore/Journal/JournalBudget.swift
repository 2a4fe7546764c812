import Synchronization

/// The bounds every journal of a daemon shares (`--journal-entries`, `--journal-bytes`): the daemon's own and each
/// session's together never hold more, whatever the number of sessions. Past a bound the oldest exchange of the
/// whole daemon goes first, whichever journal holds it.
///
/// Journals tell the budget what they keep while holding their own lock, and drop what it hands back after letting
/// go of it, so the two locks are only ever taken in one order (a journal's, then the budget's). While a daemon has
/// one journal (no session was opened) that journal bounds itself with the same numbers and the budget is not
/// involved: the request path takes no second lock until a second journal joins.
public final class JournalBudget: Sendable {
    public let maximumEntries: Int
    public let maximumBytes: Int

    /// One kept exchange, in the order all journals recorded them.
    struct Item {
        let journal: Journal
        let id: Int
        let bytes: Int
    }

    private struct State {
        /// Oldest first from `head`; the slots before it are spent and dropped when they are half the array.
        var items: [Item?] = []
        var head = 0
        var entries = 0
        var bytes = 0

        mutating func popOldest() -> Item? {
            while head < items.count {
                let item = items[head]
                items[head] = nil
                head += 1
                if let item {
                    entries -= 1
                    bytes -= item.bytes
                    compactIfSpent()
                    return item
                }
            }
            return nil
        }

        mutating func compactIfSpent() {
            guard head > 64 && head * 2 > items.count else { return }
            items.removeFirst(head)
            head = 0
        }
    }

    private let state = Mutex(State())
    /// Set once a second journal joined, under the first one's lock: from then on every journal goes through `admit`.
    private let isShared = Atomic<Bool>(false)
    /// How many journals joined, and the first one until a second joins (to enroll what it kept alone). Also the lock
    /// that makes a journal joining wait until that enrollment is done.
    private let members = Mutex<(count: Int, first: Journal?)>((0, nil))

    public init(maximumEntries: Int, maximumBytes: Int) {
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
    }

    public convenience init(_ limits: JournalLimits) {
        self.init(maximumEntries: limits.maximumEntries, maximumBytes: limits.maximumBytes)
    }

    /// Exchanges and bytes kept by every journal together.
    public var counts: (entries: Int, bytes: Int) {
        state.withLock { ($0.entries, $0.bytes) }
    }

    /// Whether journals must go through `admit`: more than one shares the budget.
    var isInUse: Bool { isShared.load(ordering: .acquiring) }

    /// Called by each journal as it is made, before it records anything. The second one to join enrolls what the
    /// first kept alone, so that its oldest exchanges are the first to go.
    func join(_ journal: Journal) {
        members.withLock { members in
            members.count += 1
            if members.count == 1 {
                // Kept until a second journal joins; the daemon's own journal lives as long as the budget anyway.
                members.first = journal
            } else if let first = members.first {
                first.enrollInBudget()
                members.first = nil
            }
        }
    }

    /// Takes in what a journal kept on its own, oldest first, and from then on counts every journal. Called under
    /// that journal's lock.
    func enroll(_ items: [Item]) {
        state.withLock { state in
            state.items.append(contentsOf: items.map(Optional.some))
            state.entries += items.count
            state.bytes += items.reduce(0) { $0 + $1.bytes }
        }
        isShared.store(true, ordering: .releasing)
    }

    /// Counts a newly kept exchange; returns the oldest ones to drop to stay within the bounds (never the newest).
    /// Called by `journal` under its own lock, in the order of its ids.
    func admit(_ item: Item) -> [Item] {
        state.withLock { state in
            state.items.append(item)
            // Slots emptied by `forget` are dropped once they outnumber the kept ones, so the array stays within
            // twice what it keeps.
            if state.items.count - state.head > 2 * state.entries + 64 {
                state.items = state.items[state.head...].filter { $0 != nil }
                state.head = 0
            }
            state.entries += 1
            state.bytes += item.bytes
            var evicted: [Item] = []
            while (state.entries > maximumEntries || state.bytes > maximumBytes) && state.entries > 1 {
                guard let oldest = state.popOldest() else { break }
                evicted.append(oldest)
            }
            return evicted
        }
    }

    /// Forgets every exchange of `journal` (cleared, or its session ended). Called under the journal's lock.
    func forget(_ journal: Journal) {
        state.withLock { state in
            for position in state.head..<state.items.count {
                guard let item = state.items[position], item.journal === journal else { continue }
                state.items[position] = nil
                state.entries -= 1
                state.bytes -= item.bytes
            }
        }
    }
}
