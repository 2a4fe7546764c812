import Synchronization

/// How much the journal keeps. Every bound holds at all times: the oldest entries go first.
public struct JournalLimits: Sendable, Equatable {
    /// Entries kept; 0 turns the journal off.
    public var maximumEntries = 10_000
    /// Bytes the kept entries may hold (bodies, headers, a fixed share per entry).
    public var maximumBytes = 64 * 1024 * 1024
    /// Bytes of each request and response body captured; the rest is counted, not kept.
    public var maximumBodyBytes = 64 * 1024

    public init() {}

    public var isEnabled: Bool { maximumEntries > 0 && maximumBytes > 0 }
}

/// The request journal: the newest exchanges, bounded by count and bytes, shared by every event loop.
///
/// Appending takes a lock for a few pointer moves; entries are built and redacted before, outside it. A journal with a
/// `JournalBudget` leaves the count and byte bounds to it: they then hold for all the journals that share it.
public final class Journal: Sendable {
    public let limits: JournalLimits
    /// The bounds shared with the daemon's other journals; nil when this journal's own limits bound it alone.
    public let budget: JournalBudget?
    private let storage: Mutex<Storage>

    /// A ring of slots: `count` entries from `head` (the oldest) on, wrapping around. It grows up to the count
    /// bound, then the newest entry takes the oldest one's slot; dropping the oldest for the byte bound just moves
    /// `head`. Every operation on the request path is O(1).
    private struct Storage {
        var slots: [Kept?] = []
        var head = 0
        var count = 0
        var bytes = 0
        var nextID = 1
        /// Exchanges ever recorded, evicted ones included.
        var total = 0

        func slotIndex(_ position: Int) -> Int { (head + position) % slots.count }

        /// Adds the entry; returns the one it evicted, for the caller to free outside the lock.
        mutating func append(_ kept: Kept, capacity: Int) -> Kept? {
            if count < slots.count {
                slots[slotIndex(count)] = kept
                count += 1
                return nil
            } else if slots.count < capacity {
                if head != 0 {
                    // Full below the bound after byte evictions: put the ring in order before growing it.
                    slots = (0..<count).map { slots[slotIndex($0)] }
                    head = 0
                }
                slots.append(kept)
                count += 1
                return nil
            } else {
                let evicted = slots[head].take()
                bytes -= evicted?.entry.recordedSize ?? 0
                slots[head] = kept
                head = (head + 1) % slots.count
                return evicted
            }
        }

        mutating func dropOldest() -> Kept? {
            let evicted = slots[head].take()
            bytes -= evicted?.entry.recordedSize ?? 0
            head = (head + 1) % slots.count
            count -= 1
            return evicted
        }

        /// Oldest to newest.
        var ordered: [JournalEntry] { (0..<count).compactMap { slots[slotIndex($0)]?.entry } }
    }

    /// An entry on the heap, so that the ring moves a pointer per exchange rather than the entry's dozen fields.
    /// Made around the entry as it is built (`Kept(capture())`), it is never copied on the way in. Its id is set
    /// under the journal's lock, before any reader can see it; nothing changes it after.
    public final class Kept: @unchecked Sendable {
        public internal(set) var entry: JournalEntry

        public init(_ entry: consuming JournalEntry) {
            self.entry = entry
        }

        /// Builds the entry in place: `prepare` changes it where it stays (cutting bodies, redacting).
        public init(_ entry: consuming JournalEntry, preparing prepare: (inout JournalEntry) -> Void) {
            // Prepared before it is stored: where this is inlined into another module, `&self.entry` is a read and a
            // write of the whole entry through its accessors, a copy of its dozen fields.
            var entry = entry
            prepare(&entry)
            self.entry = entry
        }
    }

    public init(limits: JournalLimits, budget: JournalBudget? = nil) {
        self.limits = limits
        self.budget = budget
        storage = Mutex(Storage())
        budget?.join(self)
    }

    /// Hands what this journal kept on its own to its budget, now that another journal shares it.
    func enrollInBudget() {
        storage.withLock { storage in
            var items: [JournalBudget.Item] = []
            items.reserveCapacity(storage.count)
            for position in 0..<storage.count {
                guard let kept = storage.slots[storage.slotIndex(position)] else { continue }
                items.append(JournalBudget.Item(journal: self, id: kept.entry.id, bytes: kept.entry.recordedSize))
            }
            budget?.enroll(items)
        }
    }

    /// Adds an exchange, evicting the oldest ones past a bound; returns its id (0 when the journal is off).
    @discardableResult
    public func record(_ entry: consuming JournalEntry) -> Int {
        record(Kept(entry))
    }

