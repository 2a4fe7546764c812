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

    /// `POST /__admin/recordings/start`: from now on, what no mapping of the session answers on this port is
    /// forwarded to `targetBaseUrl`, and `recordings/stop` makes mappings of those exchanges. Options Orrery does not
    /// honour are refused by name rather than ignored.
    func startRecording(_ request: HTTPRequest, session: Session) -> AdminReply {
        guard let options = try? JSONValue.parse(request.body), case .object(let members) = options else {
            return WireMockShapes.errors(
                422, title: "The recording specification must be a JSON object",
                details: [#"send {"targetBaseUrl": "http://host:port"}"#])
        }
        let honoured = ["targetBaseUrl", "persist"]
        // A client may send the options it does not set as null: only a value asks for something.
        let asked = members.filter { if case .null = $0.1 { false } else { true } }
        if let other = asked.first(where: { !honoured.contains($0.0) }) {
            return WireMockShapes.errors(
                422, title: "Recording option '\(other.0)' is not supported",
                details: [
                    "Orrery records with targetBaseUrl and persist only; the option would change what is recorded"
                ],
                pointers: ["/\(other.0)"])
        }
        guard let url = options["targetBaseUrl"]?.stringValue else {
            return WireMockShapes.errors(
                422, title: "targetBaseUrl is required",
                details: [
                    "Orrery records by forwarding this port's misses to targetBaseUrl; to turn exchanges forwarded by the host map into mappings, POST /__admin/recordings/snapshot"
                ],
                pointers: ["/targetBaseUrl"])
        }
        guard let target = ProxyTarget(baseURL: url) else {
            return WireMockShapes.errors(
                422, title: "targetBaseUrl must be an http:// or https:// URL with a host, not '\(url)'",
                pointers: ["/targetBaseUrl"])
        }
        let persists = options["persist"]?.boolValue ?? true
        session.wireMockRecording.start(WireMockRecording.Run(target: target, startedAt: Date(), persists: persists))
        return WireMockShapes.emptyObject()
    }

    /// `POST /__admin/recordings/stop`: the exchanges forwarded since `start` as mappings, added unless the
    /// recording was started with `"persist": false`.
    func stopRecording(session: Session) -> AdminReply {
        guard let run = session.wireMockRecording.stop() else {
            return WireMockShapes.errors(400, title: "Not currently recording.")
        }
        return mappings(fromForwardedSince: run.startedAt, persists: run.persists, session: session)
    }

    /// `GET /__admin/recordings/status`: the session's recording; `Recording` too while the daemon records fixtures.
    func recordingStatus(session: Session) -> AdminReply {
        var status = session.wireMockRecording.status
        if status == .neverStarted, api.serviceLogger.recorder.isRecording { status = .recording }
        return .json(.object([("status", .string(status.rawValue))]))
    }

    /// `POST /__admin/recordings/snapshot`: the forwarded exchanges of the session's journal as mappings, added to
    /// the session unless `"persist": false`; answered with them.
    func snapshot(_ request: HTTPRequest?, session: Session) -> AdminReply {
        let options = request.flatMap { try? JSONValue.parse($0.body) }
        let persists = options?["persist"]?.boolValue ?? true
        return mappings(fromForwardedSince: nil, persists: persists, session: session)
    }

    /// The session journal's forwarded exchanges (since `start` when given), one mapping per method and URL, the
    /// first answer kept; added to the session when `persists`.
    private func mappings(fromForwardedSince start: Date?, persists: Bool, session: Session) -> AdminReply {
        var made: [JSONValue] = []
        var seen = Set<String>()
        for entry in session.journal.newestFirst().reversed() {
            guard case .proxied(_, _, nil) = entry.outcome else { continue }
            if let start, entry.startedAt < start { continue }
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
