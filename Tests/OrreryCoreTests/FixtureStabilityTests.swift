import Foundation
import Testing

@testable import OrreryCore

/// Fixtures that read well in a diff and do not change when the same traffic is recorded again.
@Suite("Fixture files: JSON trees and appends")
struct FixtureStabilityTests {
    static let json: HTTPHeaders = ["Content-Type": "application/json"]

    @Test("A compact JSON body is written as a json: tree, keys in their order, and replays byte for byte")
    func jsonTree() throws {
        let body = #"{"zeta":1,"alpha":[true,null,1.50,"yes","-x",""],"nested":{"empty":{},"list":[],"pair":[[1,2]]},"text":"a: b # c"}"#
        var file = FixtureFile(relativePath: "api.example.com/t.GET.yaml", comment: "test")
        file.add(FixtureFileTests.exchange("GET", "/t", headers: Self.json, body: Array(body.utf8)))
        let (text, _) = file.render()
        #expect(text.contains("json:\n"))
        #expect(!text.contains("body:"))
        #expect(try #require(text.range(of: "zeta")).lowerBound < #require(text.range(of: "alpha")).lowerBound)
        let (folder, index) = try FixtureFileTests.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try #require(index.lookup(.make(target: "/t"))).response.body.bytes == Array(body.utf8))
    }

    @Test("A recorded event stream is written as an events stub with the delays it came with, and loads as one")
    func eventStream() throws {
        let body = Array(
            "id: 0\ndata: tick 0\n\n: keep-alive\n\nevent: score\r\ndata: {\"a\":1}\r\n\r\ndata: 42\n\n".utf8)
        // Three reads: the first event, the comment and the second event, the third.
        let reads = [(end: 20, milliseconds: 300), (end: 65, milliseconds: 650), (end: body.count, milliseconds: 900)]
        let arrivals = EventStreamScript.arrivals(body, reads: reads)
        #expect(arrivals == [300, 650, 900])
        var exchange = FixtureFileTests.exchange(
            "GET", "/events", headers: ["Content-Type": "text/event-stream"], body: body)
        exchange.events = EventStreamScript.parse(body, arrivals: arrivals)
        var file = FixtureFile(relativePath: "api.example.com/events.GET.yaml", comment: "test")
        file.add(exchange)
        let (text, _) = file.render()
        #expect(text.contains("events:\n"))
        #expect(!text.contains("body:"))
        let (folder, index) = try FixtureFileTests.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = try #require(index.lookup(.make(target: "/events"))?.response.events)
        #expect(!script.keepOpen)
        #expect(
            script.events == [
                EventStreamScript.Event(data: "tick 0", id: "0", delayMilliseconds: 300),
                EventStreamScript.Event(event: "score", data: #"{"a":1}"#, delayMilliseconds: 350),
                EventStreamScript.Event(data: "42", delayMilliseconds: 250),
            ])
    }