    /// Adds an exchange already on the heap; see `record(_:)`.
    @discardableResult
    public func record(_ kept: Kept) -> Int {
        guard limits.isEnabled else { return 0 }
        kept.entry.recordedSize = kept.entry.approximateSize
        // Evicted entries are freed after the lock is let go: freeing their bodies and headers takes a while.
        var evicted: Kept?
        var evictedForBytes: [Kept] = []
        var overBudget: [JournalBudget.Item] = []
        let id = storage.withLock { storage in
            let id = storage.nextID
            kept.entry.id = id
            storage.nextID += 1
            storage.total += 1
            storage.bytes += kept.entry.recordedSize
            // Checked under this lock: a budget that becomes shared does so under it (see `enrollInBudget`).
            guard let budget, budget.isInUse else {
                evicted = storage.append(kept, capacity: limits.maximumEntries)
                // Over the byte bound: drop the oldest until it holds (the newest always stays).
                while storage.bytes > limits.maximumBytes && storage.count > 1 {
                    if let oldest = storage.dropOldest() { evictedForBytes.append(oldest) }
                }
                return id
            }
            // The budget's bound is never above this journal's own, so the ring need not bound itself.
            evicted = storage.append(kept, capacity: Int.max)
            overBudget = budget.admit(JournalBudget.Item(journal: self, id: id, bytes: kept.entry.recordedSize))
            return id
        }
        // Dropped after this lock is let go: the oldest may be another journal's.
        for item in overBudget { item.journal.dropOldest(through: item.id) }
        _ = consume evicted
        _ = consume evictedForBytes
        return id
    }

    /// Drops the oldest entries up to the one numbered `id`, which the budget chose to evict (a later one of this
    /// journal, if another thread dropped that one first, then counts for it).
    private func dropOldest(through id: Int) {
        var evicted: [Kept] = []
        storage.withLock { storage in
            while storage.count > 0, let oldest = storage.slots[storage.head]?.entry.id, oldest <= id {
                if let dropped = storage.dropOldest() { evicted.append(dropped) }
            }
        }
        _ = consume evicted
    }

    /// The kept entries, newest first.
    public func newestFirst() -> [JournalEntry] {
        storage.withLock { $0.ordered.reversed() }
    }

    public func entry(id: Int) -> JournalEntry? {
        storage.withLock { storage in
            // Ids increase along the ring, so the position follows from the oldest id.
            guard storage.count > 0, let oldest = storage.slots[storage.head]?.entry.id, id >= oldest,
                let newest = storage.slots[storage.slotIndex(storage.count - 1)]?.entry.id, id <= newest
            else { return nil }
            // Without removals the ids run without gaps along the ring; after one (`remove(ids:)`), look for it.
            let candidate = id - oldest < storage.count ? storage.slots[storage.slotIndex(id - oldest)]?.entry : nil
            return candidate?.id == id ? candidate : storage.ordered.first { $0.id == id }
        }
    }

    /// How many entries are kept, how many bytes they hold, and how many exchanges were ever recorded.
    public var counts: (kept: Int, bytes: Int, total: Int) {
        storage.withLock { ($0.count, $0.bytes, $0.total) }
    }

    public func clear() {
        storage.withLock { storage in
            budget?.forget(self)
            storage.slots = []
            storage.head = 0
            storage.count = 0
            storage.bytes = 0
        }
    }

    /// Removes the entries with these ids (WireMock's `DELETE /__admin/requests/{id}` and `requests/remove`);
    /// returns how many went. The ring is rebuilt in order, the rest keeping their ids. A shared budget still counts
    /// the removed ones until it evicts past them, which only makes it evict sooner.
    @discardableResult
    public func remove(ids: Set<Int>) -> Int {
        guard !ids.isEmpty else { return 0 }
        var removed: [Kept] = []
        storage.withLock { storage in
            var kept: [Kept?] = []
            kept.reserveCapacity(storage.count)
            for position in 0..<storage.count {
                guard let item = storage.slots[storage.slotIndex(position)] else { continue }
                if ids.contains(item.entry.id) {
                    removed.append(item)
                    storage.bytes -= item.entry.recordedSize
                } else {
                    kept.append(item)
                }
            }
            guard !removed.isEmpty else { return }
            storage.count = kept.count
            storage.head = 0
            storage.slots = kept
        }
        return removed.count
    }

    /// The kept entries whose request `pattern` matches, newest first.
    public func find(_ pattern: RequestPattern) -> [JournalEntry] {
        var query = query(pattern)
        return query.run()
    }
}
