/// The tables an index looks stubs up in, as a value: built in one pass from a whole set (`init(entries:)`), or
/// grown one stub at a time (`insert`) at a cost that does not depend on how many it holds, for a session's own
/// stubs added over the admin API.
///
/// Stubs with an exact path sit in a hash table keyed by (method, path): a request only checks the stubs of its own
/// route, so the cost does not grow with the number of stubs. Stubs with a path template (`/users/{id}`) sit in a
/// second table keyed by method, number of segments and the literal path before the first parameter: a request
/// looks up only the prefixes of its own path. Stubs with a pattern (or no URL condition) are checked after, in
/// rank order, and only while they could still beat the best match so far.
public struct StubTable: Sendable {
    public private(set) var stubs: [IndexedStub]
    private var exact: [RouteKey: Candidates]
    private var patterns: [IndexedStub]
    /// Every exact-path stub by path alone, whatever its method: the first place a miss looks for near misses.
    private var byPath: [String: Candidates]
    /// A few stubs under each path prefix (`/api/v1/users` for `/api/v1/users/7`), for misses on an unknown path.
    private var byPrefix: [String: [IndexedStub]]
    /// Path-template stubs by method, segment count and literal prefix.
    private var templates: [TemplateKey: Candidates]
    /// For each segment count (the index), the literal-prefix depths that templates of that count have, ascending:
    /// an array, so that a request's count is looked up without hashing it.
    private var templateDepths: [[Int]]
    /// Whether a template stub accepts any method: without one, a request's probe for them is skipped.
    private var hasAnyMethodTemplate: Bool
    /// The best rank among template stubs: a request whose exact match ranks better never looks at them.
    private var bestTemplateRank: IndexedStub.Rank?
    /// A few template stubs under each literal prefix, for misses.
    private var templatesByPrefix: [String: [IndexedStub]]

    static let stubsKeptPerPrefix = 8

    struct TemplateKey: Hashable {
        /// FNV-1a of the method's bytes (of none for stubs that accept any method): hashing a number is cheaper than
        /// hashing a string on each probe, and a collision only adds candidates that then fail to match.
        var method: UInt64
        var segments: Int
        var depth: Int
        /// FNV-1a of the literal prefix's bytes; a collision only adds a candidate that then fails to match.
        var prefixHash: UInt64

        /// The four fields mixed into one word for the table's hasher: each word it is given costs a round, and
        /// keys that mix alike still compare unequal.
        func hash(into hasher: inout Hasher) {
            hasher.combine(
                prefixHash ^ (method &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(truncatingIfNeeded: segments) << 40)
                    ^ UInt64(truncatingIfNeeded: depth))
        }
    }

    static let hashSeed: UInt64 = 0xcbf2_9ce4_8422_2325

    struct RouteKey: Hashable {
        /// Empty for stubs that accept any method.
        var method: String
        var path: String
    }

    /// Every stub by id, the first loaded when two share one.
    private var byID: [String: IndexedStub]
    /// A bit for each exact path a stub has, at a cheap hash of its bytes: a request whose path's bit is clear has
    /// no exact stub, and skips the two probes of `exact` (each hashing method and path with the table's hasher),
    /// as a request a spec or an upstream answers does. Empty while no stub has an exact path.
    private var exactPathBits: [UInt64]
    /// Set when an exact path is not ASCII: a string compares equal to its canonical equivalents, whose bytes
    /// differ, so the bits cannot rule a path out.
    private var hasNonASCIIExactPath: Bool

    static let exactPathBitCount = 8192

    /// An empty table.
    public init() {
        stubs = []
        exact = [:]
        patterns = []
        byPath = [:]
        byPrefix = [:]
        templates = [:]
        templateDepths = []
        hasAnyMethodTemplate = false
        bestTemplateRank = nil
        templatesByPrefix = [:]
        byID = [:]
        exactPathBits = []
        hasNonASCIIExactPath = false
    }

