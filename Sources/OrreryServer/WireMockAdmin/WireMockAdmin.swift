import Foundation
import OrreryCore
import OrreryEvent

/// WireMock's admin API under `/__admin/`, in WireMock's JSON shapes, for the ports that speak it: `--wiremock-port`
/// (the daemon's own session) and the sessions opened with `{"wiremock": true}`. WireMock's own clients (its Java
/// client, the Python `wiremock` package) drive these ports unchanged.
///
/// Everything it does is done to the session underneath, as Orrery's admin API does it: mappings are converted by
/// the same converter as `--wiremock-root` files and added as the session's stubs; the journal, scenarios and
/// resets are the session's. Orrery's own admin API, on the daemon's port, is not changed by any of this.
final class WireMockAdmin: Sendable {
    let api: AdminAPI
    /// Ends what a `POST /__admin/shutdown` ends: the session it was sent to, or for `--wiremock-port` the daemon.
    let shutdown: @Sendable (Session) -> Void
    let startedAt = Date()

    init(api: AdminAPI, shutdown: @escaping @Sendable (Session) -> Void) {
        self.api = api
        self.shutdown = shutdown
    }

    var registry: StubRegistry { api.registry }

    /// The `__files` folder of the first `--wiremock-root`: where a posted mapping's `bodyFileName` is read, as
    /// WireMock reads it from its root's `__files`.
    var bodyFiles: (any StubSource)? { registry.wireMock?.loader.sources.first?.bodyFiles }

    /// The answer to a call on a WireMock port: Orrery's access rules first, then the endpoint's, or WireMock's 404.
    func reply(to request: HTTPRequest, peer: String, session: Session) -> AdminReply {
        if let refusal = api.authorize(request, remoteAddress: peer) { return refusal }
        let path = AdminRouter.segments(of: request)
        var best: (route: WireMockRoute, parameters: [String: String])?
        var pathIsKnown = false
        for route in Self.routes {
            guard let parameters = route.pattern.match(path) else { continue }
            pathIsKnown = true
            guard route.method == request.method else { continue }
            if let current = best, !route.pattern.isMoreSpecific(than: current.route.pattern) { continue }
            best = (route, parameters)
        }
        guard let best else {
            return pathIsKnown ? WireMockShapes.empty(405) : WireMockShapes.empty(404)
        }
        return best.route.answer(self, WireMockCall(request: request, parameters: best.parameters, session: session))
    }

    /// The body as a JSON object, or WireMock's 422 saying why it is not one.
    func object(_ request: HTTPRequest) -> AdminInput<JSONValue> {
        guard let value = try? JSONValue.parse(request.body), case .object = value else {
            return .failure(
                WireMockShapes.errors(422, title: "Error parsing JSON", details: ["The body must be a JSON object."]))
        }
        return .success(value)
    }
}

/// One WireMock admin endpoint: a method, a path pattern and what answers it.
struct WireMockRoute: Sendable {
    let method: String
    let pattern: AdminPathPattern
    let answer: @Sendable (WireMockAdmin, WireMockCall) -> AdminReply

    init(_ method: String, _ pattern: String, answer: @escaping @Sendable (WireMockAdmin, WireMockCall) -> AdminReply) {
        self.method = method
        self.pattern = AdminPathPattern(pattern)
        self.answer = answer
    }
}

/// A call routed to its WireMock endpoint.
struct WireMockCall {
    let request: HTTPRequest
    let parameters: [String: String]
    let session: Session

    func parameter(_ name: String) -> String { parameters[name] ?? "" }
}
