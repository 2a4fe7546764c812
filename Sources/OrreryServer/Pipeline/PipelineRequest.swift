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
    /// Inside an intercepted tunnel: the host and port its `CONNECT` named.
    var interceptedAuthority: String?

    init(
        _ head: consuming HTTPRequest, scheme: String = "http", version: String = "HTTP/1.1", peer: String = "127.0.0.1",
        listenerTag: Int = 0, interceptedAuthority: String? = nil
    ) {
        self.head = head
        self.scheme = scheme
        self.version = version
        self.peer = peer
        self.listenerTag = listenerTag
        self.interceptedAuthority = interceptedAuthority
    }
}
