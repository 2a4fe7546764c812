import OrreryCore
import Testing

@testable import OrreryServer

/// Sessions opened with `{"wiremock": true}`, as request values through `Pipeline.decide`: WireMock's admin API on
/// the session's port, its priorities and insertion order, its miss text; Orrery's admin API on the daemon's port.
@Suite("Pipeline: WireMock sessions")
struct WireMockSessionTests {
    static let files = [
        "shared.yaml": """
        - id: shared
          request: { method: GET, path: /shared }
          response: { body: from file }
        """
    ]

    static func mapping(_ url: String, body: String, priority: Int? = nil, id: String? = nil) -> String {
        let idMember = id.map { #""id": "\#($0)", "# } ?? ""
        let priorityMember = priority.map { #""priority": \#($0), "# } ?? ""
        return
            #"{\#(idMember)\#(priorityMember)"request": {"method": "GET", "url": "\#(url)"}, "response": {"status": 200, "body": "\#(body)"}}"#
    }

    @Test("A mapping posted to the session's port answers there, and GET gives it back as posted with its id")
    func postedMappingAnswers() throws {
        let harness = try PipelineHarness(files: Self.files)
        let session = try harness.openWireMockSession()
        let posted = try harness.admin(
            "POST", "/__admin/mappings", json: Self.mapping("/hello", body: "hi"), listenerTag: session.tag)
        #expect(posted.status == 201)
        let id = try #require(posted.json["id"]?.stringValue)
        #expect(posted.json["uuid"]?.stringValue == id)
        #expect(harness.answer("/hello", listenerTag: session.tag) == (200, "hi"))
        #expect(
            harness.answer("/shared", listenerTag: session.tag) == (200, "from file"), "the files' stubs answer too")
        let read = try harness.admin("GET", "/__admin/mappings/\(id)", listenerTag: session.tag)
        #expect(read.json["request"] == .object([("method", .string("GET")), ("url", .string("/hello"))]))
        let list = try harness.admin("GET", "/__admin/mappings", listenerTag: session.tag)
        #expect(list.json["meta"]?["total"] == .int(1))
    }

    @Test("Priority 1 is the highest, 5 when none is given; among equals the most recently added wins")
    func prioritiesAndInsertionOrder() throws {
        let harness = try PipelineHarness(files: Self.files)
        let session = try harness.openWireMockSession()
        for (body, priority) in [("low", 9), ("high", 2), ("default", nil)] as [(String, Int?)] {
            _ = try harness.admin(
                "POST", "/__admin/mappings", json: Self.mapping("/p", body: body, priority: priority),
                listenerTag: session.tag)
        }
        #expect(harness.answer("/p", listenerTag: session.tag).text == "high")
        _ = try harness.admin(
            "POST", "/__admin/mappings", json: Self.mapping("/p", body: "top", priority: 1), listenerTag: session.tag)
        #expect(harness.answer("/p", listenerTag: session.tag).text == "top")
        for body in ["first", "second"] {
            _ = try harness.admin(
                "POST", "/__admin/mappings", json: Self.mapping("/n", body: body), listenerTag: session.tag)
        }
        #expect(harness.answer("/n", listenerTag: session.tag).text == "second")
        // A posted mapping overrides a file stub for the same request, as a test's own stub should.
        _ = try harness.admin(
            "POST", "/__admin/mappings", json: Self.mapping("/shared", body: "mine"), listenerTag: session.tag)
        #expect(harness.answer("/shared", listenerTag: session.tag).text == "mine")
        #expect(harness.answer("/shared").text == "from file", "the daemon's own session is not changed")
    }

    @Test(
        "An edited mapping keeps its place among equal priorities; one removed with Orrery's API is gone from the list")
    func editKeepsOrder() throws {
        let harness = try PipelineHarness(files: [:])
        let session = try harness.openWireMockSession()
        let first = try harness.admin(
            "POST", "/__admin/mappings", json: Self.mapping("/e", body: "first"), listenerTag: session.tag)
        let second = try harness.admin(
            "POST", "/__admin/mappings", json: Self.mapping("/e", body: "second"), listenerTag: session.tag)
        let firstID = try #require(first.json["id"]?.stringValue)
        let edited = try harness.admin(
            "PUT", "/__admin/mappings/\(firstID)", json: Self.mapping("/e", body: "first, edited"),
            listenerTag: session.tag)
        #expect(edited.status == 200)
        #expect(harness.answer("/e", listenerTag: session.tag).text == "second", "the later mapping still wins")
        let secondID = try #require(second.json["id"]?.stringValue)
        #expect(try harness.admin("DELETE", "/__admin/stubs/\(secondID)", session: session.id).status == 200)
        #expect(harness.answer("/e", listenerTag: session.tag).text == "first, edited")
        #expect(
            try harness.admin("GET", "/__admin/mappings", listenerTag: session.tag).json["meta"]?["total"] == .int(1))
        #expect(harness.answer("/__admin/mappings/\(secondID)", listenerTag: session.tag).status == 404)
    }

