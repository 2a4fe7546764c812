import OrreryCore
import Testing

@testable import OrreryServer

/// A sequence and a scenario walked across every admin change, in the daemon's own session and in a session: the
/// same code path for both, and nothing one session does moves another's place.
@Suite("Pipeline: sessions")
struct SessionWalkTests {
    static let files = [
        "walk.yaml": """
            - id: job
              request: { method: GET, path: /job }
              responses:
                - { body: queued }
                - { body: running }
                - { body: done }
            - id: cart-full
              request: { method: GET, path: /cart }
              scenario: checkout
              requiredState: Started
              response: { body: full }
            - id: checkout
              request: { method: POST, path: /cart/checkout }
              scenario: checkout
              newState: paid
              response: { status: 201 }
            - id: cart-empty
              request: { method: GET, path: /cart }
              scenario: checkout
              requiredState: paid
              response: { body: empty }
            - id: users
              request: { method: GET, path: /users }
              response: { body: from file }
            """
    ]

    /// Where the walk runs: the daemon's own session (no header), or one opened for it.
    enum Place: String, CaseIterable, CustomTestStringConvertible {
        case daemon, session
        var testDescription: String { rawValue }
    }

    /// Every admin call that changes a session's stubs, or another session, but not this one's positions.
    static func admin(_ harness: PipelineHarness, session: String?, other: String) throws -> [(String, () throws -> Void)] {
        [
            ("add a stub", {
                let added = try harness.admin(
                    "POST", "/__admin/stubs", json: #"{"id": "extra", "request": {"path": "/extra"}, "response": {}}"#,
                    session: session)
                #expect(added.status == 201)
            }),
            ("replace its own stub", {
                let replaced = try harness.admin(
                    "PUT", "/__admin/stubs/extra", json: #"{"request": {"path": "/extra"}, "response": {"body": "2"}}"#,
                    session: session)
                #expect(replaced.status == 200)
            }),
            ("replace a file stub", {
                let replaced = try harness.admin(
                    "PUT", "/__admin/stubs/users", json: #"{"request": {"path": "/users"}, "response": {"body": "mine"}}"#,
                    session: session)
                #expect(replaced.status == 200)
            }),
            ("remove its own stub", {
                let result = try harness.admin("DELETE", "/__admin/stubs/extra", session: session)
                #expect(result.status == 200)
            }),
            ("remove every API stub", {
                let result = try harness.admin("DELETE", "/__admin/stubs", session: session)
                #expect(result.status == 200)
            }),
            ("reload the files", {
                let result = try harness.admin("POST", "/__admin/stubs/reload", session: session)
                #expect(result.status == 200)
            }),
            ("reset another session", {
                let result = try harness.admin("POST", "/__admin/reset", session: other)
                #expect(result.status == 200)
            }),
            ("walk another session", {
                #expect(harness.answer("/job", session: other).text == "queued")
                #expect(harness.answer("POST", "/cart/checkout", session: other).status == 201)
            }),
        ]
    }

    @Test("a sequence keeps its place across every admin change", arguments: Place.allCases)
    func sequence(place: Place) throws {
        let harness = try PipelineHarness(files: Self.files)
        let other = try harness.openSession().id
        let session = place == .session ? try harness.openSession().id : nil
        #expect(harness.answer("/job", session: session).text == "queued")
        for (change, call) in try Self.admin(harness, session: session, other: other) {
            try call()
            // Each step moves it on by one; after the last answer it stays there.
            let expected = change == "add a stub" ? "running" : "done"
            #expect(harness.answer("/job", session: session).text == expected, "after: \(change)")
        }
        // A reset of this session starts it over.
        #expect(try harness.admin("POST", "/__admin/reset", session: session).status == 200)
        #expect(harness.answer("/job", session: session).text == "queued")
    }

    @Test("a scenario keeps its state across every admin change", arguments: Place.allCases)
    func scenario(place: Place) throws {
        let harness = try PipelineHarness(files: Self.files)
        let other = try harness.openSession().id
        let session = place == .session ? try harness.openSession().id : nil
        #expect(harness.answer("/cart", session: session).text == "full")
        #expect(harness.answer("POST", "/cart/checkout", session: session).status == 201)
        for (change, call) in try Self.admin(harness, session: session, other: other) {
            try call()
            #expect(harness.answer("/cart", session: session).text == "empty", "after: \(change)")
        }
        #expect(try harness.admin("POST", "/__admin/reset", session: session).status == 200)
        #expect(harness.answer("/cart", session: session).text == "full")
    }