    /// A table of prepared entries, in load order: an entry not at its place in the order is moved there (its
    /// prepared responses shared, nothing compressed again).
    public init(entries: [IndexedStub]) {
        self.init()
        stubs.reserveCapacity(entries.count)
        // Routes with more than one stub, put in rank order once all are in: sorting each as it grows would cost
        // the square of the largest route.
        var shared: [RouteKey] = []
        var sharedTemplates: [TemplateKey] = []
        for (order, given) in entries.enumerated() {
            let entry = given.rank.order == order ? given : IndexedStub(given, order: order)
            switch place(entry, isSorted: false) {
            case .route(let key): shared.append(key)
            case .template(let key): sharedTemplates.append(key)
            case .pattern, .alone: break
            }
        }
        // Sorted in place: a new dictionary for the few routes that need it would double the largest table.
        for key in shared { exact[key]?.sortByRank() }
        for key in sharedTemplates { templates[key]?.sortByRank() }
        patterns.sort { $0.rank < $1.rank }
    }

    /// Adds one entry after those the table holds (it ranks last on a tie), in time that depends on its own route,
    /// not on the size of the table.
    public mutating func insert(_ given: IndexedStub) {
        let order = (stubs.last?.rank.order ?? -1) + 1
        let entry = given.rank.order == order ? given : IndexedStub(given, order: order)
        if case .pattern = place(entry, isSorted: true) {
            let position = patterns.lastIndex { !(entry.rank < $0.rank) }.map { $0 + 1 } ?? 0
            patterns.insert(entry, at: position)
        }
    }

    /// Where `place` put an entry: on a route or template bucket that now holds two (to sort), with the patterns
    /// (to put in rank order), or alone.
    private enum Placement {
        case route(RouteKey)
        case template(TemplateKey)
        case pattern
        case alone
    }

    /// Files an entry in every table; with `isSorted`, buckets are kept in rank order as it goes in, and a pattern is
    /// left for the caller to insert in order.
    private mutating func place(_ entry: IndexedStub, isSorted: Bool) -> Placement {
        stubs.append(entry)
        if byID[entry.stub.id] == nil { byID[entry.stub.id] = entry }
        if let template = entry.stub.request.url.pathTemplate, !template.isPrefix {
            let key = TemplateKey(
                method: Self.methodHash(entry.stub.request.method ?? ""),
                segments: template.segmentCount,
                depth: template.literalPrefixDepth, prefixHash: StubID.fnv1a(template.literalPrefix.utf8, seed: Self.hashSeed))
            let count = templates[key, default: .none].add(entry, isSorted: isSorted)
            if templateDepths.count <= template.segmentCount {
                templateDepths += Array(repeating: [], count: template.segmentCount + 1 - templateDepths.count)
            }
            if !templateDepths[template.segmentCount].contains(template.literalPrefixDepth) {
                templateDepths[template.segmentCount].append(template.literalPrefixDepth)
                templateDepths[template.segmentCount].sort()
            }
            if entry.stub.request.method == nil { hasAnyMethodTemplate = true }
            bestTemplateRank = min(bestTemplateRank ?? entry.rank, entry.rank)
            if templatesByPrefix[template.literalPrefix, default: []].count < Self.stubsKeptPerPrefix {
                templatesByPrefix[template.literalPrefix, default: []].append(entry)
            }
            return count == 2 && !isSorted ? .template(key) : .alone
        }
        guard let path = entry.stub.request.url.exactPath else {
            if !isSorted { patterns.append(entry) }
            return .pattern
        }
        let key = RouteKey(method: entry.stub.request.method ?? "", path: path)
        let count = exact[key, default: .none].add(entry, isSorted: isSorted)
        if exactPathBits.isEmpty { exactPathBits = Array(repeating: 0, count: Self.exactPathBitCount / 64) }
        if let bit = Self.exactPathBit(path) {
            exactPathBits[bit >> 6] |= 1 << UInt64(bit & 63)
        } else {
            hasNonASCIIExactPath = true
        }
        byPath[path, default: .none].add(entry, isSorted: false)
        for prefix in Self.prefixes(of: path) {
            if byPrefix[prefix, default: []].count < Self.stubsKeptPerPrefix {
                byPrefix[prefix, default: []].append(entry)
            }
        }
        return count == 2 && !isSorted ? .route(key) : .alone
    }