    @Test("A miss on a WireMock port is WireMock's text; on the daemon's port, for the same session, Orrery's JSON")
    func missText() throws {
        let harness = try PipelineHarness(files: Self.files)
        let session = try harness.openWireMockSession()
        let miss = harness.answer("/nothing", listenerTag: session.tag)
        #expect(miss.status == 404)
        #expect(miss.text.contains("Request was not matched"))
        let orrery = harness.answer("/nothing", session: session.id)
        #expect(orrery.status == 404 && orrery.text.contains("No stub matches"))
        let stubs = try harness.admin("GET", "/__admin/stubs", session: session.id)
        #expect(stubs.json["count"] != nil, "Orrery's admin API answers on the daemon's port")
    }

    @Test("Sessions do not see each other's mappings, requests or resets")
    func isolation() throws {
        let harness = try PipelineHarness(files: [:])
        let first = try harness.openWireMockSession()
        let second = try harness.openWireMockSession()
        _ = try harness.admin(
            "POST", "/__admin/mappings", json: Self.mapping("/mine", body: "first"), listenerTag: first.tag)
        #expect(harness.answer("/mine", listenerTag: first.tag).text == "first")
        #expect(harness.answer("/mine", listenerTag: second.tag).status == 404)
        #expect(
            try harness.admin("GET", "/__admin/mappings", listenerTag: second.tag).json["meta"]?["total"] == .int(0))
        // Exchanges are journaled by the executor, not by `decide`: the journals are the end-to-end tests' part.
        #expect(harness.answer("POST", "/__admin/reset", listenerTag: second.tag).status == 200)
        #expect(
            harness.answer("/mine", listenerTag: first.tag).text == "first",
            "another session's reset changes nothing here")
    }

    @Test("A mapping Orrery cannot honour is refused with WireMock's errors, naming the JSON path")
    func refusedMapping() throws {
        let harness = try PipelineHarness(files: [:])
        let session = try harness.openWireMockSession()
        let refused = try harness.admin(
            "POST", "/__admin/mappings", json: #"{"request": {"bad": 1}, "response": {"status": 200}}"#,
            listenerTag: session.tag)
        #expect(refused.status == 422)
        let error = try #require(refused.json["errors"]?.arrayItems?.first)
        #expect(error["source"]?["pointer"] == .string("/request/bad"))
        #expect(
            try harness.admin("GET", "/__admin/mappings", listenerTag: session.tag).json["meta"]?["total"] == .int(0))
    }

    @Test("Scenarios, reset and removal in WireMock's shapes")
    func scenariosAndReset() throws {
        let harness = try PipelineHarness(files: [:])
        let session = try harness.openWireMockSession()
        let one =
            #"{"scenarioName": "flow", "requiredScenarioState": "Started", "newScenarioState": "two", "request": {"method": "GET", "url": "/s"}, "response": {"body": "one"}}"#
        let two =
            #"{"scenarioName": "flow", "requiredScenarioState": "two", "request": {"method": "GET", "url": "/s"}, "response": {"body": "two"}}"#
        let added = try harness.admin("POST", "/__admin/mappings", json: one, listenerTag: session.tag)
        _ = try harness.admin("POST", "/__admin/mappings", json: two, listenerTag: session.tag)
        #expect(harness.answer("/s", listenerTag: session.tag).text == "one")
        let scenarios = try harness.admin("GET", "/__admin/scenarios", listenerTag: session.tag)
        let flow = try #require(scenarios.json["scenarios"]?.arrayItems?.first)
        #expect(flow["name"] == .string("flow") && flow["state"] == .string("two"))
        #expect(flow["mappings"]?.arrayItems?.count == 2)
        #expect(
            try harness.admin(
                "PUT", "/__admin/scenarios/flow/state", json: #"{"state": "Started"}"#, listenerTag: session.tag
            ).status == 200)
        #expect(harness.answer("/s", listenerTag: session.tag).text == "one")
        #expect(
            try harness.admin("PUT", "/__admin/scenarios/none/state", json: "{}", listenerTag: session.tag).status
                == 404)
        let id = try #require(added.json["id"]?.stringValue)
        #expect(try harness.admin("DELETE", "/__admin/mappings/\(id)", listenerTag: session.tag).status == 200)
        #expect(harness.answer("POST", "/__admin/reset", listenerTag: session.tag).status == 200)
        #expect(
            try harness.admin("GET", "/__admin/mappings", listenerTag: session.tag).json["meta"]?["total"] == .int(0))
        #expect(
            try harness.admin("GET", "/__admin/requests", listenerTag: session.tag).json["meta"]?["total"] == .int(0))
    }

    @Test("Metadata patterns: matchesJsonPath with and without a condition, equalToJson")
    func metadataPatterns() throws {
        let metadata = try JSONValue.parse(#"{"team": "payments", "tags": ["a", "b"], "owner": {"name": "ada"}}"#)
        #expect(WireMockMetadataPattern.matches(try JSONValue.parse(#"{"matchesJsonPath": "$.team"}"#), metadata))
        #expect(!WireMockMetadataPattern.matches(try JSONValue.parse(#"{"matchesJsonPath": "$.nothing"}"#), metadata))
        #expect(
            WireMockMetadataPattern.matches(
                try JSONValue.parse(#"{"matchesJsonPath": {"expression": "$.tags[1]", "equalTo": "b"}}"#), metadata))
        #expect(
            WireMockMetadataPattern.matches(
                try JSONValue.parse(#"{"matchesJsonPath": {"expression": "$.owner.name", "matches": "a.a"}}"#), metadata
            ))
        #expect(
            !WireMockMetadataPattern.matches(
                try JSONValue.parse(#"{"matchesJsonPath": {"expression": "$.team", "contains": "x"}}"#), metadata))
        #expect(
            WireMockMetadataPattern.matches(
                try JSONValue.parse(#"{"equalToJson": {"team": "payments"}, "ignoreExtraElements": true}"#), metadata))
        #expect(
            !WireMockMetadataPattern.matches(try JSONValue.parse(#"{"equalToJson": {"team": "payments"}}"#), metadata))
    }

    @Test("Journal ids read back from the UUIDs WireMock's clients are given")
    func journalIDs() {
        let uuid = WireMockShapes.uuid(ofJournalID: 4711)
        #expect(uuid.count == 36)
        #expect(WireMockShapes.journalID(of: uuid) == 4711)
        #expect(WireMockShapes.journalID(of: "8c2a7d0e-54a3-4b57-9d0a-4a4f3b0c1a01") == nil)
    }
}
