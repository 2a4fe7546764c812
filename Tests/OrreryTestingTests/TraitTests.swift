import Foundation
import OrreryClient
import Testing

@testable import OrreryTesting

/// The trait on a suite: one daemon for the suite, a session for each test, nothing shared between sessions but the
/// daemon's file stubs.
@Suite(.orrery(stubs: "Stubs"))
struct TraitTests {
    /// Adds a stub at `/who` answering `name`, calls it `times` times at the session's URL, and checks that every
    /// answer and the journal are this session's own.
    static func useSessionAlone(as name: String, times: Int = 3) async throws {
        let client = try Orrery.client
        try await stubRequest(.get, path: "/who").andReturn(.code200OK).withJSON(["who": .string(name)])
            .install(on: client)
        for _ in 0..<times {
            let answer = try await Support.get("/who", at: Orrery.url)
            #expect(answer.status == 200)
            #expect(answer.body.contains("\"\(name)\""), "session \(name) got \(answer.body)")
        }
        #expect(try await client.count(.get, "/who") == times)
        #expect(try await client.stubs().count == 2, "the file stub and this session's own")
    }

    @Test(arguments: ["ada", "grace", "edsger", "barbara", "alan", "margaret"])
    func eachTestCaseHasASessionOfItsOwn(name: String) async throws {
        try await Self.useSessionAlone(as: name)
        #expect(try Orrery.daemon === Orrery.suiteDaemon, "every test uses the suite's daemon")
    }

    @Test func sessionsInParallelOnOneDaemonSeeOnlyTheirOwnStubsAndRequests() async throws {
        // Eight scopes at once, through the trait's own code for a test: whatever the runner's parallelism, these
        // overlap.
        let trait = OrreryTrait(options: try Orrery.daemon.options)
        let test = try #require(Test.current)
        let sessions = Locked<[String: Int32?]>([:])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await trait.provideScope(for: test, testCase: Test.Case.current) {
                        let session = try Orrery.session
                        sessions.update { $0[session.id] = session.daemon.pid }
                        try await Self.useSessionAlone(as: "parallel-\(index)", times: 5)
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = sessions.value
        #expect(seen.count == 8, "eight distinct sessions")
        #expect(Set(seen.values) == [try Orrery.daemon.pid], "all on the suite's daemon")
    }

    @Test func aFailedVerifyIsReportedAtItsCallNotAtTheTest() async throws {
        let trait = OrreryTrait(options: try Orrery.daemon.options)
        let test = try #require(Test.current)
        let callLine = #line + 4
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: Test.Case.current) {
                // Never called: the verification fails, here.
                try await Orrery.client.verify(.get, "/never-called")
            }
        } matching: { issue in
            issue.sourceLocation?.line == callLine && issue.sourceLocation?.fileID == #fileID
                && "\(issue)".contains("Expected 1 request matching GET /never-called")
        }
    }

    @Test func theFileStubsAreSeenByEverySession() async throws {
        let hello = try await Support.get("/hello", at: Orrery.url)
        #expect(hello.status == 200)
        #expect(hello.body.contains("world"))
        #expect(try await Orrery.client.count(.get, "/hello") == 1)
    }

    @Test func aSessionEndsWithItsTest() async throws {
        let trait = OrreryTrait(options: try Orrery.daemon.options)
        let test = try #require(Test.current)
        let ended = Locked<OrreryTestSession?>(nil)
        try await trait.provideScope(for: test, testCase: Test.Case.current) {
            let current = Orrery.current
            ended.update { $0 = current }
        }
        let session = try #require(ended.value)
        let open = try await Orrery.daemon.client.sessions().map(\.id)
        #expect(!open.contains(session.id))
        #expect(open.contains(try Orrery.session.id), "this test's own session is still open")
        await #expect(throws: (any Error).self, "its port is closed") {
            _ = try await Support.get("/hello", at: session.url)
        }
    }

    @Test func aDetachedTaskHasNoSessionAndSaysWhy() async throws {
        let error = await Task.detached { () -> OrreryTestingError? in
            do {
                _ = try Orrery.client
                return nil
            } catch {
                return error as? OrreryTestingError
            }
        }.value
        #expect(error?.kind == .noScope)
        #expect(error?.description.contains("Task.detached") == true)
        #expect(try Orrery.client.baseURL == Orrery.url, "the test itself has one")
    }
}