    @Test("replacing or removing a file stub acts on that session alone, until its reset", arguments: Place.allCases)
    func fileStubsPerSession(place: Place) throws {
        let harness = try PipelineHarness(files: Self.files)
        let other = try harness.openSession().id
        let session = place == .session ? try harness.openSession().id : nil
        let replaced = try harness.admin(
            "PUT", "/__admin/stubs/users", json: #"{"request": {"path": "/users"}, "response": {"body": "mine"}}"#, session: session)
        #expect(replaced.status == 200)
        #expect(harness.answer("/users", session: session).text == "mine")
        #expect(harness.answer("/users", session: other).text == "from file")
        #expect(try harness.admin("DELETE", "/__admin/stubs/users", session: session).status == 200)
        #expect(harness.answer("/users", session: session).status == 404)
        #expect(try harness.admin("GET", "/__admin/stubs/users", session: session).status == 404)
        #expect(try harness.admin("GET", "/__admin/stubs/users", session: other).status == 200)
        // Gone here, so its id is free here.
        let again = try harness.admin(
            "POST", "/__admin/stubs", json: #"{"id": "users", "request": {"path": "/users"}, "response": {"body": "new"}}"#,
            session: session)
        #expect(again.status == 201)
        #expect(harness.answer("/users", session: session).text == "new")
        #expect(try harness.admin("POST", "/__admin/reset", session: session).status == 200)
        #expect(harness.answer("/users", session: session).text == "from file")
    }

    @Test(
        "an API stub's sequence count goes with it when it is removed or replaced; a file stub's stays",
        arguments: Place.allCases)
    func sequenceCountsGoWithTheirStubs(place: Place) throws {
        let harness = try PipelineHarness(files: Self.files)
        let session = place == .session ? try harness.openSession().id : nil
        let owner = try #require(session.map { harness.sessions.session(id: $0) } ?? harness.sessions.main)
        let positions = owner.sequences
        func sequence(_ id: String) -> String {
            #"{"id": "\#(id)", "request": {"path": "/seq"}, "responses": [{"body": "1"}, {"body": "2"}]}"#
        }
        #expect(harness.answer("/job", session: session).text == "queued")
        #expect(positions.count == 1)
        // Each round's stub has a new id: the count of the one removed before it must not stay behind.
        for round in 0..<3 {
            let added = try harness.admin("POST", "/__admin/stubs", json: sequence("seq-\(round)"), session: session)
            #expect(added.status == 201)
            #expect(harness.answer("/seq", session: session).text == "1")
            #expect(positions.count == 2)
            #expect(try harness.admin("DELETE", "/__admin/stubs/seq-\(round)", session: session).status == 200)
            #expect(positions.count == 1, "round \(round)")
        }
        // Replaced, it starts again, and only the new stub's count is kept.
        #expect(try harness.admin("POST", "/__admin/stubs", json: sequence("kept"), session: session).status == 201)
        #expect(harness.answer("/seq", session: session).text == "1")
        #expect(harness.answer("/seq", session: session).text == "2")
        #expect(try harness.admin("PUT", "/__admin/stubs/kept", json: sequence("kept"), session: session).status == 200)
        #expect(positions.count == 1)
        #expect(harness.answer("/seq", session: session).text == "1")
        #expect(positions.count == 2)
        // Every API stub removed: their counts go, the file stub's stays where it was.
        #expect(try harness.admin("DELETE", "/__admin/stubs", session: session).status == 200)
        #expect(positions.count == 1)
        #expect(harness.answer("/job", session: session).text == "running")
    }

    @Test("an API stub is its session's alone, and 409 only against what that session sees")
    func apiStubs() throws {
        let harness = try PipelineHarness(files: Self.files)
        let a = try harness.openSession().id
        let stub = #"{"id": "only", "request": {"path": "/only"}, "response": {"body": "a"}}"#
        #expect(try harness.admin("POST", "/__admin/stubs", json: stub, session: a).status == 201)
        #expect(try harness.admin("POST", "/__admin/stubs", json: stub, session: a).status == 409)
        #expect(try harness.admin("POST", "/__admin/stubs", json: #"{"id": "job", "request": {}, "response": {}}"#, session: a).status == 409)
        #expect(harness.answer("/only", session: a).text == "a")
        #expect(harness.answer("/only").status == 404)
        #expect(try harness.admin("POST", "/__admin/stubs", json: stub).status == 201)
        #expect(try harness.admin("GET", "/__admin/stubs", session: a).json["count"]?.intValue == 6)
    }

    @Test("a session's port answers for itself alone: sessions cannot be listed, opened, read or ended from it")
    func sessionPortIsConfined() throws {
        let harness = try PipelineHarness(files: Self.files)
        let a = try harness.openSession()
        let b = try harness.openSession()
        for (method, path) in [
            ("GET", "/__admin/sessions"), ("POST", "/__admin/sessions"), ("GET", "/__admin/sessions/\(b.id)"),
            ("DELETE", "/__admin/sessions/\(b.id)"), ("DELETE", "/__admin/sessions/\(a.id)"),
        ] {
            let refused = try harness.admin(method, path, listenerTag: a.tag)
            #expect(refused.status == 403, "\(method) \(path)")
        }
        // A header naming another session is not looked at on a session's port: the port's session answers.
        let stub = #"{"request": {"path": "/b"}, "response": {"body": "b"}}"#
        #expect(try harness.admin("POST", "/__admin/stubs", json: stub, session: b.id).status == 201)
        #expect(harness.answer("/b", session: b.id, listenerTag: a.tag).status == 404)
        #expect(harness.answer("/b", listenerTag: b.tag).text == "b")
        // Its own admin API still answers, and the daemon's port still manages sessions.
        #expect(try harness.admin("GET", "/__admin/health", listenerTag: a.tag).json["session"]?.stringValue == a.id)
        #expect(try harness.admin("GET", "/__admin/sessions").json["count"]?.intValue == 2)
    }
}
