import Foundation
import Logging
import OrreryCore

/// `/__admin/mappings`: WireMock's stub mappings, converted as `--wiremock-root` files are and added as the
/// session's own stubs; what was posted is kept to be read back.
extension WireMockAdmin {
    func listMappings(_ request: HTTPRequest, session: Session) -> AdminReply {
        var records = current(session).map(\.json)
        let total = records.count
        if let offset = request.queryValues(named: "offset").last.flatMap(Int.init), offset > 0 {
            records = Array(records.dropFirst(offset))
        }
        if let limit = request.queryValues(named: "limit").last.flatMap(Int.init), limit >= 0 {
            records = Array(records.prefix(limit))
        }
        return Self.mappingList(records, total: total)
    }

    static func mappingList(_ mappings: [JSONValue], total: Int? = nil) -> AdminReply {
        .json(.object([("mappings", .array(mappings)), ("meta", .object([("total", .int(total ?? mappings.count))]))]))
    }

    /// `POST /__admin/mappings`: 201 with the mapping as posted, its `id` and `uuid` set. A mapping with the id of
    /// one the session has replaces it, as in WireMock.
    func addMapping(_ request: HTTPRequest, session: Session) -> AdminReply {
        switch object(request) {
        case .failure(let reply): return reply
        case .success(let json):
            switch put(json, id: nil, session: session) {
            case .refused(let reply): return reply
            case .added(let record): return .json(record.json, status: 201)
            }
        }
    }

    func mapping(id: String, session: Session) -> AdminReply {
        guard let record = session.wireMockMappings.record(id: id), isServed(id, session) else {
            return WireMockShapes.empty(404)
        }
        return .json(record.json)
    }

    /// The posted mappings the session still serves: one removed with Orrery's own API on the daemon's port
    /// (`DELETE /__admin/stubs/{id}` with `X-Orrery-Session`) is gone here too.
    func current(_ session: Session) -> [WireMockMappings.Record] {
        let shared = registry.index
        return session.wireMockMappings.all.filter { session.stubs.stub(id: $0.id, shared: shared) != nil }
    }

    private func isServed(_ id: String, _ session: Session) -> Bool {
        session.stubs.stub(id: id, shared: registry.index) != nil
    }

    func editMapping(id: String, _ request: HTTPRequest, session: Session) -> AdminReply {
        guard session.wireMockMappings.record(id: id) != nil else { return WireMockShapes.empty(404) }
        switch object(request) {
        case .failure(let reply): return reply
        case .success(let json):
            switch put(json, id: id, session: session) {
            case .refused(let reply): return reply
            case .added(let record): return .json(record.json)
            }
        }
    }

    func removeMapping(id: String, session: Session) -> AdminReply {
        guard session.wireMockMappings.remove(id: id) != nil else { return WireMockShapes.empty(404) }
        _ = session.stubs.remove(id: id, shared: registry.index)
        return .json(.object([]))
    }

    /// `DELETE /__admin/mappings` and `POST /__admin/mappings/reset`: every posted mapping goes; the files'
    /// mappings stay, as WireMock's reset leaves those on disk.
    func removeMappings(session: Session) -> AdminReply {
        _ = session.stubs.removeAll()
        session.wireMockMappings.removeAll()
        return WireMockShapes.empty()
    }

    /// `POST /__admin/mappings/import`: `{"mappings": [...], "importOptions": {"duplicatePolicy", "deleteAllNotInImport"}}`.
    /// Every mapping is converted first: one that cannot be served refuses the whole import, nothing added.
    func importMappings(_ request: HTTPRequest, session: Session) -> AdminReply {
        let body: JSONValue
        switch object(request) {
        case .failure(let reply): return reply
        case .success(let json): body = json
        }
        guard let items = body["mappings"]?.arrayItems else {
            return WireMockShapes.errors(
                422, title: "Error parsing JSON", details: ["'mappings' must be a list of mappings."])
        }
        let options = body["importOptions"]
        let overwrites = options?["duplicatePolicy"]?.stringValue != "IGNORE"
        if options?["deleteAllNotInImport"]?.boolValue == true { _ = removeMappings(session: session) }
        // Checked before anything is added: an import is taken whole or not at all.
        for (index, item) in items.enumerated() {
            let id = item["id"]?.stringValue ?? item["uuid"]?.stringValue ?? UUID().uuidString.lowercased()
            do {
                _ = try WireMockAdminInput.mapping(item, id: id, bodyFiles: bodyFiles, priority: { $0 })
            } catch {
                return WireMockShapes.errors(
                    422, title: "The mapping at $.mappings[\(index)] cannot be served; nothing was imported",
                    details: error.messages)
            }
        }
        for item in items {
            let id = item["id"]?.stringValue ?? item["uuid"]?.stringValue
            if let id, !overwrites, session.wireMockMappings.record(id: id) != nil { continue }
            if case .refused(let reply) = put(item, id: id, session: session) { return reply }
        }
        return WireMockShapes.empty()
    }

