import Foundation
import OrreryCore
import OrreryEvent
import Synchronization

/// Scenarios, reset, settings, health, version, shutdown and recordings, in WireMock's shapes.
extension WireMockAdmin {
    /// `GET /__admin/scenarios`: each scenario the session's stubs take part in, its state, the states its stubs
    /// name, and its posted mappings.
    func listScenarios(session: Session) -> AdminReply {
        var names: [String] = []
        var states: [String: [String]] = [:]
        var mappings: [String: [JSONValue]] = [:]
        for entry in api.visibleStubs(session) {
            guard let rule = entry.stub.scenario else { continue }
            if states[rule.name] == nil {
                names.append(rule.name)
                states[rule.name] = []
            }
            for state in [rule.newState, rule.requiredState, ScenarioStates.started].compactMap({ $0 })
            where states[rule.name]?.contains(state) == false {
                states[rule.name]?.append(state)
            }
            if let json = session.wireMockMappings.record(id: entry.stub.id)?.json {
                mappings[rule.name, default: []].append(json)
            }
        }
        let list: [JSONValue] = names.map { name in
            .object([
                ("id", .string(name)), ("name", .string(name)), ("state", .string(session.scenarios.state(of: name))),
                ("possibleStates", .array((states[name] ?? []).map { .string($0) })),
                ("mappings", .array(mappings[name] ?? [])),
            ])
        }
        return .json(.object([("scenarios", .array(list))]))
    }

    func resetScenarios(session: Session) -> AdminReply {
        session.scenarios.reset()
        return WireMockShapes.emptyObject()
    }

    /// `PUT /__admin/scenarios/{name}/state` with `{"state": "..."}` (no body: back to `Started`).
    func setScenarioState(name: String, _ request: HTTPRequest, session: Session) -> AdminReply {
        guard api.visibleStubs(session).contains(where: { $0.stub.scenario?.name == name }) else {
            return WireMockShapes.errors(404, title: "Scenario \(name) does not exist")
        }
        let body = try? JSONValue.parse(request.body)
        session.scenarios.set(name, to: body?["state"]?.stringValue ?? ScenarioStates.started)
        return WireMockShapes.emptyObject()
    }

    /// `POST /__admin/reset`: posted mappings gone, journal cleared, scenarios in `Started`; the files' stubs stay.
    func reset(session: Session) -> AdminReply {
        _ = api.reset(session: session, readsFiles: false)
        return WireMockShapes.empty()
    }

    func settings(session: Session) -> AdminReply {
        .json(.object([("settings", session.wireMockMappings.settings.withLock { $0 })]))
    }

    /// `POST /__admin/settings`: kept and read back; Orrery does not apply a global `fixedDelay` or
    /// `delayDistribution` (see docs/wiremock.md).
    func updateSettings(_ request: HTTPRequest, session: Session) -> AdminReply {
        switch object(request) {
        case .failure(let reply): return reply
        case .success(let json):
            let settings = json["settings"] ?? json
            session.wireMockMappings.settings.withLock { $0 = settings }
            // WireMock answers with nothing; the Python client reads the answer as JSON, so the settings it set.
            return .json(settings)
        }
    }

    /// WireMock 3's `GET /__admin/health`.
    func health() -> AdminReply {
        .json(
            .object([
                ("status", .string("healthy")), ("message", .string("Wiremock is ok")),
                ("version", .string(OrreryVersion.current)),
                ("uptimeInSeconds", .int(Int(Date().timeIntervalSince(startedAt)))),
                ("timestamp", .string(WireMockShapes.dateString(Date()))),
            ]))
    }

    /// `POST /__admin/shutdown`: answered, then the session ends (its port closes); on `--wiremock-port`, the
    /// daemon stops as on SIGTERM.
    func shutDown(session: Session) -> AdminReply {
        .streamed { [shutdown] responder in
            responder.send(WireMockShapes.empty().response.encoded)
            // After the answer has gone out: ending the session closes the connection it is written on.
            responder.after(milliseconds: 20) { shutdown(session) }
        }
    }

    // MARK: - Recordings

    /// Orrery records what its host map forwards (`POST /__admin/recordings/start` on the daemon's port); a
    /// WireMock recording to a `targetBaseUrl` is not taken, and says so.
    func startRecording(_ request: HTTPRequest) -> AdminReply {
        WireMockShapes.errors(
            422, title: "Recording to a targetBaseUrl is not supported",
            details: [
                "Orrery forwards to the upstreams of its host map (config/hosts.json): send the traffic through this port with a host map, then POST /__admin/recordings/snapshot turns the forwarded exchanges into mappings; or record fixture files with POST /__admin/recordings/start on the daemon's own port."
            ])
    }

    func stopRecording(session: Session) -> AdminReply {
        snapshot(nil, session: session)
    }

    func recordingStatus() -> AdminReply {
        .json(.object([("status", .string(api.serviceLogger.recorder.isRecording ? "Recording" : "NeverStarted"))]))
    }

    /// `POST /__admin/recordings/snapshot`: the forwarded exchanges of the session's journal as mappings, added to
    /// the session unless `"persist": false`; answered with them.
    func snapshot(_ request: HTTPRequest?, session: Session) -> AdminReply {
        let options = request.flatMap { try? JSONValue.parse($0.body) }
        let persists = options?["persist"]?.boolValue ?? true
        var made: [JSONValue] = []
        var seen = Set<String>()
        for entry in session.journal.newestFirst().reversed() {
            guard case .proxied(_, _, nil) = entry.outcome else { continue }
            let key = entry.request.method + " " + entry.request.pathAndQuery
            guard seen.insert(key).inserted else { continue }
            let body = entry.response.body.withUnsafeBytes { Array($0) }
            var response: [(String, JSONValue)] = [("status", .int(entry.response.status))]
            if !body.isEmpty {
                if let text = String(validating: body, as: UTF8.self) {
                    response.append(("body", .string(text)))
                } else {
                    response.append(("base64Body", .string(Data(body).base64EncodedString())))
                }
            }
            let headers = entry.response.headers.entries.filter {
                !["content-length", "transfer-encoding", "connection", "date"].contains($0.name.lowercased())
            }
            if !headers.isEmpty {
                var kept = HTTPHeaders()
                for (name, value) in headers { kept.add(name, value) }
                response.append(("headers", WireMockShapes.headers(kept)))
            }
            let id = UUID().uuidString.lowercased()
            let mapping: JSONValue = .object([
                ("id", .string(id)),
                (
                    "request",
                    .object([("url", .string(entry.request.pathAndQuery)), ("method", .string(entry.request.method))])
                ),
                ("response", .object(response)), ("uuid", .string(id)),
            ])
            if persists {
                if case .refused(let reply) = put(mapping, id: id, session: session) { return reply }
            }
            made.append(mapping)
        }
        return .json(.object([("mappings", .array(made))]))
    }
}
