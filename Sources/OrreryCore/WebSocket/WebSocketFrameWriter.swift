/// Writes WebSocket frames (RFC 6455 section 5.2): a server's unmasked, a client's masked with a key it gives.
public enum WebSocketFrameWriter {
    /// One frame with the shortest length encoding. `mask`, four bytes, makes it a client's frame.
    public static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, mask: [UInt8]? = nil)
        -> [UInt8]
    {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 14)
        bytes.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        if payload.count < 126 {
            bytes.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes.append(UInt8(payload.count >> 8))
            bytes.append(UInt8(payload.count & 0xFF))
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8((UInt64(payload.count) >> UInt64(shift)) & 0xFF))
            }
        }
        guard let mask, mask.count == 4 else {
            bytes += payload
            return bytes
        }
        bytes += mask
        for (index, byte) in payload.enumerated() { bytes.append(byte ^ mask[index & 3]) }
        return bytes
    }

    /// A message in one frame.
    public static func message(_ message: WebSocketMessage, mask: [UInt8]? = nil) -> [UInt8] {
        frame(message.opcode, message.payload, mask: mask)
    }

    /// A close frame: the code, then the reason as UTF-8, cut to fit the 125 bytes of a control frame.
    public static func close(code: UInt16?, reason: String = "", mask: [UInt8]? = nil) -> [UInt8] {
        guard let code else { return frame(.close, [], mask: mask) }
        var payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > 123 {
            // Cut on a character boundary: a reason that ends inside a character would be invalid UTF-8.
            reasonBytes = Array(reasonBytes.prefix(123))
            while !reasonBytes.isEmpty, String(validating: reasonBytes, as: UTF8.self) == nil {
                reasonBytes.removeLast()
            }
        }
        payload += reasonBytes
        return frame(.close, payload, mask: mask)
    }
}
