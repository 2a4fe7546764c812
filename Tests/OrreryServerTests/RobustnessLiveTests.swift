import Foundation
import OrreryEvent
import OrreryServer
import Testing

@Suite("Bad input and load")
struct RobustnessLiveTests {
    static let stub = #"{"request": {"method": "GET", "path": "/ok"}, "response": {"json": {"ok": true}}}"#

    static let malformed: [String] = [
        "GARBAGE\r\n\r\n",
        "GET\r\n\r\n",
        "GET / HTTP/9.9\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nno colon here\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n",
        "\u{0}\u{1}\u{2}\u{3}\r\n\r\n",
    ]

    @Test("a malformed request gets a JSON 400 and the next good request still works", arguments: malformed)
    func malformedThenGood(_ raw: String) async throws {
        try await LiveServer.with(files: ["stubs/ok.json": Self.stub]) { (server: LiveServer) async throws in
            let answer = try RawSocket.exchange(port: server.port, raw)
            #expect(answer.hasPrefix("HTTP/1.1 400 "), "answer: \(answer.prefix(200))")
            #expect(answer.contains("Content-Type: application/json"))
            #expect(answer.contains("\"recoverySuggestion\""))
            let good = try RawSocket.exchange(port: server.port, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(good.hasPrefix("HTTP/1.1 200 OK"))
            #expect(good.hasSuffix(#"{"ok":true}"#))
        }
    }

    @Test("random bytes never crash the daemon; it answers a good request after each burst")
    func randomInput() async throws {
        try await LiveServer.with(files: ["stubs/ok.json": Self.stub]) { (server: LiveServer) async throws in
            var generator = SeededGenerator(seed: 0x0DDB_A11)
            let prefixes = ["", "GET / HTTP/1.1\r\n", "POST /ok HTTP/1.1\r\nContent-Length: 5\r\n", "GET /ok HTTP/1.1\r\nHost: "]
            for round in 0..<60 {
                let length = Int.random(in: 1...2048, using: &generator)
                let noise = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let prefix = Array(prefixes[round % prefixes.count].utf8)
                // Each burst on its own connection; whatever the daemon answers, it must stay up.
                _ = try RawSocket.exchange(port: server.port, prefix + noise + Array("\r\n\r\n".utf8), timeout: 2)
            }
            let good = try RawSocket.exchange(port: server.port, "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(good.hasPrefix("HTTP/1.1 200 OK"))
        }
    }

    @Test("over-long target, headers and body get 414, 431 and 413 as JSON")
    func sizeLimits() async throws {
        try await LiveServer.with(files: ["stubs/ok.json": Self.stub], configure: { $0.http.maxBodyBytes = 1 << 20 }) {
            (server: LiveServer) async throws in
            let longTarget = try RawSocket.exchange(
                port: server.port, "GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(longTarget.hasPrefix("HTTP/1.1 414 "))
            let bigHeader = try RawSocket.exchange(
                port: server.port, "GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 70_000))\r\n\r\n")
            #expect(bigHeader.hasPrefix("HTTP/1.1 431 "))
            let hugeHeader = try RawSocket.exchange(
                port: server.port, "GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "b", count: 3_000_000))\r\n\r\n")
            #expect(hugeHeader.hasPrefix("HTTP/1.1 431 "))
            let body = String(repeating: "c", count: 2 << 20)
            let bigBody = try RawSocket.exchange(
                port: server.port, "POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            #expect(bigBody.hasPrefix("HTTP/1.1 413 "))
            #expect(bigBody.contains("\"failureReason\""))
            // The daemon lives on.
            #expect(try await server.request("/ok").status == 200)
        }
    }

    @Test("200 concurrent clients all get their answer")
    func concurrentClients() async throws {
        try await LiveServer.with(files: ["stubs/ok.json": Self.stub]) { (server: LiveServer) async throws in
            let url = server.baseURL + "/ok"
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await HTTPClient.request("GET", url).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 200)
            #expect(statuses.allSatisfy { $0 == 200 })
        }
    }

    @Test("keep-alive: several requests on one connection")
    func keepAlive() async throws {
        try await LiveServer.with(files: ["stubs/ok.json": Self.stub]) { (server: LiveServer) async throws in
            let request = "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"
            let answer = try RawSocket.exchange(
                port: server.port, request + request + "GET /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(answer.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 3)
        }
    }
}

/// A small deterministic random number generator (SplitMix64), so a failing input can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
