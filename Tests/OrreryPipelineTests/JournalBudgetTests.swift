import Foundation
import OrreryCore
import Testing

/// `--journal-entries` and `--journal-bytes` bound every session's journal together.
@Suite("Journal: daemon-wide bounds")
struct JournalBudgetTests {
    static func entry(_ path: String) -> JournalEntry {
        JournalEntry(
            startedAt: .distantPast, durationMicroseconds: 0, request: HTTPRequest(method: "GET", target: path),
            requestBodySize: 0, clientAddress: "127.0.0.1",
            response: CapturedResponse(status: 200, headers: [:], body: Payload.empty, limit: 0),
            outcome: .unmatched(closestStubs: .array([])))
    }

    static func limits(entries: Int, bytes: Int = 1 << 30) -> JournalLimits {
        var limits = JournalLimits()
        limits.maximumEntries = entries
        limits.maximumBytes = bytes
        return limits
    }

    @Test("the entry bound holds for all journals together; the daemon's oldest exchange goes first")
    func entries() {
        let limits = Self.limits(entries: 4)
        let budget = JournalBudget(limits)
        let main = Journal(limits: limits, budget: budget)
        let sessions = (0..<3).map { _ in Journal(limits: limits, budget: budget) }
        main.record(Self.entry("/main-1"))
        main.record(Self.entry("/main-2"))
        for (number, journal) in sessions.enumerated() { journal.record(Self.entry("/session-\(number)")) }
        #expect(budget.counts.entries == 4)
        #expect(main.newestFirst().map(\.request.path) == ["/main-2"])
        for _ in 0..<10 { sessions[0].record(Self.entry("/busy")) }
        #expect(budget.counts.entries == 4)
        #expect(main.counts.kept + sessions.map(\.counts.kept).reduce(0, +) == 4)
        #expect(main.counts.kept == 0 && sessions[0].counts.kept == 4)
    }

    @Test("what the first journal kept alone is enrolled when a second joins, oldest first")
    func enrollment() {
        let limits = Self.limits(entries: 3)
        let budget = JournalBudget(limits)
        let main = Journal(limits: limits, budget: budget)
        for number in 1...5 { main.record(Self.entry("/main-\(number)")) }
        #expect(main.newestFirst().map(\.request.path) == ["/main-5", "/main-4", "/main-3"])
        let session = Journal(limits: limits, budget: budget)
        #expect(budget.counts.entries == 3)
        session.record(Self.entry("/session"))
        #expect(main.newestFirst().map(\.request.path) == ["/main-5", "/main-4"])
        #expect(budget.counts.entries == 3)
    }

    @Test("the byte bound holds for all journals together, and a cleared journal gives its share back")
    func bytes() {
        let size = Self.entry("/a").approximateSize
        let limits = Self.limits(entries: 1_000, bytes: size * 3)
        let budget = JournalBudget(limits)
        let a = Journal(limits: limits, budget: budget)
        let b = Journal(limits: limits, budget: budget)
        for _ in 0..<3 { a.record(Self.entry("/a")) }
        b.record(Self.entry("/a"))
        #expect(budget.counts.bytes <= size * 3)
        #expect(a.counts.kept == 2 && b.counts.kept == 1)
        a.clear()
        #expect(budget.counts == (1, b.counts.bytes))
        for _ in 0..<2 { a.record(Self.entry("/a")) }
        #expect(a.counts.kept == 2 && b.counts.kept == 1)
    }
}