    public var count: Int { stubs.count }

    /// The stubs of one route, best first. Nearly every route has exactly one, kept without an array of its own
    /// (with 100,000 routes, two arrays per route were 10 MB).
    enum Candidates {
        case none
        case one(IndexedStub)
        case many([IndexedStub])

        var all: [IndexedStub] {
            switch self {
            case .none: []
            case .one(let entry): [entry]
            case .many(let entries): entries
            }
        }

        /// Adds an entry, at its place in rank order when `isSorted` (else at the end); returns how many the route
        /// has now.
        @discardableResult
        mutating func add(_ entry: IndexedStub, isSorted: Bool) -> Int {
            switch self {
            case .none: self = .one(entry)
            case .one(let first): self = .many(isSorted && entry.rank < first.rank ? [entry, first] : [first, entry])
            case .many(var entries):
                self = .none  // let go of the array, so that appending does not copy it
                let position = isSorted ? entries.firstIndex { entry.rank < $0.rank } ?? entries.count : entries.count
                entries.insert(entry, at: position)
                self = .many(entries)
            }
            return count
        }

        var count: Int {
            switch self {
            case .none: 0
            case .one: 1
            case .many(let entries): entries.count
            }
        }

        mutating func sortByRank() {
            if case .many(let entries) = self { self = .many(entries.sorted { $0.rank < $1.rank }) }
        }
    }

    /// The stub that answers the request, or nil, with every scenario in its first state. A `HEAD` request that no
    /// stub names falls back to `GET` stubs.
    public func lookup(_ request: HTTPRequest) -> IndexedStub? {
        lookup(request, scenarioState: { _ in ScenarioStates.started })
    }

    /// The stub that answers the request, or nil. A stub with a scenario answers only while `scenarioState` (the
    /// current state of a scenario, by name) is its `requiredState`. A `HEAD` request that no stub names falls back
    /// to `GET` stubs.
    /// Stubs whose id is in `hidden` do not answer (those a session replaced or removed for itself).
    public func lookup(
        _ request: HTTPRequest, scenarioState: (String) -> String, hiding hidden: Set<String> = []
    ) -> IndexedStub? {
        let found = lookup(request, method: request.method, scenarioState: scenarioState, hidden: hidden)
        guard request.method == "HEAD", found?.stub.request.method != "HEAD" else { return found }
        // HEAD is GET without the body: a GET stub that ranks better than a catch-all answers it.
        guard let get = lookup(request, method: "GET", scenarioState: scenarioState, hidden: hidden) else { return found }
        guard let found else { return get }
        return get.rank < found.rank ? get : found
    }

    private func lookup(
        _ request: borrowing HTTPRequest, method: String, scenarioState: (String) -> String, hidden: Set<String>
    ) -> IndexedStub? {
        // No stub could answer (no exact stub has the path, and there are no template or pattern stubs): settled
        // before the body view is made, as for every request a spec or an upstream answers.
        let isExactPossible = mayHaveExactStub(request.path)
        guard isExactPossible || bestTemplateRank != nil || !patterns.isEmpty else { return nil }
        // One view of the body for every stub tried: its JSON and GraphQL are read once per request.
        var trial = Trial(method: method, hidden: hidden, body: RequestBody(request))
        return lookup(request, isExactPossible: isExactPossible, scenarioState: scenarioState, trial: &trial)
    }

    /// What a lookup asks of each stub it tries, beside the request: the request goes from function to function as
    /// a borrowed parameter, never captured by a closure. Captured, or read through a pointer, it was copied (every
    /// field retained, then released) for each stub tried.
    private struct Trial {
        let method: String
        let hidden: Set<String>
        var body: RequestBody

        mutating func answers(
            _ entry: IndexedStub, _ request: borrowing HTTPRequest, _ scenarioState: (String) -> String
        ) -> Bool {
            guard entry.stub.request.matches(request, method: method, body: &body) else { return false }
            if !hidden.isEmpty && hidden.contains(entry.stub.id) { return false }
            guard let rule = entry.stub.scenario else { return true }
            return rule.allows(scenarioState(rule.name))
        }

