import OrreryCore

/// A request as a connection hands it to the pipeline, whatever the protocol that framed it: what was asked, how,
/// and from where. Nothing in it refers to a socket or a connection.
struct PipelineRequest: Sendable {
    /// Method, target, headers and body.
    var head: HTTPRequest
    /// How the client reached Orrery: `http`, or `https` (the TLS port, an intercepted tunnel).
    var scheme: String
    /// `HTTP/1.1`, `HTTP/1.0`.
    var version: String
    /// The client's address, as text.
    var peer: String
    /// The listener the request came through: 0 for the daemon's own ports, a session's tag for its port.
    var listenerTag: Int

    /// - Parameter intercepted: inside an intercepted tunnel, where its `CONNECT` went: `head`, which names only a
    ///   path there, is then read as the absolute https URL it is for.
    init(
        _ head: consuming HTTPRequest, scheme: String = "http", version: String = "HTTP/1.1", peer: String = "127.0.0.1",
        listenerTag: Int = 0, intercepted: InterceptedOrigin? = nil
    ) {
        self.head = head
        self.scheme = scheme
        self.version = version
        self.peer = peer
        self.listenerTag = listenerTag
        // Rewritten in place once every field is set: choosing between two values for `head` first made the usual
        // request a copy of it.
        if let intercepted { Self.makeAbsolute(&self.head, origin: intercepted) }
    }

    /// A request from inside an intercepted tunnel as the absolute https URL it is for (the default port left out,
    /// as a client writes it), so that stubs with a `host`, the host map and the proxy see where it was going.
    ///
    /// An origin-form target keeps its path and query: only the target, the host and the form change, in place.
    /// Parsing the request again from the new target cost some 3,000 instructions per intercepted request; the host
    /// and the origin are made once per tunnel (`InterceptedOrigin`).
    static func makeAbsolute(_ request: inout HTTPRequest, origin: InterceptedOrigin) {
        guard !request.isAbsoluteForm else { return }
        let target = origin.origin + request.target
        guard request.target.utf8.first == UInt8(ascii: "/") else {
            request = HTTPRequest(method: request.method, target: target, headers: request.headers, body: request.body)
            return
        }
        request.target = target
        request.host = origin.host
        request.isAbsoluteForm = true
    }
}
