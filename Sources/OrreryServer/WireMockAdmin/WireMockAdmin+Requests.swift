import Foundation
import OrreryCore

/// `/__admin/requests` and `/__admin/near-misses`: the session's journal in WireMock's shapes, for `verify`,
/// `findAll` and the near-miss reports WireMock's clients print when a verification fails.
extension WireMockAdmin {
    /// The posted mapping a journal entry names, for its `stubMapping`.
    func mappingJSON(_ session: Session) -> @Sendable (String) -> JSONValue? {
        { [mappings = session.wireMockMappings] id in mappings.record(id: id)?.json }
    }

    func listRequests(_ request: HTTPRequest, session: Session) -> AdminReply {
        var entries = session.journal.newestFirst()
        let total = entries.count
        if let limit = request.queryValues(named: "limit").last.flatMap(Int.init), limit >= 0 {
            entries = Array(entries.prefix(limit))
        }
        let mapping = mappingJSON(session)
        return .json(
            .object([
                ("requests", .array(entries.map { WireMockShapes.serveEvent($0, mapping: mapping) })),
                ("meta", .object([("total", .int(total))])),
                ("requestJournalDisabled", .bool(!session.journal.limits.isEnabled)),
            ]))
    }

    func request(id: String, session: Session) -> AdminReply {
        guard let number = WireMockShapes.journalID(of: id), let entry = session.journal.entry(id: number) else {
            return WireMockShapes.empty(404)
        }
        return .json(WireMockShapes.serveEvent(entry, mapping: mappingJSON(session)))
    }

    func removeRequest(id: String, session: Session) -> AdminReply {
        if let number = WireMockShapes.journalID(of: id) { session.journal.remove(ids: [number]) }
        return WireMockShapes.emptyObject()
    }

    func clearRequests(session: Session) -> AdminReply {
        api.serviceLogger.clearJournal(of: session)
        return WireMockShapes.empty()
    }

    func countRequests(_ request: HTTPRequest, session: Session) -> AdminReply {
        query(request, session: session) { found in
            .json(.object([("count", .int(found.count)), ("requestJournalDisabled", .bool(false))]))
        }
    }

    func findRequests(_ request: HTTPRequest, session: Session) -> AdminReply {
        query(request, session: session) { found in
            .json(
                .object([
                    ("requests", .array(found.map(WireMockShapes.loggedRequest))),
                    ("requestJournalDisabled", .bool(false)),
                ]))
        }
    }

    /// `POST /__admin/requests/remove`: the entries the pattern matches leave the journal; answered with them.
    func removeRequests(_ request: HTTPRequest, session: Session) -> AdminReply {
        let mapping = mappingJSON(session)
        return query(request, session: session) { [journal = session.journal] found in
            journal.remove(ids: Set(found.map(\.id)))
            return .json(
                .object([("serveEvents", .array(found.map { WireMockShapes.serveEvent($0, mapping: mapping) }))]))
        }
    }

    /// `POST /__admin/requests/remove-by-metadata`: the requests answered by mappings whose metadata the pattern
    /// accepts leave the journal.
    func removeRequestsByMetadata(_ request: HTTPRequest, session: Session) -> AdminReply {
        let pattern: JSONValue
        switch object(request) {
        case .failure(let reply): return reply
        case .success(let json): pattern = json
        }
        let ids = Set(
            session.wireMockMappings.all.filter {
                WireMockMetadataPattern.matches(pattern, $0.json["metadata"] ?? .null)
            }.map(\.id))
        let mapping = mappingJSON(session)
        let removed = session.journal.newestFirst().filter { entry in
            if case .stub(let id, _, _) = entry.outcome { return ids.contains(id) }
            return false
        }
        session.journal.remove(ids: Set(removed.map(\.id)))
        return .json(
            .object([("serveEvents", .array(removed.map { WireMockShapes.serveEvent($0, mapping: mapping) }))]))
    }

    func unmatchedRequests(session: Session) -> AdminReply {
        let unmatched = session.journal.newestFirst().filter(\.isUnmatched)
        return .json(
            .object([
                ("requests", .array(unmatched.map(WireMockShapes.loggedRequest))),
                ("requestJournalDisabled", .bool(false)),
            ]))
    }

    /// `GET /__admin/requests/unmatched/near-misses`: each unmatched request with the stub closest to it.
    func unmatchedNearMisses(session: Session) -> AdminReply {
        let shared = registry.index
        var misses: [JSONValue] = []
        for entry in session.journal.newestFirst() where entry.isUnmatched {
            for closest in closestStubs(to: entry.request, session: session, shared: shared).prefix(3) {
                misses.append(nearMiss(request: WireMockShapes.loggedRequest(entry), closest, session: session))
            }
        }
        return .json(.object([("nearMisses", .array(misses))]))
    }

