import Foundation
import OrreryEvent
import OrreryServer
import Testing

@Suite("Regex stubs cannot stall the daemon")
struct RegexLiveTests {
    static let files = [
        "stubs/re.yaml": "request: { urlPattern: '^/re/(a+)+$' }\nresponse: { body: nested }\n",
        "stubs/ok.json": #"{"request": {"method": "GET", "path": "/ok"}, "response": {"body": "ok"}}"#,
    ]

    @Test("^/re/(a+)+$ against /re/ and 30,000 'a' and '!' is answered at once, and other requests go on meanwhile")
    func nestedQuantifiers() async throws {
        try await LiveServer.with(files: Self.files, configure: { $0.http.maxURILength = 64 * 1024 }) {
            (server: LiveServer) async throws in
            let run = String(repeating: "a", count: 30_000)
            // One hostile request per event loop, with ordinary ones beside them.
            let requests =
                Array(repeating: ("hostile", "/re/\(run)!"), count: 2) + [("matching", "/re/\(run)")]
                + Array(repeating: ("ok", "/ok"), count: 20)
            let answers = await Self.concurrently(port: server.port, requests)
            #expect(answers.count == requests.count)
            for answer in answers {
                // Each on its own thread, timed from its own start: a frozen loop would hold them to the 5 s timeout.
                #expect(answer.elapsed < .seconds(2), "\(answer.kind) took \(answer.elapsed)")
                switch answer.kind {
                case "hostile": #expect(answer.text.hasPrefix("HTTP/1.1 404 "), "\(answer.text.prefix(120))")
                case "matching": #expect(answer.text.hasPrefix("HTTP/1.1 200 ") && answer.text.hasSuffix("nested"))
                default: #expect(answer.text.hasPrefix("HTTP/1.1 200 ") && answer.text.hasSuffix("ok"))
                }
            }
        }
    }

    struct Answer: Sendable {
        var kind: String
        var text: String
        var elapsed: Duration
    }

    /// Sends each request on a thread of its own (not the test's task pool, which parallel tests keep busy) and
    /// collects the answers.
    static func concurrently(port: Int, _ requests: [(kind: String, path: String)]) async -> [Answer] {
        let answers = AnswerList()
        let group = DispatchGroup()
        for (kind, path) in requests {
            group.enter()
            Thread.detachNewThread {
                let clock = ContinuousClock()
                let start = clock.now
                let text =
                    (try? RawSocket.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                    ?? "no answer"
                answers.append(Answer(kind: kind, text: text, elapsed: clock.now - start))
                group.leave()
            }
        }
        await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
        return answers.all
    }
}

/// Answers collected from several threads.
final class AnswerList: @unchecked Sendable {
    // Guarded by `lock`: each request's thread appends its answer.
    private var answers: [RegexLiveTests.Answer] = []
    private let lock = NSLock()

    func append(_ answer: RegexLiveTests.Answer) {
        lock.withLock { answers.append(answer) }
    }

    var all: [RegexLiveTests.Answer] { lock.withLock { answers } }
}