    /// `POST /__admin/mappings/remove`: the mapping with the body's id, else those whose request is the body's.
    func removeMatching(_ request: HTTPRequest, session: Session) -> AdminReply {
        let body: JSONValue
        switch object(request) {
        case .failure(let reply): return reply
        case .success(let json): body = json
        }
        if let id = body["id"]?.stringValue ?? body["uuid"]?.stringValue {
            return removeMapping(id: id, session: session)
        }
        let wanted = body["request"]?.encoded
        for record in current(session) where record.json["request"]?.encoded == wanted {
            _ = removeMapping(id: record.id, session: session)
        }
        return WireMockShapes.empty()
    }

    /// `POST /__admin/mappings/find-by-metadata` (and `remove-by-metadata`): the mappings whose `metadata` the body's
    /// pattern (`matchesJsonPath`, `equalToJson`) accepts.
    func findByMetadata(_ request: HTTPRequest, session: Session, removing: Bool) -> AdminReply {
        let pattern: JSONValue
        switch object(request) {
        case .failure(let reply): return reply
        case .success(let json): pattern = json
        }
        guard WireMockMetadataPattern.isSupported(pattern) else {
            return WireMockShapes.errors(
                422, title: "Unsupported metadata pattern",
                details: [
                    "Use matchesJsonPath (an expression, or {expression, equalTo/contains/matches}) or equalToJson."
                ])
        }
        let found = current(session).filter { record in
            WireMockMetadataPattern.matches(pattern, record.json["metadata"] ?? .null)
        }
        guard removing else { return Self.mappingList(found.map(\.json)) }
        for record in found { _ = removeMapping(id: record.id, session: session) }
        return WireMockShapes.emptyObject()
    }

    /// Converts and adds (or replaces) one mapping; `id` nil takes the mapping's own, else a new one.
    func put(_ json: JSONValue, id given: String?, session: Session) -> PutOutcome {
        let id = given ?? json["id"]?.stringValue ?? json["uuid"]?.stringValue ?? UUID().uuidString.lowercased()
        guard UUID(uuidString: id) != nil else {
            return .refused(
                WireMockShapes.errors(422, title: "Error parsing JSON", details: ["'\(id)' is not a UUID."]))
        }
        // An edited mapping keeps its place among equal priorities, as in WireMock.
        let insertion = session.wireMockMappings.record(id: id)?.insertion ?? session.wireMockMappings.nextInsertion()
        let converted: WireMockAdminInput.ConvertedMapping
        do {
            converted = try WireMockAdminInput.mapping(json, id: id, bodyFiles: bodyFiles) { priority in
                WireMockMappings.nativePriority(wireMock: priority, insertion: insertion)
            }
        } catch {
            return .refused(
                WireMockShapes.errors(
                    422, title: "The mapping cannot be served by Orrery", details: error.messages,
                    pointers: error.pointers))
        }
        for difference in converted.differences {
            api.logger.warning("WireMock mapping \(id): \(difference)")
        }
        guard let prepared = registry.prepareAdded(converted.stub) else {
            return .refused(WireMockShapes.errors(500, title: "The mapping could not be prepared"))
        }
        let shared = registry.index
        if session.stubs.stub(id: id, shared: shared) != nil {
            _ = session.stubs.replace(prepared, shared: shared)
        } else if !session.stubs.add(prepared, shared: shared) {
            return .refused(WireMockShapes.errors(409, title: "A mapping with id \(id) was added at the same time"))
        }
        let record = WireMockMappings.Record(
            id: id, json: json.setting("uuid", .string(id)).setting("id", .string(id)),
            priority: converted.wireMockPriority,
            insertion: insertion)
        session.wireMockMappings.put(record)
        return .added(record)
    }

    /// What `put` did: the mapping added, or the answer that says why not.
    enum PutOutcome {
        case added(WireMockMappings.Record)
        case refused(AdminReply)
    }
}
