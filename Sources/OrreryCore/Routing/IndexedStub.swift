/// A stub inside an index: its ready-to-send response and its place in the winning order.
public final class IndexedStub: Sendable {
    public let stub: Stub
    public let response: PreparedResponse
    /// Lower ranks win: explicit priority first, then specificity, then load order.
    public let rank: Rank

    init(stub: Stub, response: PreparedResponse, order: Int) {
        self.stub = stub
        self.response = response
        rank = Rank(priority: stub.priority ?? Int.max, specificity: stub.request.specificity, order: order)
    }

    /// The order stubs are tried in when several match (the README's "Which stub wins").
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
