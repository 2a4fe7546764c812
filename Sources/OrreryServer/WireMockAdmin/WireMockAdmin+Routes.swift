import OrreryCore

/// WireMock's admin endpoints, as its 2.35 and 3 servers name them.
extension WireMockAdmin {
    static let routes: [WireMockRoute] = [
        WireMockRoute("GET", "/__admin/mappings") { admin, call in
            admin.listMappings(call.request, session: call.session)
        },
        WireMockRoute("POST", "/__admin/mappings") { admin, call in
            admin.addMapping(call.request, session: call.session)
        },
        WireMockRoute("DELETE", "/__admin/mappings") { admin, call in
            _ = admin.removeMappings(session: call.session)
            return WireMockShapes.emptyObject()
        },
        WireMockRoute("GET", "/__admin/mappings/{id}") { admin, call in
            admin.mapping(id: call.parameter("id"), session: call.session)
        },
        WireMockRoute("PUT", "/__admin/mappings/{id}") { admin, call in
            admin.editMapping(id: call.parameter("id"), call.request, session: call.session)
        },
        WireMockRoute("DELETE", "/__admin/mappings/{id}") { admin, call in
            admin.removeMapping(id: call.parameter("id"), session: call.session)
        },
        WireMockRoute("POST", "/__admin/mappings/reset") { admin, call in admin.removeMappings(session: call.session) },
        // The 2.x client's older spellings, which its `editStub` and `removeStub` still call.
        WireMockRoute("POST", "/__admin/mappings/new") { admin, call in
            admin.addMapping(call.request, session: call.session)
        },
        WireMockRoute("POST", "/__admin/mappings/edit") { admin, call in
            let id = (try? JSONValue.parse(call.request.body))?["id"]?.stringValue ?? ""
            return admin.editMapping(id: id, call.request, session: call.session)
        },
        WireMockRoute("POST", "/__admin/mappings/save") { _, _ in WireMockShapes.empty() },
        WireMockRoute("POST", "/__admin/mappings/import") { admin, call in
            admin.importMappings(call.request, session: call.session)
        },
        WireMockRoute("POST", "/__admin/mappings/remove") { admin, call in
            admin.removeMatching(call.request, session: call.session)
        },
        WireMockRoute("POST", "/__admin/mappings/find-by-metadata") { admin, call in
            admin.findByMetadata(call.request, session: call.session, removing: false)
        },
        WireMockRoute("POST", "/__admin/mappings/remove-by-metadata") { admin, call in
            admin.findByMetadata(call.request, session: call.session, removing: true)
        },

        WireMockRoute("GET", "/__admin/requests") { admin, call in
            admin.listRequests(call.request, session: call.session)
        },
        WireMockRoute("DELETE", "/__admin/requests") { admin, call in
            _ = admin.clearRequests(session: call.session)
            return WireMockShapes.emptyObject()
        },
        WireMockRoute("POST", "/__admin/requests/reset") { admin, call in admin.clearRequests(session: call.session) },
        WireMockRoute("GET", "/__admin/requests/{id}") { admin, call in
            admin.request(id: call.parameter("id"), session: call.session)
        },
        WireMockRoute("DELETE", "/__admin/requests/{id}") { admin, call in
            admin.removeRequest(id: call.parameter("id"), session: call.session)
        },
        WireMockRoute("POST", "/__admin/requests/count") { admin, call in
            admin.countRequests(call.request, session: call.session)
        },
        WireMockRoute("POST", "/__admin/requests/find") { admin, call in
            admin.findRequests(call.request, session: call.session)
        },
        WireMockRoute("POST", "/__admin/requests/remove") { admin, call in
            admin.removeRequests(call.request, session: call.session)
        },
        WireMockRoute("POST", "/__admin/requests/remove-by-metadata") { admin, call in
            admin.removeRequestsByMetadata(call.request, session: call.session)
        },
        WireMockRoute("GET", "/__admin/requests/unmatched") { admin, call in
            admin.unmatchedRequests(session: call.session)
        },
        WireMockRoute("GET", "/__admin/requests/unmatched/near-misses") { admin, call in
            admin.unmatchedNearMisses(session: call.session)
        },
        WireMockRoute("POST", "/__admin/near-misses/request") { admin, call in
            admin.nearMissesForRequest(call.request, session: call.session)
        },
        WireMockRoute("POST", "/__admin/near-misses/request-pattern") { admin, call in
            admin.nearMissesForPattern(call.request, session: call.session)
        },

        WireMockRoute("GET", "/__admin/scenarios") { admin, call in admin.listScenarios(session: call.session) },
        WireMockRoute("POST", "/__admin/scenarios/reset") { admin, call in admin.resetScenarios(session: call.session)
        },
        WireMockRoute("PUT", "/__admin/scenarios/{name}/state") { admin, call in
            admin.setScenarioState(name: call.parameter("name"), call.request, session: call.session)
        },

        WireMockRoute("POST", "/__admin/reset") { admin, call in admin.reset(session: call.session) },
        WireMockRoute("GET", "/__admin/settings") { admin, call in admin.settings(session: call.session) },
        WireMockRoute("POST", "/__admin/settings") { admin, call in
            admin.updateSettings(call.request, session: call.session)
        },
        WireMockRoute("PUT", "/__admin/settings") { admin, call in
            admin.updateSettings(call.request, session: call.session)
        },
        WireMockRoute("GET", "/__admin/health") { admin, _ in admin.health() },
        WireMockRoute("GET", "/__admin/version") { _, _ in .json(.object([("version", .string(OrreryVersion.current))]))
        },
        WireMockRoute("POST", "/__admin/shutdown") { admin, call in admin.shutDown(session: call.session) },

        WireMockRoute("POST", "/__admin/recordings/start") { admin, call in
            admin.startRecording(call.request, session: call.session)
        },
        WireMockRoute("POST", "/__admin/recordings/stop") { admin, call in admin.stopRecording(session: call.session) },
        WireMockRoute("GET", "/__admin/recordings/status") { admin, call in
            admin.recordingStatus(session: call.session)
        },
        WireMockRoute("POST", "/__admin/recordings/snapshot") { admin, call in
            admin.snapshot(call.request, session: call.session)
        },
    ]
}
