import OrreryCore

/// The admin API's route table: every endpoint, its method, its path and what it does. The README's admin table is
/// checked against it by a test, and 404 and 405 are derived from it.
extension AdminAPI {
    static let routes: [AdminRoute] = [
        AdminRoute("GET", "/__admin/health", "liveness, version, uptime and counts") { api, call in api.health(session: call.session) },
        AdminRoute("GET", "/__admin/metrics", "the daemon's metrics in the Prometheus text format") { api, _ in
            api.metricsText()
        },
        AdminRoute("POST", "/__admin/reset", "API stubs gone, stub files read again, journal cleared, sequences rewound") {
            api, call in
            // A session's reset (its port, or X-Orrery-Session) is its own; the daemon's reads the stub files again.
            api.reset(
                session: call.session,
                readsFiles: !call.isThroughSessionPort && call.request.headers[SessionRegistry.header] == nil)
        },

        AdminRoute("GET", "/__admin/stubs", "every stub") { api, call in api.listStubs(session: call.session) },
        AdminRoute("POST", "/__admin/stubs", "add a stub; 409 when its id is in use") { api, call in api.addStub(call.request, session: call.session) },
        AdminRoute("DELETE", "/__admin/stubs", "remove every stub added over the API") { api, call in api.removeAPIStubs(session: call.session) },
        AdminRoute("GET", "/__admin/stubs/{id}", "one stub") { api, call in api.stub(id: call.parameter("id"), session: call.session) },
        AdminRoute("PUT", "/__admin/stubs/{id}", "replace a stub") { api, call in
            api.replaceStub(id: call.parameter("id"), call.request, session: call.session)
        },
        AdminRoute("DELETE", "/__admin/stubs/{id}", "remove a stub") { api, call in api.removeStub(id: call.parameter("id"), session: call.session) },
        AdminRoute("POST", "/__admin/stubs/reload", "read the stub files again") { api, _ in api.reload() },
        AdminRoute("POST", "/__admin/stubs/rewind", "start every response sequence over") { api, call in api.rewind(session: call.session) },

        AdminRoute(
            "GET", "/__admin/contract", "drift from the --validate-against spec: per operation, calls and violations"
        ) {
            api, _ in api.contract()
        },

        AdminRoute("GET", "/__admin/ca.pem", "the local CA's certificate, for clients to trust") { api, _ in api.caCertificate() },

        AdminRoute("GET", "/__admin/environments", "each configuration, its hosts and its active key") { api, _ in
            api.listEnvironments()
        },
        AdminRoute("PUT", "/__admin/environments/{canonical_host}", "choose a configuration's environment") { api, call in
            api.chooseEnvironment(canonicalHost: call.parameter("canonical_host"), call.request)
        },

        AdminRoute("GET", "/__admin/requests", "the journal, newest first, paged") { api, call in api.listRequests(call.request, session: call.session) },
        AdminRoute("DELETE", "/__admin/requests", "clear the journal") { api, call in api.clearRequests(session: call.session) },
        AdminRoute("GET", "/__admin/requests/{id}", "one exchange") { api, call in api.journalEntry(id: call.parameter("id"), session: call.session) },
        AdminRoute("GET", "/__admin/requests/unmatched", "exchanges nothing answered") { api, call in
            api.unmatchedRequests(call.request, session: call.session)
        },
        AdminRoute("POST", "/__admin/requests/count", "count the exchanges a request pattern matches") { api, call in
            api.countRequests(call.request, session: call.session)
        },
        AdminRoute("POST", "/__admin/requests/find", "the exchanges a request pattern matches") { api, call in
            api.findRequests(call.request, session: call.session)
        },
        AdminRoute("GET", "/__admin/requests/stream", "exchanges as they happen, as server-sent events") { api, call in
            api.streamRequests(session: call.session, isThroughSessionPort: call.isThroughSessionPort)
        },
        AdminRoute("GET", "/__admin/requests.har", "the journal as HAR 1.2") { api, call in api.har(session: call.session) },

        // The traffic log and a recording take every session's traffic: a session's port may not switch them.
        AdminRoute("POST", "/__admin/logging/start", "start the traffic log", isSessionScoped: false) { api, call in
            api.startLogging(call.request)
        },
        AdminRoute("POST", "/__admin/logging/stop", "stop the traffic log", isSessionScoped: false) { api, _ in
            api.stopLogging()
        },
        AdminRoute("GET", "/__admin/logging", "the traffic log's state") { api, _ in api.loggingStatus() },

        AdminRoute("GET", "/__admin/scenarios", "every scenario and its state") { api, call in api.listScenarios(session: call.session) },
        AdminRoute("PUT", "/__admin/scenarios/{name}", "move a scenario to a state") { api, call in
            api.setScenario(name: call.parameter("name"), call.request, session: call.session)
        },
        AdminRoute("POST", "/__admin/scenarios/reset", "every scenario back in Started") { api, call in
            api.resetScenarios(session: call.session)
        },

        AdminRoute(
            "POST", "/__admin/sessions", "open a session: a private Orrery on a port of its own", isSessionScoped: false
        ) { api, call in api.openSession(call.request) },
        AdminRoute("GET", "/__admin/sessions", "the open sessions", isSessionScoped: false) { api, _ in api.listSessions() },
        AdminRoute("GET", "/__admin/sessions/{id}", "one session", isSessionScoped: false) { api, call in
            api.session(id: call.parameter("id"))
        },
        AdminRoute("DELETE", "/__admin/sessions/{id}", "end a session and close its port", isSessionScoped: false) {
            api, call in api.closeSession(id: call.parameter("id"))
        },

        AdminRoute("POST", "/__admin/recordings/start", "record proxied traffic as fixtures", isSessionScoped: false) {
            api, call in api.startRecording(call.request)
        },
        AdminRoute("POST", "/__admin/recordings/stop", "stop recording", isSessionScoped: false) { api, _ in
            api.stopRecording()
        },
        AdminRoute("GET", "/__admin/recordings", "the recording session's state") { api, _ in api.recordingStatus() },

        AdminRoute("GET", "/__admin/ui", "the dashboard") { api, call in
            // Without a host map the page never asks for environments (a 404 a browser logs as an error).
            Dashboard.page(call.request, hasHostMap: api.listEnvironments().status != 404)
        },
        AdminRoute("GET", "/__admin/ui/{asset}", "the dashboard's script, styles and icon") { _, call in
            Dashboard.asset(named: call.parameter("asset"), call.request)
        },
    ]

    static let router = AdminRouter(routes)

    /// The answer for a request that passed `authorize`: its endpoint's, or the 404 or 405 the table implies.
    func route(_ request: HTTPRequest, session: Session, isThroughSessionPort: Bool = false) -> AdminReply {
        switch Self.router.resolve(method: request.method, path: AdminRouter.segments(of: request)) {
        case .route(let route, _) where isThroughSessionPort && !route.isSessionScoped:
            return .error(
                .Code403Forbidden,
                "A session's port answers the admin API for its own session alone; \(route.name) reaches other sessions. Call it on the daemon's port.")
        case .route(let route, let parameters):
            return route.answer(
                self,
                AdminCall(request: request, parameters: parameters, session: session, isThroughSessionPort: isThroughSessionPort))
        case .methodNotAllowed(let allowed):
            return .methodNotAllowed(request, allowed: allowed)
        case .notFound:
            return .error(
                .Code404NotFound, "There is no admin endpoint \(request.method) \(request.path).",
                details: [("endpoints", .array(Self.routes.map { .string("\($0.name): \($0.summary)") }))])
        }
    }
}