        /// The first of a route's stubs that answers.
        mutating func first(
            of route: Candidates, answering request: borrowing HTTPRequest, _ scenarioState: (String) -> String
        ) -> IndexedStub? {
            switch route {
            case .none: return nil
            case .one(let entry): return answers(entry, request, scenarioState) ? entry : nil
            case .many(let entries):
                for entry in entries where answers(entry, request, scenarioState) { return entry }
                return nil
            }
        }
    }

    private func lookup(
        _ request: borrowing HTTPRequest, isExactPossible: Bool, scenarioState: (String) -> String, trial: inout Trial
    ) -> IndexedStub? {
        var best: IndexedStub?
        if isExactPossible {
            if let candidates = exact[RouteKey(method: trial.method, path: request.path)] {
                best = trial.first(of: candidates, answering: request, scenarioState)
            }
            if let candidates = exact[RouteKey(method: "", path: request.path)],
                let found = trial.first(of: candidates, answering: request, scenarioState),
                best.map({ found.rank < $0.rank }) ?? true
            {
                best = found
            }
        }
        if let bestTemplateRank, best.map({ bestTemplateRank < $0.rank }) ?? true,
            let found = templateMatch(request, scenarioState: scenarioState, trial: &trial),
            best.map({ found.rank < $0.rank }) ?? true
        {
            best = found
        }
        for candidate in patterns {
            if let best, !(candidate.rank < best.rank) { break }
            if trial.answers(candidate, request, scenarioState) { return candidate }
        }
        return best
    }

    /// Whether a stub may have `path` as its exact path: false only when none has it.
    private func mayHaveExactStub(_ path: String) -> Bool {
        guard !exactPathBits.isEmpty else { return false }
        guard !hasNonASCIIExactPath, let bit = Self.exactPathBit(path) else { return true }
        return exactPathBits[bit >> 6] & (1 << UInt64(bit & 63)) != 0
    }

    /// FNV-1a of a method's bytes with the table's seed, over the bytes in place: over the UTF-8 view, each byte
    /// was an index step.
    static func methodHash(_ method: String) -> UInt64 {
        method.withUTF8Bytes { StubID.fnv1a($0, seed: hashSeed) }
    }

