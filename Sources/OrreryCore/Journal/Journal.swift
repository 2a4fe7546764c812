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
/// Appending takes a lock for a few pointer moves; entries are built and redacted before, outside it.
public final class Journal: Sendable {
    public let limits: JournalLimits
    private let storage: Mutex<Storage>

    /// A ring of slots: `count` entries from `head` (the oldest) on, wrapping around. It grows up to the count
    /// bound, then the newest entry takes the oldest one's slot; dropping the oldest for the byte bound just moves
    /// `head`. Every operation on the request path is O(1).
    private struct Storage {
        var slots: [JournalEntry?] = []
        var head = 0
        var count = 0
        var bytes = 0
        var nextID = 1
        /// Exchanges ever recorded, evicted ones included.
        var total = 0

        func slotIndex(_ position: Int) -> Int { (head + position) % slots.count }

        /// Adds the entry; returns the one it evicted, for the caller to free outside the lock.
        mutating func append(_ entry: consuming JournalEntry, capacity: Int) -> JournalEntry? {
            if count < slots.count {
                slots[slotIndex(count)] = entry
                count += 1
                return nil
            } else if slots.count < capacity {
                if head != 0 {
                    // Full below the bound after byte evictions: put the ring in order before growing it.
                    slots = (0..<count).map { slots[slotIndex($0)] }
                    head = 0
                }
                slots.append(entry)
                count += 1
                return nil
            } else {
                let evicted = slots[head].take()
                bytes -= evicted?.recordedSize ?? 0
                slots[head] = entry
                head = (head + 1) % slots.count
                return evicted
            }
        }

        mutating func dropOldest() -> JournalEntry? {
            let evicted = slots[head].take()
            bytes -= evicted?.recordedSize ?? 0
            head = (head + 1) % slots.count
            count -= 1
            return evicted
        }

        /// Oldest to newest.
        var ordered: [JournalEntry] { (0..<count).compactMap { slots[slotIndex($0)] } }
    }

    public init(limits: JournalLimits) {
        self.limits = limits
        storage = Mutex(Storage())
    }

    /// Adds an exchange, evicting the oldest ones past a bound; returns its id (0 when the journal is off).
    @discardableResult
    public func record(_ entry: consuming JournalEntry) -> Int {
        guard limits.isEnabled else { return 0 }
        let size = entry.approximateSize
        entry.recordedSize = size
        // Moved into the ring through an optional, so that the entry is never copied.
        var pending: JournalEntry? = consume entry
        // Evicted entries are freed after the lock is let go: freeing their bodies and headers takes a while.
        var evicted: JournalEntry?
        var evictedForBytes: [JournalEntry] = []
        let id = storage.withLock { storage in
            guard var next = pending.take() else { return 0 }
            let id = storage.nextID
            next.id = id
            storage.nextID += 1
            storage.total += 1
            storage.bytes += size
            evicted = storage.append(consume next, capacity: limits.maximumEntries)
            // Over the byte bound: drop the oldest until it holds (the newest always stays).
            while storage.bytes > limits.maximumBytes && storage.count > 1 {
                if let oldest = storage.dropOldest() { evictedForBytes.append(oldest) }
            }
            return id
        }
        _ = consume evicted
        _ = consume evictedForBytes
        return id
    }

    /// The kept entries, newest first.
    public func newestFirst() -> [JournalEntry] {
        storage.withLock { $0.ordered.reversed() }
    }

    public func entry(id: Int) -> JournalEntry? {
        storage.withLock { storage in
            // Ids increase along the ring, so the position follows from the oldest id.
            guard storage.count > 0, let oldest = storage.slots[storage.head]?.id, id >= oldest, id - oldest < storage.count
            else { return nil }
            let candidate = storage.slots[storage.slotIndex(id - oldest)]
            return candidate?.id == id ? candidate : storage.ordered.first { $0.id == id }
        }
    }

    /// How many entries are kept, how many bytes they hold, and how many exchanges were ever recorded.
    public var counts: (kept: Int, bytes: Int, total: Int) {
        storage.withLock { ($0.count, $0.bytes, $0.total) }
    }

    public func clear() {
        storage.withLock { storage in
            storage.slots = []
            storage.head = 0
            storage.count = 0
            storage.bytes = 0
        }
    }

    /// The kept entries whose request `pattern` matches, newest first.
    public func find(_ pattern: RequestPattern) -> [JournalEntry] {
        newestFirst().filter { pattern.matches($0.request) }
    }
}
