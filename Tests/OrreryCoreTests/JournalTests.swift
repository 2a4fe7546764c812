import Foundation
import Testing

@testable import OrreryCore

@Suite("Journal")
struct JournalTests {
    static func entry(_ target: String, headers: HTTPHeaders = [:], body: String = "", responseBody: String = "ok")
        -> JournalEntry
    {
        JournalEntry(
            startedAt: Date(), durationMicroseconds: 10,
            request: HTTPRequest(method: "GET", target: target, headers: headers, body: Array(body.utf8)),
            requestBodySize: body.utf8.count, clientAddress: "127.0.0.1",
            response: CapturedResponse(status: 200, headers: [:], body: Payload(responseBody), limit: 1 << 20),
            outcome: .unmatched(closestStubs: .array([])))
    }

    @Test("keeps the newest entries up to the count bound, with increasing ids")
    func countBound() {
        var limits = JournalLimits()
        limits.maximumEntries = 3
        let journal = Journal(limits: limits)
        for number in 1...7 { journal.record(Self.entry("/\(number)")) }
        #expect(journal.newestFirst().map(\.request.target) == ["/7", "/6", "/5"])
        #expect(journal.newestFirst().map(\.id) == [7, 6, 5])
        #expect(journal.counts.total == 7)
        #expect(journal.entry(id: 6)?.request.target == "/6")
        #expect(journal.entry(id: 2) == nil)
        journal.clear()
        #expect(journal.newestFirst().isEmpty)
        journal.record(Self.entry("/8"))
        #expect(journal.newestFirst().map(\.id) == [8])
    }

    @Test("removing entries by id keeps the others in order, their ids, and the count bound")
    func removeByID() {
        var limits = JournalLimits()
        limits.maximumEntries = 4
        let journal = Journal(limits: limits)
        for number in 1...6 { journal.record(Self.entry("/\(number)")) }
        #expect(journal.remove(ids: [4, 6, 99]) == 2)
        #expect(journal.newestFirst().map(\.id) == [5, 3])
        #expect(journal.entry(id: 5)?.request.target == "/5")
        for number in 7...9 { journal.record(Self.entry("/\(number)")) }
        #expect(journal.newestFirst().map(\.id) == [9, 8, 7, 5])
        #expect(journal.remove(ids: [5, 7, 8, 9]) == 4)
        #expect(journal.newestFirst().isEmpty && journal.counts.bytes == 0)
        journal.record(Self.entry("/10"))
        #expect(journal.newestFirst().map(\.id) == [10])
    }

    @Test("the byte bound drops the oldest, and the bytes counted go down with them")
    func byteBound() {
        var limits = JournalLimits()
        limits.maximumEntries = 1000
        limits.maximumBytes = 10_000
        let journal = Journal(limits: limits)
        for number in 1...100 { journal.record(Self.entry("/\(number)", responseBody: String(repeating: "x", count: 1000))) }
        let kept = journal.newestFirst()
        #expect(kept.count < 10)
        #expect(kept.first?.request.target == "/100")
        #expect(journal.counts.bytes <= 10_000)
        #expect(journal.counts.bytes == kept.map(\.approximateSize).reduce(0, +))
    }

    @Test("off when the bound is 0: nothing is kept")
    func off() {
        var limits = JournalLimits()
        limits.maximumEntries = 0
        let journal = Journal(limits: limits)
        #expect(journal.record(Self.entry("/a")) == 0)
        #expect(journal.newestFirst().isEmpty)
    }

    @Test("bodies over the limit are cut, their size kept")
    func capture() {
        let captured = CapturedResponse(status: 200, headers: [:], body: Payload(String(repeating: "y", count: 100)), limit: 10)
        #expect(captured.body.count == 10)
        #expect(captured.bodySize == 100)
        #expect(captured.isBodyTruncated)
    }
}

@Suite("Redaction")
struct RedactorTests {
    @Test("sensitive headers become the placeholder, and their values are scrubbed elsewhere")
    func headers() {
        let token = "abcdef123456"
        let entry = JournalTests.entry(
            "/x", headers: ["Authorization": "Bearer \(token)", "Accept": "application/json"],
            responseBody: #"{"seen": "\#(token)"}"#)
        let redacted = Redactor().redact(entry)
        #expect(redacted.request.headers["Authorization"] == Redactor.placeholder)
        #expect(redacted.request.headers["Accept"] == "application/json")
        #expect(redacted.response.body.text == #"{"seen": "[REDACTED]"}"#)
        #expect(redacted.response.bodySize == redacted.response.body.count)
    }

    @Test("cookies: every Cookie pair, the first Set-Cookie pair")
    func cookies() {
        #expect(Redactor.secretParts(of: "a=one111; b=two222", header: "Cookie").contains("two222"))
        let setCookie = Redactor.secretParts(of: "sid=s3cr3t99; Path=/; HttpOnly", header: "Set-Cookie")
        #expect(setCookie.contains("s3cr3t99"))
        #expect(!setCookie.contains("/"))
    }

    @Test("configured query parameters, short values included, and JSON fields keep the rest of the body")
    func queryAndJSON() {
        let entry = JournalTests.entry("/login?key=k1&page=2", body: #"{"user": "ada", "password": "hunter2-long"}"#)
        let redacted = Redactor(queryParameters: ["key"], jsonFields: ["password"]).redact(entry)
        #expect(redacted.request.target == "/login?key=[REDACTED]&page=2")
        #expect(redacted.request.queryValues(named: "page") == ["2"])
        #expect(redacted.request.bodyText == #"{"user": "ada", "password": "[REDACTED]"}"#)
    }

    @Test("scrubbing replaces every occurrence, near misses of the first byte included, and copies nothing otherwise")
    func scrub() {
        let needles = [Array("abcdef".utf8)]
        #expect(Redactor.scrub("aab abcde abcdefabcdef-xabcdefy", needles) == "aab abcde [REDACTED][REDACTED]-x[REDACTED]y")
        #expect(Redactor.scrub("nothing here", needles) == "nothing here")
        #expect(Array("abcde".utf8).withUnsafeBytes { Redactor.scrubbed($0, needles) } == nil)
    }

    @Test("an exchange without secrets is left as it was")
    func untouched() {
        let entry = JournalTests.entry("/plain?q=1", headers: ["Accept": "*/*"], body: "hello")
        let redacted = Redactor(queryParameters: ["key"], jsonFields: ["password"]).redact(entry)
        #expect(redacted.request.target == "/plain?q=1")
        #expect(redacted.request.bodyText == "hello")
        let sameBytes = ObjectIdentifier(redacted.response.body.owner) == ObjectIdentifier(entry.response.body.owner)
        #expect(sameBytes)
    }
}
