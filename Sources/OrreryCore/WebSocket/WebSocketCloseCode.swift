/// The status codes of a WebSocket close frame (RFC 6455 section 7.4) that Orrery sends, and which received ones
/// are valid.
public enum WebSocketCloseCode {
    public static let normal: UInt16 = 1000
    public static let goingAway: UInt16 = 1001
    public static let protocolError: UInt16 = 1002
    public static let unsupportedData: UInt16 = 1003
    /// "No status received": never sent, reported when a close frame had no code.
    public static let noStatus: UInt16 = 1005
    public static let invalidPayload: UInt16 = 1007
    public static let policyViolation: UInt16 = 1008
    public static let messageTooBig: UInt16 = 1009
    public static let internalError: UInt16 = 1011

    /// Whether a peer may send `code` in a close frame: the codes RFC 6455 defines for the wire (1004, 1005, 1006
    /// and 1015 are reserved for reporting), and the ranges for libraries (3000-3999) and applications (4000-4999).
    public static func isValidOnTheWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014: true
        case 3000...4999: true
        default: false
        }
    }
}
