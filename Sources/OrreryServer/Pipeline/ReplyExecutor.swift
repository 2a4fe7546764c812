import Foundation
import OrreryCore
import OrreryEvent

/// Carries out the pipeline's replies on one event loop: journals each exchange (before its answer goes out, so a
/// client that has its answer finds it in the journal) and sends the answer once.
struct ReplyExecutor {
    let serviceLogger: NetworkServiceLogger
    /// Nil when the proxy is off.
    let proxy: ProxyForwarder?

    func carryOut(_ reply: Reply, for request: HTTPRequest, responder: Responder, startedAt: Date) {
        switch reply {
        case .stub(let entry, let prepared):
            // The journal keeps the body as the stub gives it, whichever encoding goes out.
            serviceLogger.log(
                request, responder: responder, startedAt: startedAt, status: prepared.status, headers: prepared.headers,
                body: prepared.body,
                outcome: .stub(id: entry.stub.id, name: entry.stub.name, location: entry.stub.location))
            let encoded = prepared.encoded(for: request.headers)
            if prepared.delayMilliseconds > 0 {
                responder.send(afterMilliseconds: prepared.delayMilliseconds, encoded)
            } else {
                responder.send(encoded)
            }
        case .made(let response, let outcome):
            if let outcome {
                serviceLogger.log(
                    request, responder: responder, startedAt: startedAt, status: response.status, headers: response.headers,
                    body: response.body, outcome: outcome)
            }
            responder.send(response.encoded)
        case .forward(let plan):
            guard let proxy else { return }
            proxy.forward(plan, request, responder: responder) { response, outcome in
                carryOut(.made(response, outcome: outcome), for: request, responder: responder, startedAt: startedAt)
            }
        case .tunnel(let target):
            guard let proxy else { return }
            proxy.tunnel(to: target, responder: responder) { error in
                carryOut(.made(error, outcome: nil), for: request, responder: responder, startedAt: startedAt)
            }
        }
    }
}
