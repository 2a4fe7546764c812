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
    /// valid opening handshake (GET, `Connection: Upgrade`, version 13, a key of 16 bytes in base64).
    public static func problem(with request: HTTPRequest) -> String? {
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
}
