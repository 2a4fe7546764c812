/// An immutable set of stubs, indexed for lookup by route (see `StubTable`): the snapshot every event loop reads
/// without a lock while a newer one is published.
public final class StubIndex: Sendable {
    public let table: StubTable

    public typealias NearMiss = StubTable.NearMiss

    /// - Parameters:
    ///   - compress: zlib for response bodies, applied once here rather than per request.
    ///   - previous: the index this one replaces: a sequence whose stub is unchanged carries on where it was.
    public convenience init(_ stubs: [Stub], compress: PreparedResponse.Compressor? = nil, previous: StubIndex? = nil) {
        self.init(entries: Self.prepare(stubs, compress: compress, previous: previous))
    }

    /// Prepared entries for stubs, in load order (an index moves each to its place); a sequence of a stub that
    /// `previous` had with the same responses carries on its count.
    public static func prepare(
        _ stubs: [Stub], compress: PreparedResponse.Compressor?, previous: StubIndex?
    ) -> [IndexedStub] {
        var counters: [String: (responses: [ResponseDefinition], counter: SequenceCounter)] = [:]
        for entry in previous?.stubs ?? [] {
            if let counter = entry.answered { counters[entry.stub.id] = (entry.stub.responses, counter) }
        }
        return stubs.enumerated().map { offset, stub in
            let carried = counters[stub.id].flatMap { $0.responses == stub.responses ? $0.counter : nil }
            return IndexedStub(stub: stub, order: offset, compress: compress, counter: carried)
        }
    }

    /// An index of prepared entries, in load order: an entry not at its place in the order is moved there (its
    /// prepared responses shared, nothing compressed again).
    public init(entries: [IndexedStub]) {
        table = StubTable(entries: entries)
    }

    public var stubs: [IndexedStub] { table.stubs }

    public var count: Int { table.count }

    /// The stub that answers the request, or nil, with every scenario in its first state. A `HEAD` request that no
    /// stub names falls back to `GET` stubs.
    public func lookup(_ request: HTTPRequest) -> IndexedStub? {
        table.lookup(request)
    }

    /// The stub that answers the request, or nil; see `StubTable.lookup(_:scenarioState:hiding:)`.
    public func lookup(
        _ request: HTTPRequest, scenarioState: (String) -> String, hiding hidden: Set<String> = []
    ) -> IndexedStub? {
        table.lookup(request, scenarioState: scenarioState, hiding: hidden)
    }

    /// The stubs closest to a request no stub answered, fewest differences first.
    public func nearMisses(
        _ request: HTTPRequest, limit: Int = 5, scenarioState: (String) -> String = { _ in ScenarioStates.started },
        hiding hidden: Set<String> = []
    ) -> [NearMiss] {
        table.nearMisses(request, limit: limit, scenarioState: scenarioState, hiding: hidden)
    }

    /// `/a/b/c` → `["/a", "/a/b"]`: the proper ancestors, shortest first.
    static func prefixes(of path: String) -> [String] {
        StubTable.prefixes(of: path)
    }

    public func stub(id: String) -> IndexedStub? {
        table.stub(id: id)
    }
}
