import OrreryCore
import OrreryEvent

/// `--metrics-port`: answers `GET /metrics` with the daemon's metrics and `GET /__admin/health` with its health, to
/// anyone (a scraper or a probe comes by the pod's address and carries no token), and nothing else.
final class MetricsEndpoint: HTTPRequestHandler {
    private let metrics: DaemonMetrics
    private let admin: AdminAPI

    init(metrics: DaemonMetrics, admin: AdminAPI) {
        self.metrics = metrics
        self.admin = admin
    }

    func handle(_ request: HTTPRequest, responder: Responder) {
        let reply: AdminReply
        switch (request.method, request.path) {
        case ("GET", "/metrics"), ("HEAD", "/metrics"): reply = admin.metricsText()
        case ("GET", "/__admin/health"): reply = admin.health(session: admin.sessions.main)
        case (_, "/metrics"), (_, "/__admin/health"): reply = .methodNotAllowed(request, allowed: ["GET"])
        default:
            reply = .error(
                .Code404NotFound,
                "The metrics port answers GET /metrics and GET /__admin/health only; the rest is on the daemon's port.")
        }
        responder.send(reply.response.encoded)
    }
}
