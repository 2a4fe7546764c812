import Foundation
import Logging
import OrreryCore

/// `/__admin/sessions`: private Orreries inside the daemon, one per test, each on a port of its own.
extension AdminAPI {
    /// `POST /__admin/sessions`, optionally `{"name": "...", "id": "..."}`: 201 with `{"id", "port", "url"}`. The
    /// id may be chosen by the creator (in the body, or in `X-Orrery-Session`): 400 when it is not 1-64 of
    /// `A-Za-z0-9._-`, 409 when a session has it. With `{"wiremock": true}` the session's port speaks WireMock's
    /// admin API (docs/wiremock.md).
    func openSession(_ request: HTTPRequest) -> AdminReply {
        var name: String?
        var id: String?
        var speaksWireMock = false
        if !request.body.isEmpty {
            guard let body = try? JSONValue.parse(request.body), case .object = body else {
                return .error(.Code400BadRequest, "The body must be empty or JSON such as {\"name\": \"checkout tests\"}.")
            }
            name = body["name"]?.stringValue
            speaksWireMock = body["wiremock"]?.boolValue == true
            if let value = body["id"] {
                guard let text = value.stringValue else {
                    return .error(
                        .Code400BadRequest, "The session's \"id\" must be a string such as \"ci-1234-checkout\".")
                }
                id = text
            }
        }
        if let named = request.headers[SessionRegistry.header] {
            if let id, id != named {
                return .error(
                    .Code400BadRequest,
                    "The body's id '\(id)' and the \(SessionRegistry.header) header's '\(named)' differ; a request that opens a session may name it in either, the same way."
                )
            }
            id = named
        }
        if let id, !SessionRegistry.isValidID(id) {
            return .error(
                .Code400BadRequest,
                "A session id is 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and '-', not '\(id)'.",
                details: [("id", .string(id))])
        }
        do {
            let session = try sessions.create(name: name, id: id, speaksWireMock: speaksWireMock)
            logger.debug("session \(session.id ?? "") opened on port \(session.port)")
            return .json(describe(session), status: 201)
        } catch {
            if case .taken = error {
                return .error(.Code409Conflict, error.description, details: [("id", .string(id ?? ""))])
            }
            return .error(.Code503ServiceUnavailable, error.description)
        }
    }

    func listSessions() -> AdminReply {
        let open = sessions.all
        return .json(.object([("count", .int(open.count)), ("sessions", .array(open.map(describe)))]))
    }

    func session(id: String) -> AdminReply {
        guard let session = sessions.session(id: id) else { return noSuchSession(id) }
        return .json(describe(session))
    }

    /// `DELETE /__admin/sessions/{id}`: its port closes and everything it held goes.
    func closeSession(id: String) -> AdminReply {
        guard let session = sessions.remove(id: id) else { return noSuchSession(id) }
        logger.debug("session \(id) closed")
        return .json(.object([("deleted", .string(id)), ("port", .int(session.port))]))
    }

    private func noSuchSession(_ id: String) -> AdminReply {
        .error(.Code404NotFound, "There is no session '\(id)': it has ended, or was never opened.")
    }

    func describe(_ session: Session) -> JSONValue {
        .object([
            ("id", .string(session.id ?? "")),
            ("name", .string(session.name)),
            ("port", .int(session.port)),
            ("url", .string(sessions.url(of: session))),
            ("createdAt", .string(JournalEntry.timestamp(session.createdAt))),
            ("stubs", .int(session.stubs.count)),
            ("requests", .int(session.journal.counts.kept)),
            ] + (session.speaksWireMock ? [("wiremock", .bool(true))] : []))
    }
}

/// `/__admin/scenarios`: the state machines stubs with `scenario` follow.
extension AdminAPI {
    /// Every scenario the session's stubs name: its state, and the states its stubs require or set.
    func listScenarios(session: Session) -> AdminReply {
        var names: [String] = []
        var states: [String: Set<String>] = [:]
        for entry in visibleStubs(session) {
            guard let rule = entry.stub.scenario else { continue }
            if states[rule.name] == nil { names.append(rule.name) }
            var known = states[rule.name, default: [ScenarioStates.started]]
            if let required = rule.requiredState { known.insert(required) }
            if let new = rule.newState { known.insert(new) }
            states[rule.name] = known
        }
        let list: [JSONValue] = names.map { name in
            .object([
                ("name", .string(name)),
                ("state", .string(session.scenarios.state(of: name))),
                ("possibleStates", .array((states[name] ?? []).sorted().map { .string($0) })),
            ])
        }
        return .json(.object([("scenarios", .array(list))]))
    }

    /// `PUT /__admin/scenarios/{name}` with `{"state": "paid"}`.
    func setScenario(name: String, _ request: HTTPRequest, session: Session) -> AdminReply {
        guard let body = try? JSONValue.parse(request.body), let state = body["state"]?.stringValue, !state.isEmpty else {
            return .error(.Code400BadRequest, "The body must be JSON with a \"state\", such as {\"state\": \"Started\"}.")
        }
        guard visibleStubs(session).contains(where: { $0.stub.scenario?.name == name }) else {
            return .error(.Code404NotFound, "No stub takes part in a scenario named '\(name)'.")
        }
        session.scenarios.set(name, to: state)
        return .json(.object([("name", .string(name)), ("state", .string(state))]))
    }

    /// `POST /__admin/scenarios/reset`: every scenario back in `Started`.
    func resetScenarios(session: Session) -> AdminReply {
        session.scenarios.reset()
        return .json(.object([("reset", .bool(true))]))
    }
}
