import Synchronization

/// The bounds every journal of a daemon shares (`--journal-entries`, `--journal-bytes`): the daemon's own and each
/// session's together never hold more, whatever the number of sessions. Past a bound the oldest exchange of the
/// whole daemon goes first, whichever journal holds it.
///
/// Journals tell the budget what they keep while holding their own lock, and drop what it hands back after letting
/// go of it, so the two locks are only ever taken in one order (a journal's, then the budget's).
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

    /// Counts a newly kept exchange; returns the oldest ones to drop to stay within the bounds (never the newest).
    /// Called by `journal` under its own lock, in the order of its ids.
    func admit(_ item: Item) -> [Item] {
        state.withLock { state in
            state.items.append(item)
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
