import Foundation
import OrreryClient
import OrreryTesting
import XCTest

/// The XCTest base class: a daemon for the class, a session for each method.
final class OrreryTestCaseTests: OrreryTestCase {
    override class var orreryOptions: OrreryDaemon.Options { .init(stubs: "Stubs", threads: 1) }

    /// Adds a stub at `/who` answering `name` and checks that the session answers with it and journals only its own.
    private func useSessionAlone(as name: String) async throws {
        let session = try orrery
        try await stubRequest(.get, path: "/who").andReturn(200).withJSON(["who": .string(name)]).install(
            on: session.client)
        let answer = try await Support.get("/who", at: session.url)
        XCTAssertEqual(answer.status, 200)
        XCTAssertTrue(answer.body.contains("\"\(name)\""), answer.body)
        let count = try await session.client.count(.get, "/who")
        XCTAssertEqual(count, 1)
        let stubs = try await session.client.stubs()
        XCTAssertEqual(stubs.count, 2, "the file stub and this test's own")
    }

    func testFirstMethodHasASessionOfItsOwn() async throws {
        try await useSessionAlone(as: "first")
    }

    func testSecondMethodHasASessionOfItsOwn() async throws {
        try await useSessionAlone(as: "second")
    }

    func testTheSessionIsOnTheClassDaemon() async throws {
        let session = try orrery
        let daemon = try orreryDaemon
        XCTAssertTrue(session.daemon === daemon)
        XCTAssertNotEqual(session.port, daemon.port)
        let open = try await daemon.client.sessions().map(\.id)
        XCTAssertEqual(open, [session.id], "the sessions of earlier methods have ended")
    }
}
