import Foundation
import OrreryClient
import Testing

/// `verify` and `count` against a real journal.
@Suite struct VerificationTests {
    @Test func verifyPassesOnTheExactCount() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let client = daemon.client
        try await stubRequest(.get, "/users/1").andReturn(200).install(on: client)
        _ = try await HTTP.send("GET", "/users/1", to: daemon)

        try await client.verify(.get, "/users/1", count: 1)
        try await client.verify(.get, "/users/1")
        try await client.verify(.post, "/users/1", count: 0)
        try await client.verify(RequestPattern(.any, path: "/users/1"), count: 1)
        #expect(try await client.count(.get, "/users/1") == 1)
        #expect(try await client.count(.get, "/users/2") == 0)
    }

    @Test func aFailedVerificationListsWhatWasReceived() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let client = daemon.client
        try await stubRequest(.get, "/users/1").named("user-1").andReturn(200).install(on: client)
        _ = try await HTTP.send("GET", "/users/1", to: daemon)
        _ = try await HTTP.send("POST", "/users", to: daemon, body: Data("{}".utf8))

        // Inside #require's expansion, the call's line is the macro's.
        let callLine = #line + 1
        let error = try await #require(throws: OrreryClientError.self) {
            try await client.verify(.get, "/users/1", count: 2)
        }
        #expect(error.kind == .verificationFailed)
        // The failure names the call's line, as a compiler names a place.
        #expect(error.callSite?.filePath == #filePath)
        #expect(error.callSite?.line == callLine)
        let lines = error.description.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(#filePath):\(callLine): Expected 2 requests matching GET /users/1, but 1 matched.")
        #expect(lines.dropFirst().first == "Received (all 2, newest first; * matched):")
        #expect(
            lines.contains {
                $0.contains("POST 127.0.0.1:\(daemon.port)/users → 404 (no stub matched)") && !$0.contains("*")
            })
        #expect(
            lines.contains {
                $0.hasPrefix("  * #") && $0.contains("GET 127.0.0.1:\(daemon.port)/users/1 → 200 (stub user-1)")
            })

        let never = try await #require(throws: OrreryClientError.self) {
            try await client.verify(RequestPattern(.post, "/users").withJSON(["name": "Ada"]), count: 1)
        }
        #expect(
            never.description.split(separator: "\n").first?.hasSuffix(
                #": Expected 1 request matching POST /users with {"body":{"json":{"name":"Ada"}}}, but 0 matched."#) == true)
    }

    @Test func anEmptyJournalSaysSo() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let error = try await #require(throws: OrreryClientError.self) {
            try await daemon.client.verify(.get, "/users/1")
        }
        #expect(error.description.contains("The journal is empty"))
    }
}