    /// `POST /__admin/near-misses/request` with a `LoggedRequest`: the stubs closest to it.
    func nearMissesForRequest(_ request: HTTPRequest, session: Session) -> AdminReply {
        let body: JSONValue
        switch object(request) {
        case .failure(let reply): return reply
        case .success(let json): body = json
        }
        let asked = Self.request(from: body)
        let misses = closestStubs(to: asked, session: session, shared: registry.index).prefix(3)
        let nothing = CapturedResponse(status: 0, headers: HTTPHeaders(), body: Payload([UInt8]()), bodySize: 0)
        let logged = WireMockShapes.loggedRequest(
            JournalEntry(
                startedAt: Date(), durationMicroseconds: 0, request: asked, requestBodySize: asked.body.count,
                clientAddress: body["clientIp"]?.stringValue ?? "127.0.0.1", response: nothing,
                outcome: .rejected(reason: "")))
        return .json(.object([("nearMisses", .array(misses.map { nearMiss(request: logged, $0, session: session) }))]))
    }

    /// `POST /__admin/near-misses/request-pattern`: the journaled requests closest to a pattern none of them matched.
    func nearMissesForPattern(_ request: HTTPRequest, session: Session) -> AdminReply {
        let body: JSONValue
        switch object(request) {
        case .failure(let reply): return reply
        case .success(let json): body = json
        }
        let pattern: RequestPattern
        do {
            pattern = try WireMockAdminInput.requestPattern(body)
        } catch {
            return WireMockShapes.errors(422, title: "The request pattern cannot be read", details: error.messages)
        }
        let scored = session.journal.newestFirst().compactMap { entry -> (JournalEntry, Int)? in
            let count = pattern.mismatches(entry.request).count
            return count == 0 ? nil : (entry, count)
        }
        let closest = scored.sorted { $0.1 < $1.1 }.prefix(3)
        return .json(
            .object([
                (
                    "nearMisses",
                    .array(
                        closest.map { entry, count in
                            .object([
                                ("request", WireMockShapes.loggedRequest(entry)), ("requestPattern", body),
                                ("matchResult", .object([("distance", Self.distance(count))])),
                            ])
                        })
                )
            ]))
    }

    /// The stubs closest to a request, every stub the session sees compared (an admin call, not the request path,
    /// whose 404 looks only where the index points): WireMock's near misses include stubs on other paths.
    func closestStubs(to request: HTTPRequest, session: Session, shared: StubIndex) -> [(
        stub: IndexedStub, mismatches: [Mismatch]
    )] {
        let scenarios = session.scenarios
        let compared = session.stubs.visible(shared: shared).prefix(10_000).map { entry in
            var mismatches = entry.stub.request.mismatches(request)
            if let rule = entry.stub.scenario, case let state = scenarios.state(of: rule.name), !rule.allows(state) {
                mismatches.append(
                    Mismatch(field: "scenario", name: rule.name, expected: rule.requiredState ?? "", actual: state))
            }
            return (stub: entry, mismatches: mismatches)
        }
        return compared.filter { !$0.mismatches.isEmpty }.sorted { $0.mismatches.count < $1.mismatches.count }
    }

    /// A near miss as WireMock writes it: the request, the mapping, and how far apart they are.
    private func nearMiss(request: JSONValue, _ miss: (stub: IndexedStub, mismatches: [Mismatch]), session: Session)
        -> JSONValue
    {
        let id = miss.stub.stub.id
        let mapping =
            session.wireMockMappings.record(id: id)?.json
            ?? .object([
                ("id", .string(id)), ("name", .string(miss.stub.stub.name)), ("orrery", miss.stub.stub.definition),
            ])
        return .object([
            ("request", request), ("stubMapping", mapping),
            ("matchResult", .object([("distance", Self.distance(miss.mismatches.count))])),
        ])
    }

    /// WireMock's distance runs from 0 (a match) to 1; Orrery counts the conditions that differed.
    private static func distance(_ differences: Int) -> JSONValue {
        let value = min(1.0, Double(differences) / 10)
        return .number(value, text: String(value))
    }

    /// A request as a `LoggedRequest` describes it (`url`, `method`, `headers`, `body` or `bodyAsBase64`).
    static func request(from logged: JSONValue) -> HTTPRequest {
        var headers = HTTPHeaders()
        for (name, value) in logged["headers"]?.objectMembers ?? [] {
            for item in value.arrayItems ?? [value] { headers.add(name, item.stringValue ?? item.encoded) }
        }
        var body = Array((logged["body"]?.stringValue ?? "").utf8)
        if let encoded = logged["bodyAsBase64"]?.stringValue, let data = Data(base64Encoded: encoded), !data.isEmpty {
            body = Array(data)
        }
        return HTTPRequest(
            method: logged["method"]?.stringValue ?? "GET", target: logged["url"]?.stringValue ?? "/", headers: headers,
            body: body)
    }

    /// Runs a journal query for the body's request pattern a slice per loop turn, then answers with `make`.
    private func query(
        _ request: HTTPRequest, session: Session, make: @escaping @Sendable ([JournalEntry]) -> AdminReply
    ) -> AdminReply {
        let body: JSONValue
        switch object(request) {
        case .failure(let reply): return reply
        case .success(let json): body = json
        }
        do {
            let pattern = try WireMockAdminInput.requestPattern(body)
            return .answer(to: session.journal.query(pattern), with: make)
        } catch {
            return WireMockShapes.errors(422, title: "The request pattern cannot be read", details: error.messages)
        }
    }
}
