import Synchronization

/// A stub inside an index: its ready-to-send responses and its place in the winning order.
public final class IndexedStub: Sendable {
    public let stub: Stub
    /// The first response; the only one unless the stub has a sequence.
    public let response: PreparedResponse
    /// Every response of a sequence, in order; empty for a stub with one response.
    private let sequence: [PreparedResponse]
    /// Requests a sequence answered so far: shared by every event loop, so the order holds across threads, and
    /// handed on to the next index while the stub stays the same.
    let answered: SequenceCounter?
    /// Lower ranks win: explicit priority first, then specificity, then load order.
    public let rank: Rank

    /// Prepares the stub's responses (compressing their bodies once).
    /// - Parameter counter: the count of the same stub in the index this one replaces, to carry on from.
    init(stub: Stub, order: Int, compress: PreparedResponse.Compressor?, counter: SequenceCounter? = nil) {
        self.stub = stub
        let prepared = stub.responses.map { PreparedResponse($0, compress: compress) }
        response = prepared[0]
        sequence = prepared.count > 1 ? prepared : []
        answered = prepared.count > 1 ? counter ?? SequenceCounter() : nil
        rank = Rank(priority: stub.priority ?? Int.max, specificity: stub.request.specificity, order: order)
    }

    /// The same stub, its prepared responses and sequence count shared, at another place in the load order: what
    /// a new index reuses instead of preparing (and compressing) every stub again.
    init(_ other: IndexedStub, order: Int) {
        stub = other.stub
        response = other.response
        sequence = other.sequence
        answered = other.answered
        rank = Rank(priority: other.rank.priority, specificity: other.rank.specificity, order: order)
    }

    /// The response for the next request: for a sequence, the next in order, then the last one again.
    @inline(__always)
    public func nextResponse() -> PreparedResponse {
        guard let answered else { return response }
        let position = answered.value.add(1, ordering: .relaxed).oldValue
        return sequence[max(0, min(position, sequence.count - 1))]
    }

    /// What a sequence is counted against: the same object in every index while the stub and its responses stay
    /// unchanged, a new one when they change (so a count kept elsewhere knows to start over); nil without a sequence.
    public var sequenceToken: (any AnyObject & Sendable)? { answered }

    /// How many responses the stub's sequence has; 1 for a stub without one.
    public var sequenceLength: Int { max(1, sequence.count) }

    /// The response for the request numbered `position` (from 0) of a sequence counted elsewhere (a session's
    /// own count): the response at that place, then the last one again.
    public func response(atSequencePosition position: Int) -> PreparedResponse {
        guard !sequence.isEmpty else { return response }
        return sequence[max(0, min(position, sequence.count - 1))]
    }

    /// The values of the path parameters (`{id}`) in a request this stub answered, for its templates.
    public func parameters(for request: HTTPRequest) -> PathParameters {
        stub.request.pathParameters(request)
    }

    /// Starts a sequence again from its first response.
    public func rewind() {
        answered?.value.store(0, ordering: .relaxed)
    }

    /// The order stubs are tried in when several match ("Which stub wins" in docs/stub-files.md).
    public struct Rank: Sendable, Comparable {
        public let priority: Int
        public let specificity: Int
        public let order: Int

        public static func < (lhs: Rank, rhs: Rank) -> Bool {
            if lhs.priority != rhs.priority { return lhs.priority < rhs.priority }
            if lhs.specificity != rhs.specificity { return lhs.specificity > rhs.specificity }
            return lhs.order < rhs.order
        }
    }
}

/// How far a sequence has got, shared across event loops and across indexes while its stub is unchanged.
final class SequenceCounter: Sendable {
    let value = Atomic<Int>(0)
}
