import Foundation

/// The opening handshake of RFC 6455 section 4: whether a request asks for a WebSocket, and the 101 that accepts it.
public enum WebSocketHandshake {
    /// The GUID RFC 6455 appends to the client's key.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` value for a client's `Sec-WebSocket-Key`.
    public static func acceptValue(for key: String) -> String {
        Data(SHA1.digest(Array((key.trimmingCharacters(in: " \t") + guid).utf8))).base64EncodedString()
    }

    /// Whether a request asks to upgrade to a WebSocket: `Upgrade: websocket` (a token of it, any case).
    public static func isUpgrade(_ request: HTTPRequest) -> Bool {
        guard let upgrade = request.headers["Upgrade"] else { return false }
        return upgrade.split(separator: ",").contains { $0.trimmingCharacters(in: " \t").lowercased() == "websocket" }
    }

    /// What is wrong with a request that asks for a WebSocket, as a client would need to hear it; nil when it is a
    /// valid opening handshake (GET, `Connection: Upgrade`, version 13, a key of 16 bytes in base64). Over HTTP/2
    /// (`overHTTP2`, an extended `CONNECT` made into its GET), no key is sent, so none is asked for.
    public static func problem(with request: HTTPRequest, overHTTP2: Bool = false) -> String? {
        guard request.method == "GET" else {
            return "a WebSocket opening handshake must be a GET, not \(request.method)"
        }
        let connection = request.headers.all(named: "Connection").joined(separator: ",")
        guard
            connection.split(separator: ",").contains(where: {
                $0.trimmingCharacters(in: " \t").lowercased() == "upgrade"
            })
        else {
            return "a WebSocket opening handshake needs 'Connection: Upgrade'"
        }
        guard request.headers["Sec-WebSocket-Version"]?.trimmingCharacters(in: " \t") == "13" else {
            return "Orrery speaks WebSocket version 13 (Sec-WebSocket-Version: 13)"
        }
        if overHTTP2 { return nil }
        guard let key = request.headers["Sec-WebSocket-Key"]?.trimmingCharacters(in: " \t"),
            let decoded = Data(base64Encoded: key), decoded.count == 16
        else {
            return "a WebSocket opening handshake needs a Sec-WebSocket-Key of 16 bytes in base64"
        }
        return nil
    }

    /// The head of the 101 that accepts a valid opening handshake, up to and including the blank line; the first
    /// subprotocol the client offers is taken when there is one.
    public static func acceptingHead(for request: HTTPRequest) -> [UInt8] {
        let key = request.headers["Sec-WebSocket-Key"] ?? ""
        var head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Accept: \(acceptValue(for: key))\r\n"
        if let offered = request.headers["Sec-WebSocket-Protocol"],
            let first = offered.split(separator: ",").first?.trimmingCharacters(in: " \t"), !first.isEmpty
        {
            head += "Sec-WebSocket-Protocol: \(first)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// What answers an extended `CONNECT` (RFC 8441) that an HTTP/1.1 `head` would answer with a 101: `200`, and the
    /// head's fields without those that belong to the HTTP/1.1 upgrade (`Upgrade`, `Connection`,
    /// `Sec-WebSocket-Accept`) or that HTTP/2 forbids; the agreed `Sec-WebSocket-Protocol` stays.
    public static func http2Answer(forHead head: [UInt8]) -> (status: Int, headers: HTTPHeaders) {
        var headers = HTTPHeaders()
        let dropped: Set<String> = [
            "upgrade", "connection", "sec-websocket-accept", "keep-alive", "proxy-connection", "transfer-encoding",
            "content-length",
        ]
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            guard !dropped.contains(name.lowercased()) else { continue }
            headers.add(name, String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
        return (200, headers)
    }

    /// A fresh `Sec-WebSocket-Key` (16 random bytes in base64), for an upgrade sent on upstream for a client that
    /// sent none (one over HTTP/2).
    public static func makeKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }).base64EncodedString()
    }
}
