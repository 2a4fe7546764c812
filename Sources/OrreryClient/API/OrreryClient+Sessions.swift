extension OrreryClient {
    /// `POST /__admin/sessions`: opens an Orrery session, a private Orrery with its own port, API stubs, journal and
    /// scenarios. Use it with `inSession(session.id)` or at `session.url`.
    public func createSession(name: String? = nil) async throws -> OrrerySession {
        try await send(Call("POST", "sessions", body: name.map { ["name": .string($0)] } ?? .object([])))
    }

    /// `POST /__admin/sessions` with `{"id": id}`: opens a session under an id chosen by the caller (1 to 64 of
    /// `A-Za-z0-9._-`), as a fleet behind a proxy that routes by `X-Orrery-Session` needs; a client made with
    /// `session: id` also names it in that header, so the creation reaches the replica that will hold it.
    public func createSession(id: String, name: String? = nil) async throws -> OrrerySession {
        var body: [(key: String, value: JSON)] = [("id", .string(id))]
        if let name { body.append(("name", .string(name))) }
        return try await send(Call("POST", "sessions", body: .object(body)))
    }

    /// `GET /__admin/sessions`: the sessions open.
    public func sessions() async throws -> [OrrerySession] {
        try await send(Call("GET", "sessions"), as: SessionList.self).sessions
    }

    /// `DELETE /__admin/sessions/{id}`: ends a session and closes its port.
    public func endSession(id: String) async throws {
        _ = try await perform(Call("DELETE", "sessions", id))
    }

    /// `GET /__admin/scenarios`: every scenario and the state it is in.
    public func scenarios() async throws -> [Scenario] {
        try await send(Call("GET", "scenarios"), as: ScenarioList.self).scenarios
    }

    /// `PUT /__admin/scenarios/{name}` `{"state": ...}`: moves a scenario to a state.
    public func setScenario(_ name: String, state: String) async throws {
        _ = try await perform(Call("PUT", "scenarios", name, body: ["state": .string(state)]))
    }

    /// `POST /__admin/scenarios/reset`: every scenario back to `Started`.
    public func resetScenarios() async throws {
        _ = try await perform(Call("POST", "scenarios", "reset"))
    }
}
