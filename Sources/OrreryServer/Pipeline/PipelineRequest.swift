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

    /// - Parameter interceptedAuthority: inside an intercepted tunnel, the `CONNECT`'s host and port: `head`, which
    ///   names only a path there, is then read as the absolute https URL it is for.
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
        // Rewritten in place once every field is set: choosing between two values for `head` first made the usual
        // request a copy of it.
        if let interceptedAuthority { Self.makeAbsolute(&self.head, authority: interceptedAuthority) }
    }

    /// A request from inside an intercepted tunnel as the absolute https URL it is for (the default port left out,
    /// as a client writes it), so that stubs with a `host`, the host map and the proxy see where it was going.
    ///
    /// An origin-form target keeps its path and query: only the target, the host and the form change, in place.
    /// Parsing the request again from the new target cost some 3,000 instructions per intercepted request.
    static func makeAbsolute(_ request: inout HTTPRequest, authority: String) {
        guard !request.isAbsoluteForm else { return }
        let utf8 = authority.utf8
        let host =
            utf8.count > 4 && utf8.suffix(4).elementsEqual(":443".utf8) ? String(authority.dropLast(4)) : authority
        let target = "https://" + host + request.target
        guard request.target.utf8.first == UInt8(ascii: "/") else {
            request = HTTPRequest(method: request.method, target: target, headers: request.headers, body: request.body)
            return
        }
        request.target = target
        request.host = host
        request.isAbsoluteForm = true
    }
}
