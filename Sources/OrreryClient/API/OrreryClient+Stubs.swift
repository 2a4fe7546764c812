import Foundation

extension OrreryClient {
    /// `GET /__admin/health`: the daemon's status, version and counts.
    public func health() async throws -> Health {
        try await send(Call("GET", "health"))
    }

    /// `GET /__admin/stubs`: every stub served, from files and added over the API.
    public func stubs() async throws -> [StubMapping] {
        try await send(Call("GET", "stubs"), as: StubList.self).stubs
    }

    /// `GET /__admin/stubs/{id}`: one stub.
    public func stub(id: String) async throws -> StubMapping {
        try await send(Call("GET", "stubs", id))
    }

    /// `POST /__admin/stubs`: adds a stub and returns its id. Added stubs outlive reloads; `reset()` and
    /// `removeAPIStubs()` remove them. A stub whose id is in use is a 409 `daemonError`.
    @discardableResult
    public func addStub(_ stub: some StubConvertible) async throws -> String {
        let definition = stub.stubDefinition
        guard definition.problems.isEmpty else { throw OrreryClientError.invalidStub(definition.problems) }
        return try await addStub(json: definition.json)
    }

    /// `POST /__admin/stubs` with a stub written in the stub-file format, for keys the DSL has no method for.
    @discardableResult
    public func addStub(json: JSON) async throws -> String {
        try await send(Call("POST", "stubs", body: json), as: StubMapping.self).id
    }

    /// `PUT /__admin/stubs/{id}`: replaces a stub (one from a file stays replaced until the next reload).
    @discardableResult
    public func replaceStub(id: String, with stub: some StubConvertible) async throws -> StubMapping {
        let definition = stub.stubDefinition
        guard definition.problems.isEmpty else { throw OrreryClientError.invalidStub(definition.problems) }
        return try await replaceStub(id: id, json: definition.json)
    }

    /// `PUT /__admin/stubs/{id}` with a stub written in the stub-file format.
    @discardableResult
    public func replaceStub(id: String, json: JSON) async throws -> StubMapping {
        try await send(Call("PUT", "stubs", id, body: json))
    }

    /// `DELETE /__admin/stubs/{id}`: removes one stub.
    public func removeStub(id: String) async throws {
        _ = try await perform(Call("DELETE", "stubs", id))
    }

    /// `DELETE /__admin/stubs`: removes every stub added over the API; stubs from files stay.
    @discardableResult
    public func removeAPIStubs() async throws -> RemovedStubs {
        try await send(Call("DELETE", "stubs"))
    }

    /// `POST /__admin/stubs/reload`: reads the stub files again. When they do not load, the running stubs stay and
    /// the error (a 422) lists every problem with its file and line.
    @discardableResult
    public func reloadStubs() async throws -> ReloadedStubs {
        try await send(Call("POST", "stubs", "reload"))
    }

    /// `POST /__admin/stubs/rewind`: starts every response sequence over.
    public func rewindSequences() async throws {
        _ = try await perform(Call("POST", "stubs", "rewind"))
    }

    /// `POST /__admin/reset`: back to the start: stubs added over the API gone, stub files read again, journal
    /// empty, sequences (and, where the daemon has them, scenarios) at their start.
    @discardableResult
    public func reset() async throws -> ResetSummary {
        try await send(Call("POST", "reset"))
    }
}

/// `GET /__admin/stubs`.
struct StubList: Decodable {
    let stubs: [StubMapping]
}
