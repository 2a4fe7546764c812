import CLibevent
import OrreryCore

/// Sends the one response to a request. Valid only on the request's loop, until it has sent.
public struct Responder {
    private let request: OpaquePointer
    private let worker: HTTPWorker

    init(request: OpaquePointer, worker: HTTPWorker) {
        self.request = request
        self.worker = worker
    }

    /// The client's address, as text.
    public var remoteAddress: String {
        guard let connection = evhttp_request_get_connection(request) else { return "" }
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(connection, &address, &port)
        return address.map { String(cString: $0) } ?? ""
    }

    /// Sends a response whose body is sent by reference: the payload is retained until libevent has written it.
    public func send(status: Int, reason: String, headers: HTTPHeaders, body: Payload) {
        worker.send(request, status: status, reason: reason, headers: headers, body: body)
    }

    /// Sends the response after `milliseconds`, without holding up the loop's other connections.
    public func send(afterMilliseconds milliseconds: Int, status: Int, reason: String, headers: HTTPHeaders, body: Payload) {
        worker.send(request, afterMilliseconds: milliseconds, status: status, reason: reason, headers: headers, body: body)
    }

    /// Answers a `CONNECT`: connects to `target` and, once it accepts, turns this connection into a byte-for-byte
    /// tunnel to it. If the target cannot be reached, `failed` is called on this loop with the request still
    /// unanswered, and the responder must then send the error. `closed` is called when an open tunnel ends.
    public func openTunnel(
        to target: ConnectTarget, using client: UpstreamClient, failed: @escaping (UpstreamFailure) -> Void,
        closed: @escaping (TunnelTotals) -> Void
    ) {
        worker.openTunnel(request, to: target, using: client, failed: failed, closed: closed)
    }

    /// Sends a response built for this request alone (errors, admin answers).
    public func send(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        worker.send(
            request, status: status, reason: HTTPStatusCode.reasonPhrase(for: status), headers: headers,
            body: Payload(body))
    }
}
