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
            let port = server.port
            let run = String(repeating: "a", count: 30_000)
            let clock = ContinuousClock()
            let started = clock.now
            let answers = try await withThrowingTaskGroup(of: (String, String).self) { group in
                // One hostile request per event loop, with ordinary ones beside them.
                for _ in 0..<2 {
                    group.addTask {
                        ("hostile", try RawSocket.exchange(port: port, "GET /re/\(run)! HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                    }
                }
                group.addTask {
                    ("matching", try RawSocket.exchange(port: port, "GET /re/\(run) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                }
                for _ in 0..<20 {
                    group.addTask {
                        ("ok", try RawSocket.exchange(port: port, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                    }
                }
                var answers: [(String, String)] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
            let elapsed = clock.now - started
            #expect(elapsed < .seconds(3), "took \(elapsed)")
            for (kind, answer) in answers {
                switch kind {
                case "hostile": #expect(answer.hasPrefix("HTTP/1.1 404 "), "\(answer.prefix(120))")
                case "matching": #expect(answer.hasPrefix("HTTP/1.1 200 ") && answer.hasSuffix("nested"), "\(answer.prefix(120))")
                default: #expect(answer.hasPrefix("HTTP/1.1 200 ") && answer.hasSuffix("ok"), "\(answer.prefix(120))")
                }
            }
            #expect(answers.count == 23)
        }
    }
}