    @Test("JSON that writing back would change (spaces, no content type) stays text", arguments: [
        (#"{"a": 1}"#, true), (#"{"a":1}"#, false),
    ])
    func jsonKeptAsText(body: String, hasType: Bool) throws {
        var file = FixtureFile(relativePath: "api.example.com/t.GET.yaml", comment: "test")
        file.add(FixtureFileTests.exchange("GET", "/t", headers: hasType ? Self.json : [:], body: Array(body.utf8)))
        let (text, _) = file.render()
        #expect(!text.contains("json:"))
        let (folder, index) = try FixtureFileTests.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        let entry = try #require(index.lookup(.make(target: "/t")))
        #expect(entry.response.body.bytes == Array(body.utf8))
        #expect(entry.response.headers["Content-Type"] == (hasType ? "application/json" : nil))
    }

    @Test("New requests and new answers of the last one are appended: the appended text ends the whole text")
    func appends() {
        var file = FixtureFile(relativePath: "api.example.com/poll.GET.yaml", comment: "test")
        var written = ""
        var rewrites = 0
        for step in 0..<40 {
            let target = step < 30 ? "/poll" : "/poll?page=\(step)"
            file.add(FixtureFileTests.exchange("GET", target, headers: Self.json, body: Array(#"{"n":\#(step)}"#.utf8)))
            if let appended = file.appended, !written.isEmpty {
                written += appended.text
            } else {
                written = file.render().text
                rewrites += 1
            }
            #expect(written == file.render().text)
        }
        // The first file, and the turn of the first answer into a sequence.
        #expect(rewrites == 2)
    }
}

/// The common secret names, injected values and the summary of what was taken out.
@Suite("Redaction: common names and injected values")
struct DefaultRedactionTests {
    static func entry(
        _ target: String, requestHeaders: HTTPHeaders = [:], body: String = "", responseHeaders: HTTPHeaders = [:],
        responseBody: String = "", outcome: JournalEntry.Outcome = .proxied(environment: nil, upstream: "u", error: nil)
    ) -> JournalEntry {
        JournalEntry(
            startedAt: Date(), durationMicroseconds: 1,
            request: HTTPRequest(method: "POST", target: target, headers: requestHeaders, body: Array(body.utf8)),
            requestBodySize: body.utf8.count, clientAddress: "127.0.0.1",
            response: CapturedResponse(status: 200, headers: responseHeaders, body: Payload(responseBody), limit: 1 << 20),
            outcome: outcome)
    }

    @Test("Common names in JSON (short values too), the query and forms, spelt every way")
    func commonNames() {
        var entry = Self.entry(
            "/login?access_token=qt-123456789&page=2", requestHeaders: ["Content-Type": "application/x-www-form-urlencoded"],
            body: "user=ada&password=pw1&API-KEY=k-abcdefgh",
            responseBody: #"{"user":"ada","apiKey":"abc","session":{"refresh_token":"rt-0987654321"},"echo":"qt-123456789"}"#)
        let found = Redactor().redact(&entry)
        #expect(entry.request.target == "/login?access_token=[REDACTED]&page=2")
        #expect(entry.request.bodyText == "user=ada&password=[REDACTED]&API-KEY=[REDACTED]")
        let body = entry.response.body.text
        for secret in ["abc\"", "rt-0987654321", "qt-123456789"] { #expect(!body.contains(secret), "\(body)") }
        #expect(body.contains(#""user":"ada""#))
        #expect(Set(found).isSuperset(of: ["query access_token", "form field password", "JSON field apiKey", "JSON field refresh_token"]))
    }

    @Test("A stub's exchange keeps its fields; the list can be switched off")
    func stubsAndOff() {
        let stub = Self.entry("/x?token=abcdefgh", body: #"{"password":"secret-1"}"#, outcome: .stub(id: "s", name: nil, location: nil))
        #expect(Redactor().redact(stub).request.target == "/x?token=abcdefgh")
        let off = Self.entry("/x?token=abcdefgh", body: #"{"password":"secret-1"}"#)
        let redacted = Redactor(usesCommonNames: false).redact(off)
        #expect(redacted.request.target == "/x?token=abcdefgh")
        #expect(redacted.request.bodyText == #"{"password":"secret-1"}"#)
        #expect(Redactor(queryParameters: ["token"], usesCommonNames: false).redact(off).request.target == "/x?token=[REDACTED]")
    }

    @Test("An injected value echoed by the upstream is scrubbed from forwarded exchanges, in base64 too, and named")
    func injected() {
        let key = "inj-9f8e7d6c5b4a"
        var entry = Self.entry(
            "/echo", responseHeaders: ["X-Seen": key],
            responseBody: #"{"headers":{"x-api-key":"\#(key)"},"b64":"\#(Data(key.utf8).base64EncodedString())"}"#)
        let found = Redactor(injectedSecrets: [.init(header: "X-Api-Key", value: key)]).redact(&entry)
        #expect(entry.response.headers["X-Seen"] == Redactor.placeholder)
        #expect(!entry.response.body.text.contains(key))
        #expect(!entry.response.body.text.contains(Data(key.utf8).base64EncodedString()))
        #expect(found.contains("injected X-Api-Key"))
    }
}
