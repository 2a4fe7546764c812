/// An HTTP/1.1 request that asks to continue in HTTP/2 without TLS (`Upgrade: h2c`, RFC 7540 §3.2): the settings its
/// `HTTP2-Settings` field carries, decoded, and the request as it is to be answered on stream 1.
///
/// A request with a body is not upgraded (its body would have to be read as HTTP/1.1 first): it is answered in
/// HTTP/1.1, which the upgrade's rules allow. So is one whose settings do not decode.
public struct HTTP2Upgrade: Sendable {
    /// The SETTINGS payload the client sent, decoded from base64url.
    public let settings: [UInt8]
    /// The request without the fields that asked for the upgrade.
    public let request: HTTPRequest

    /// Nil when `request` does not ask for `h2c`, or cannot be upgraded.
    public init?(_ request: borrowing HTTPRequest) {
        guard let upgrade = request.headers["Upgrade"],
            Self.list(upgrade, contains: "h2c"),
            let connection = request.headers["Connection"],
            Self.list(connection, contains: "upgrade"),
            let encoded = request.headers.all(named: "HTTP2-Settings").first,
            request.headers.all(named: "HTTP2-Settings").count == 1,
            request.body.isEmpty, request.headers["Content-Length"].map({ $0 == "0" }) ?? true,
            !request.headers.contains("Transfer-Encoding"),
            let settings = Self.decodeBase64URL(encoded), settings.count % 6 == 0
        else { return nil }
        self.settings = settings
        var headers = request.headers
        for name in ["Upgrade", "Connection", "HTTP2-Settings", "Keep-Alive", "Proxy-Connection"] {
            headers.remove(name)
        }
        self.request = HTTPRequest(method: request.method, target: request.target, headers: headers, body: [])
    }

    /// The answer that switches: HTTP/2 frames follow it on the connection.
    public static let switchingProtocols: [UInt8] = Array(
        "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n".utf8)

    /// Whether a comma-separated field value names `token` (any case).
    public static func list(_ value: String, contains token: String) -> Bool {
        value.split(separator: ",").contains { item in
            String(item.filter { $0 != " " && $0 != "\t" }).equalsIgnoringASCIICase(token)
        }
    }

    /// base64url without padding (RFC 4648 §5), as `HTTP2-Settings` is written; padding and the standard alphabet
    /// are taken too. Nil for anything else.
    public static func decodeBase64URL(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            let value: UInt32
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(byte - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(byte - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(byte - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="): continue
            default: return nil
            }
            accumulator = (accumulator << 6) | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }
}
