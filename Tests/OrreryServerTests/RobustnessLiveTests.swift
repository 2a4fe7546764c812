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