    /// The bit of an ASCII path (FNV-1a of its bytes, its top bits); nil for a path that is not ASCII.
    static func exactPathBit(_ path: String) -> Int? {
        // Over the bytes in place: stepping the UTF-8 view cost more than the hash itself.
        path.withUTF8Bytes { bytes in
            var hash = hashSeed
            var high: UInt8 = 0
            for byte in bytes {
                high |= byte
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            // 8192 bits: the top 13 bits of the hash, its best mixed.
            return high < 0x80 ? Int(truncatingIfNeeded: hash >> 51) : nil
        }
    }

    /// The best template stub that answers: only the buckets of the request's own segment count and path prefixes
    /// are looked at, found in one pass over the path (over its bytes in place: walking a String's UTF-8 view paid
    /// for an index step per byte).
    private func templateMatch(
        _ request: borrowing HTTPRequest, scenarioState: (String) -> String, trial: inout Trial
    ) -> IndexedStub? {
        let path = request.path
        return path.withUTF8Bytes { utf8 in
            var segments = 0
            for byte in utf8 where byte == UInt8(ascii: "/") { segments += 1 }
            guard segments < templateDepths.count, case let depths = templateDepths[segments], let deepest = depths.last
            else { return nil }
            var best: IndexedStub?
            let methodKey = Self.methodHash(trial.method)
            // The request's method, then any method: two probes, no list of keys made per request.
            func probe(_ depth: Int, _ hash: UInt64) {
                probeTemplates(
                    TemplateKey(method: methodKey, segments: segments, depth: depth, prefixHash: hash), request,
                    scenarioState, &trial, &best)
                if hasAnyMethodTemplate {
                    probeTemplates(
                        TemplateKey(method: Self.hashSeed, segments: segments, depth: depth, prefixHash: hash),
                        request, scenarioState, &trial, &best)
                }
            }
            var next = 0
            var hash = Self.hashSeed
            if depths[0] == 0 {
                probe(0, hash)
                next = 1
            }
            var depth = 0
            var isFirst = true
            for byte in utf8 {
                if byte == UInt8(ascii: "/") && !isFirst {
                    depth += 1
                    if depth > deepest { break }
                    if next < depths.count && depths[next] == depth {
                        probe(depth, hash)
                        next += 1
                    }
                }
                isFirst = false
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
            return best
        }
    }

    /// The templates under `key`: the first that answers becomes `best` when it ranks better.
    private func probeTemplates(
        _ key: TemplateKey, _ request: borrowing HTTPRequest, _ scenarioState: (String) -> String,
        _ trial: inout Trial, _ best: inout IndexedStub?
    ) {
        guard let candidates = templates[key],
            let found = trial.first(of: candidates, answering: request, scenarioState),
            best.map({ found.rank < $0.rank }) ?? true
        else { return }
        best = found
    }

    /// One stub that came close to a request, and what differed.
    public struct NearMiss: Sendable {
        public let stub: IndexedStub
        public let mismatches: [Mismatch]
    }

    /// The stubs closest to a request no stub answered, fewest differences first.
    ///
    /// Looks only where the index points: stubs on the same path (any method), then stubs under the nearest shared
    /// path prefix, then a bounded number of pattern stubs. No stub outside those is compared.
    public func nearMisses(
        _ request: HTTPRequest, limit: Int = 5, scenarioState: (String) -> String = { _ in ScenarioStates.started },
        hiding hidden: Set<String> = []
    ) -> [NearMiss] {
        var seen = Set<ObjectIdentifier>()
        var misses: [NearMiss] = []
        var body = RequestBody(request)
        func consider(_ entry: IndexedStub) {
            guard !hidden.contains(entry.stub.id), seen.insert(ObjectIdentifier(entry)).inserted else { return }
            var mismatches = entry.stub.request.mismatches(request, body: &body)
            if let rule = entry.stub.scenario, case let state = scenarioState(rule.name), !rule.allows(state) {
                mismatches.append(
                    Mismatch(field: "scenario", name: rule.name, expected: rule.requiredState ?? "", actual: state))
            }
            misses.append(NearMiss(stub: entry, mismatches: mismatches))
        }
        byPath[request.path]?.all.forEach(consider)
        // Templates under the request's path or one of its prefixes (`/users/{id}` for `/users/7` and `/users`).
        if !templatesByPrefix.isEmpty {
            for prefix in [""] + Self.prefixes(of: request.path) + [request.path] {
                templatesByPrefix[prefix]?.forEach(consider)
            }
        }
        if misses.count < limit {
            for prefix in Self.prefixes(of: request.path).reversed() {
                let entries = (byPath[prefix]?.all ?? []) + (byPrefix[prefix] ?? [])
                guard !entries.isEmpty else { continue }
                entries.forEach(consider)
                break
            }
        }
        // Patterns cannot be found by path, so a bounded number of them is checked in rank order.
        for entry in patterns.prefix(64) { consider(entry) }
        return Array(
            misses.sorted {
                $0.mismatches.count != $1.mismatches.count
                    ? $0.mismatches.count < $1.mismatches.count : $0.stub.rank < $1.stub.rank
            }.prefix(limit))
    }

    /// `/a/b/c` → `["/a", "/a/b"]`: the proper ancestors, shortest first.
    static func prefixes(of path: String) -> [String] {
        // On UTF-8 bytes: this runs for every exact-path stub loaded, and a slash is never part of another character.
        var result: [String] = []
        let utf8 = path.utf8
        guard !utf8.isEmpty else { return result }
        var index = utf8.index(after: utf8.startIndex)
        while let slash = utf8[index...].firstIndex(of: UInt8(ascii: "/")) {
            result.append(String(path[..<slash]))
            index = utf8.index(after: slash)
        }
        return result
    }

    /// The stub with this id, found in one hash lookup.
    public func stub(id: String) -> IndexedStub? {
        byID[id]
    }
}
