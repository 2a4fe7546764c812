import Foundation
import OrreryCore

/// A private Orrery inside the daemon: its own stubs over the shared stub files and host map, its own journal,
/// sequence positions and scenario states. The daemon's own traffic (its port, no `X-Orrery-Session`) is a session
/// like any other, one that has no id and no port of its own.
final class Session: Sendable {
    /// Nil for the daemon's own session, which is reached on the daemon's port without a header.
    let id: String?
    let name: String?
    /// The session's own port (0 when it has none), and the listener tag its connections carry.
    let port: Int
    let tag: Int
    let createdAt = Date()
    let journal: Journal
    let scenarios = ScenarioStore()
    let stubs: SessionStubs
    let sequences: SequencePositions
    /// Whether its own port speaks WireMock's admin API (`{"wiremock": true}`) rather than Orrery's.
    let speaksWireMock: Bool
    /// The mappings posted to it through WireMock's admin API, as they were posted.
    let wireMockMappings = WireMockMappings()
    /// `POST /__admin/recordings/start` on its WireMock port: where its misses are forwarded while it records.
    let wireMockRecording = WireMockRecording()

    init(id: String?, name: String?, port: Int, tag: Int, journal: Journal, speaksWireMock: Bool = false) {
        self.id = id
        self.speaksWireMock = speaksWireMock
        self.name = name
        self.port = port
        self.tag = tag
        self.journal = journal
        let sequences = SequencePositions()
        self.sequences = sequences
        stubs = SessionStubs(sequences: sequences)
    }

    // MARK: - Answering

    /// The stub that answers `request` in this session, each stub while its scenario allows.
    func lookup(_ request: HTTPRequest, shared: StubIndex) -> IndexedStub? {
        stubs.lookup(request, shared: shared, scenarioState: { [scenarios] in scenarios.state(of: $0) })
    }

    /// The closest stubs to a miss, the session's own among them.
    func nearMisses(_ request: HTTPRequest, shared: StubIndex) -> [StubIndex.NearMiss] {
        stubs.nearMisses(request, shared: shared, scenarioState: { [scenarios] in scenarios.state(of: $0) })
    }

    /// The response a stub gives now: the next of its sequence (counted in this session), and its scenario moved on.
    func nextResponse(of entry: IndexedStub) -> PreparedResponse {
        if let rule = entry.stub.scenario { scenarios.apply(rule) }
        return sequences.nextResponse(of: entry)
    }

    /// Back to the start: its own stubs gone, sequences at their first response, scenarios in `Started`, the journal
    /// empty.
    func reset() -> (stubsRemoved: Int, requestsCleared: Int) {
        let cleared = journal.counts.kept
        journal.clear()
        scenarios.reset()
        sequences.rewind()
        wireMockMappings.removeAll()
        return (stubs.removeAll(), cleared)
    }
}
