/// A search of the journal (`count`, `find`) done a slice at a time.
///
/// Matching one entry is bounded by the regex work budget, but a journal holds thousands: a heavy pattern over all
/// of them at once held an event loop for seconds. The caller advances the query a few milliseconds at a time and
/// lets the loop serve others between slices.
public struct JournalQuery: Sendable {
    public let pattern: RequestPattern
    /// The entries as they were when the query began, newest first: later exchanges are not part of the answer.
    private let entries: [JournalEntry]
    private var position = 0
    /// The entries matched so far, newest first.
    public private(set) var found: [JournalEntry] = []

    /// How long one slice may run: short enough that other clients of the loop do not notice.
    public static let sliceMilliseconds = 2

    public init(_ pattern: RequestPattern, over entries: [JournalEntry]) {
        self.pattern = pattern
        self.entries = entries
    }

    public var isDone: Bool { position >= entries.count }

    /// Matches entries for about `milliseconds` (at least one entry); whether the query is done.
    public mutating func advance(forMilliseconds milliseconds: Int = sliceMilliseconds) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(milliseconds))
        while position < entries.count {
            let entry = entries[position]
            if pattern.matches(entry.request) { found.append(entry) }
            position += 1
            if clock.now >= deadline { break }
        }
        return isDone
    }

    /// The whole query at once, for callers that hold no event loop.
    public mutating func run() -> [JournalEntry] {
        while position < entries.count {
            if pattern.matches(entries[position].request) { found.append(entries[position]) }
            position += 1
        }
        return found
    }
}

extension Journal {
    /// A query over the entries kept now, to be advanced a slice at a time.
    public func query(_ pattern: RequestPattern) -> JournalQuery {
        JournalQuery(pattern, over: newestFirst())
    }
}
