/// Tells an HTTP/2 connection from an HTTP/1 one by its first bytes: HTTP/2 with prior knowledge (and over TLS,
/// after ALPN chose `h2`) opens with the 24-byte connection preface, which no HTTP/1 request starts with.
///
/// Fed the bytes as they arrive; it decides at the first byte that differs from the preface, or when all 24 have
/// come. Until then the bytes are kept, so that whichever side wins gets them all.
public struct HTTP2Preface: Sendable {
    /// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n` (RFC 9113 §3.4).
    public static let bytes: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    public enum Verdict: Equatable, Sendable {
        /// Not decided yet: every byte so far matches the preface.
        case undecided
        /// HTTP/2: hand these bytes (the preface included) to the HTTP/2 session.
        case http2([UInt8])
        /// HTTP/1: hand these bytes to the HTTP/1 machine.
        case http1([UInt8])
    }

    private var held: [UInt8] = []

    public init() {}

    /// Takes the next bytes from the client.
    public mutating func received(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        held.append(contentsOf: bytes)
        let compared = min(held.count, Self.bytes.count)
        for index in 0..<compared where held[index] != Self.bytes[index] {
            defer { held = [] }
            return .http1(held)
        }
        guard held.count >= Self.bytes.count else { return .undecided }
        defer { held = [] }
        return .http2(held)
    }

    /// The client closed before the preface was decided: what it sent is HTTP/1's to judge.
    public mutating func receivedEnd() -> [UInt8] {
        defer { held = [] }
        return held
    }
}
