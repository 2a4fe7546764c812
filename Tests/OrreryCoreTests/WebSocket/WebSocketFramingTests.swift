import Foundation
import Testing

@testable import OrreryCore

/// The frame parser held to the Autobahn test suite's cases (categories 1-7 and 9), as values: each case's frames
/// as a client writes them, fed whole, a byte at a time and cut at every point, and what a server must do with them.
/// The case numbers are Autobahn's (crossbario/autobahn-testsuite, `autobahntestsuite/case/`); see
/// Tests/Fixtures/autobahn/SOURCES.md.
@Suite("WebSocket framing (Autobahn cases)")
struct WebSocketFramingTests {
    static let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

    static func client(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        WebSocketFrameWriter.frame(opcode, payload, fin: fin, mask: key)
    }

    static func client(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> [UInt8] {
        client(opcode, Array(text.utf8), fin: fin)
    }

    /// Feeds the bytes whole, a byte at a time, and cut at a few points: every way must read the same.
    static func read(_ bytes: [UInt8], limits: WebSocketLimits = .standard) -> (
        events: [WebSocketParser.Event], violation: WebSocketParser.Violation?
    ) {
        var whole = WebSocketParser(role: .server, limits: limits)
        let expected = whole.received(bytes)
        if bytes.count <= 4096 {
            var single = WebSocketParser(role: .server, limits: limits)
            var events: [WebSocketParser.Event] = []
            var violation: WebSocketParser.Violation?
            for byte in bytes where violation == nil {
                let result = single.received([byte])
                events += result.events
                violation = result.violation
            }
            #expect(events == expected.events)
            #expect(violation?.code == expected.violation?.code)
            for cut in stride(from: 0, through: bytes.count, by: max(1, bytes.count / 7)) {
                var parser = WebSocketParser(role: .server, limits: limits)
                let first = parser.received(bytes[..<cut])
                let second: (events: [WebSocketParser.Event], violation: WebSocketParser.Violation?) =
                    first.violation == nil ? parser.received(bytes[cut...]) : ([], nil)
                #expect(first.events + second.events == expected.events)
                #expect((first.violation ?? second.violation)?.code == expected.violation?.code)
            }
        }
        return expected
    }

    // MARK: - 1: framing

    @Test(
        "1.1.x / 1.2.x: text and binary messages of lengths around each length encoding",
        arguments: [0, 125, 126, 127, 128, 65535, 65536])
    func lengths(_ length: Int) {
        let text = String(repeating: "*", count: length)
        #expect(Self.read(Self.client(.text, text)).events == [.message(WebSocketMessage(text: text))])
        let bytes = [UInt8](repeating: 0xFE, count: length)
        #expect(Self.read(Self.client(.binary, bytes)).events == [.message(WebSocketMessage(binary: bytes))])
    }

    @Test("Server frames use the shortest length encoding and no mask")
    func serverFrames() {
        #expect(WebSocketFrameWriter.frame(.text, Array("Hello".utf8)) == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(
            WebSocketFrameWriter.frame(.binary, [UInt8](repeating: 0, count: 256)).prefix(4) == [
                0x82, 0x7E, 0x01, 0x00,
            ])
        #expect(
            WebSocketFrameWriter.frame(.binary, [UInt8](repeating: 0, count: 65536)).prefix(10) == [
                0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0,
            ])
        // RFC 6455 section 5.7: a masked "Hello".
        #expect(
            WebSocketFrameWriter.frame(.text, Array("Hello".utf8), mask: Self.key)
                == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        var client = WebSocketParser(role: .client)
        #expect(
            client.received(WebSocketFrameWriter.frame(.text, Array("Hello".utf8))).events == [
                .message(WebSocketMessage(text: "Hello"))
            ])
    }

    @Test("A client's unmasked frame, and a server's masked one, are protocol errors")
    func masking() {
        var server = WebSocketParser(role: .server)
        #expect(server.received(WebSocketFrameWriter.frame(.text, [0x41])).violation?.code == 1002)
        var client = WebSocketParser(role: .client)
        #expect(client.received(Self.client(.text, "A")).violation?.code == 1002)
    }

    // MARK: - 2: pings and pongs

    @Test("2.1-2.4, 2.6-2.11: pings and unsolicited pongs up to 125 bytes")
    func pings() {
        #expect(Self.read(Self.client(.ping, [])).events == [.ping([])])
        #expect(Self.read(Self.client(.ping, "Hello, world!")).events == [.ping(Array("Hello, world!".utf8))])
        let binary: [UInt8] = [0x00, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0x00, 0xFF]
        #expect(Self.read(Self.client(.ping, binary)).events == [.ping(binary)])
        let full = [UInt8](repeating: 0xFE, count: 125)
        #expect(Self.read(Self.client(.ping, full)).events == [.ping(full)])
        #expect(Self.read(Self.client(.pong, [])).events == [.pong([])])
        #expect(
            Self.read(Self.client(.pong, "unsolicited pong payload") + Self.client(.ping, "ping payload")).events == [
                .pong(Array("unsolicited pong payload".utf8)), .ping(Array("ping payload".utf8)),
            ])
        let ten = (0..<10).flatMap { Self.client(.ping, "payload-\($0)") }
        #expect(Self.read(ten).events.count == 10)
    }

    @Test("2.5: a ping of 126 bytes is a protocol error")
    func longPing() {
        #expect(Self.read(Self.client(.ping, [UInt8](repeating: 0xFE, count: 126))).violation?.code == 1002)
    }

    // MARK: - 3: reserved bits

    @Test(
        "3.1-3.7: a reserved bit set fails the connection, after the frames before it",
        arguments: [0x40, 0x20, 0x10, 0x60, 0x50, 0x30, 0x70] as [UInt8])
    func reservedBits(_ bits: UInt8) {
        var frame = Self.client(.text, "Hello, world!")
        frame[0] |= bits
        let result = Self.read(Self.client(.text, "Hello, world!") + frame + Self.client(.ping, []))
        #expect(result.events == [.message(WebSocketMessage(text: "Hello, world!"))])
        #expect(result.violation?.code == 1002)
    }

    // MARK: - 4: opcodes

    @Test(
        "4.1.x / 4.2.x: reserved non-control (3-7) and control (11-15) opcodes fail the connection",
        arguments: [3, 4, 5, 6, 7, 11, 12, 13, 14, 15] as [UInt8])
    func reservedOpcodes(_ opcode: UInt8) {
        var frame = Self.client(.text, "reserved")
        frame[0] = 0x80 | opcode
        let result = Self.read(Self.client(.text, "Hello") + frame + Self.client(.ping, []))
        #expect(result.events == [.message(WebSocketMessage(text: "Hello"))])
        #expect(result.violation?.code == 1002)
    }

    // MARK: - 5: fragmentation

    @Test("5.1 / 5.2: fragmented pings and pongs are protocol errors")
    func fragmentedControl() {
        #expect(
            Self.read(Self.client(.ping, "frag1", fin: false) + Self.client(.continuation, "frag2")).violation?.code
                == 1002)
        #expect(
            Self.read(Self.client(.pong, "frag1", fin: false) + Self.client(.continuation, "frag2")).violation?.code
                == 1002)
    }

    @Test("5.3-5.8: a message in fragments, with pings and pongs between them")
    func fragments() {
        let expected: [WebSocketParser.Event] = [.message(WebSocketMessage(text: "fragment1fragment2"))]
        #expect(
            Self.read(Self.client(.text, "fragment1", fin: false) + Self.client(.continuation, "fragment2")).events
                == expected)
        let withPing =
            Self.client(.text, "fragment1", fin: false) + Self.client(.ping, "ping")
            + Self.client(.continuation, "fragment2")
        #expect(Self.read(withPing).events == [.ping(Array("ping".utf8))] + expected)
        let withPong =
            Self.client(.text, "fragment1", fin: false) + Self.client(.pong, "pong")
            + Self.client(.continuation, "fragment2")
        #expect(Self.read(withPong).events == [.pong(Array("pong".utf8))] + expected)
        let binary =
            Self.client(.binary, [1, 2], fin: false) + Self.client(.continuation, [3], fin: false)
            + Self.client(.continuation, [4])
        #expect(Self.read(binary).events == [.message(WebSocketMessage(binary: [1, 2, 3, 4]))])
        let empty =
            Self.client(.text, [], fin: false) + Self.client(.continuation, [], fin: false)
            + Self.client(.continuation, [])
        #expect(Self.read(empty).events == [.message(WebSocketMessage(text: ""))])
    }

    @Test("5.9-5.20: continuations with no message begun, and a new message inside one, are protocol errors")
    func badContinuations() {
        #expect(
            Self.read(Self.client(.continuation, "non-continuation payload") + Self.client(.text, "Hello")).violation?
                .code == 1002)
        #expect(
            Self.read(Self.client(.continuation, "fragment1", fin: false) + Self.client(.text, "fragment2")).violation?
                .code == 1002)
        #expect(
            Self.read(Self.client(.text, "fragment1", fin: false) + Self.client(.text, "fragment2")).violation?.code
                == 1002)
        #expect(
            Self.read(Self.client(.text, "fragment1", fin: false) + Self.client(.binary, [1])).violation?.code == 1002)
    }

    // MARK: - 6: UTF-8

    static let validUTF8: [[UInt8]] = [
        Array("κόσμε".utf8),
        [0x00], [0xC2, 0x80], [0xE0, 0xA0, 0x80], [0xF0, 0x90, 0x80, 0x80],  // first of each length (6.6.x)
        [0x7F], [0xDF, 0xBF], [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF],  // last of each length, U+10FFFF
        [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBD],  // around the surrogates (6.8.x)
    ]
    static let invalidUTF8: [[UInt8]] = [
        Array("κόσμε".utf8) + [0xED, 0xA0, 0x80] + Array("edited".utf8),  // 6.3.1: a surrogate
        [0x80], [0xBF], [0x80, 0xBF],  // 6.4.x: lone continuation bytes
        [0xC0, 0x20], [0xE0, 0x80, 0x20], [0xF8, 0x88, 0x80, 0x80, 0x80],  // 6.10.x / 6.11.x: lone starts, 5-byte forms
        [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xF0, 0x80, 0x80, 0xAF],  // 6.12.x: overlong '/'
        [0xC1, 0xBF], [0xE0, 0x9F, 0xBF],  // 6.13.x: largest overlongs
        [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80],  // 6.14.x-6.15.x: surrogates
        [0xF4, 0x90, 0x80, 0x80], [0xFE], [0xFF],  // 6.16.x-6.17.x: past U+10FFFF, never-valid bytes
        [0xCE, 0xBA, 0xE1],  // 6.4.x: cut in the middle of a character
    ]

    @Test("6.x: valid UTF-8 in text messages, whole and in fragments, is taken")
    func validText() {
        for bytes in Self.validUTF8 {
            #expect(Self.read(Self.client(.text, bytes)).violation == nil)
            guard bytes.count > 1 else { continue }
            // 6.2.x: the same text in fragments cut inside a character.
            let split =
                Self.client(.text, Array(bytes.prefix(1)), fin: false)
                + Self.client(.continuation, Array(bytes.dropFirst()))
            #expect(Self.read(split).events == [.message(WebSocketMessage(isText: true, payload: bytes))])
        }
    }

    @Test("6.x: invalid UTF-8 in a text message fails the connection with 1007; in a binary one it does not")
    func invalidText() {
        for bytes in Self.invalidUTF8 {
            #expect(Self.read(Self.client(.text, bytes)).violation?.code == 1007, "\(bytes)")
            #expect(Self.read(Self.client(.binary, bytes)).violation == nil)
        }
    }

    // MARK: - 7: closing

    @Test("7.3.x: close frames empty, with a code, and with a reason")
    func closeFrames() {
        #expect(Self.read(Self.client(.close, [])).events == [.close(code: nil, reason: "")])
        #expect(Self.read(Self.client(.close, [0x03])).violation?.code == 1002)
        #expect(
            Self.read(WebSocketFrameWriter.close(code: 1000, mask: Self.key)).events == [.close(code: 1000, reason: "")]
        )
        #expect(
            Self.read(WebSocketFrameWriter.close(code: 1000, reason: "Hello World!", mask: Self.key)).events == [
                .close(code: 1000, reason: "Hello World!")
            ])
        // 7.3.6: a reason that makes the frame longer than 125 bytes.
        #expect(
            Self.read(Self.client(.close, [0x03, 0xE8] + [UInt8](repeating: 0x2A, count: 124))).violation?.code == 1002)
        // 7.5.1: a reason that is not UTF-8.
        #expect(Self.read(Self.client(.close, [0x03, 0xE8, 0xCE, 0xBA, 0xE1])).violation?.code == 1007)
        // 7.1.x: nothing is read after a close.
        var parser = WebSocketParser(role: .server)
        #expect(
            parser.received(WebSocketFrameWriter.close(code: 1000, mask: Self.key) + Self.client(.text, "after")).events
                .count == 1)
        #expect(parser.received(Self.client(.ping, [])).events.isEmpty)
    }

    @Test(
        "7.7.x: the close codes a peer may send",
        arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999] as [UInt16])
    func validCloseCodes(_ code: UInt16) {
        #expect(
            Self.read(WebSocketFrameWriter.close(code: code, mask: Self.key)).events == [.close(code: code, reason: "")]
        )
    }

    @Test(
        "7.9.x: close codes a peer may not send",
        arguments: [0, 999, 1004, 1005, 1006, 1016, 1100, 2000, 2999] as [UInt16])
    func invalidCloseCodes(_ code: UInt16) {
        #expect(Self.read(Self.client(.close, [UInt8(code >> 8), UInt8(code & 0xFF)])).violation?.code == 1002)
    }

    @Test("A close reason over 123 bytes is cut on a character boundary")
    func longReason() {
        let frame = WebSocketFrameWriter.close(code: 1000, reason: String(repeating: "é", count: 100))
        #expect(frame.count == 2 + 2 + 122)
        var client = WebSocketParser(role: .client)
        #expect(client.received(frame).violation == nil)
    }

    // MARK: - 9: limits

    @Test("9.1.x / 9.2.x: messages up to the limit, in one frame or many; one byte over is refused with 1009")
    func limits() {
        let limits = WebSocketLimits(maximumFrameBytes: 64 * 1024, maximumMessageBytes: 256 * 1024)
        let frame = [UInt8](repeating: 0x2A, count: 64 * 1024)
        let message =
            Self.client(.binary, frame, fin: false) + Self.client(.continuation, frame, fin: false)
            + Self.client(.continuation, frame, fin: false) + Self.client(.continuation, frame)
        #expect(
            Self.read(message, limits: limits).events == [
                .message(WebSocketMessage(binary: frame + frame + frame + frame))
            ])
        #expect(Self.read(Self.client(.binary, frame + [0]), limits: limits).violation?.code == 1009)
        let over =
            message.dropLast(frame.count + 8) + Self.client(.continuation, frame, fin: false)
            + Self.client(.continuation, [0])
        #expect(Self.read(Array(over), limits: limits).violation?.code == 1009)
        // The length is checked from the head alone: a frame that says 2^62 bytes is refused before any arrive.
        var parser = WebSocketParser(role: .server, limits: limits)
        #expect(parser.received([0x82, 0xFF, 0x40, 0, 0, 0, 0, 0, 0, 0]).violation?.code == 1009)
        var huge = WebSocketParser(role: .server, limits: limits)
        #expect(huge.received([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0]).violation?.code == 1002)
    }

    @Test("9.1.6: a 16 MiB text message, the standard limit, fed in 64 KiB pieces")
    func largestMessage() {
        let text = [UInt8](repeating: 0x2A, count: 16 << 20)
        let bytes = Self.client(.text, text)
        var parser = WebSocketParser(role: .server)
        var events: [WebSocketParser.Event] = []
        for start in stride(from: 0, to: bytes.count, by: 65536) {
            let result = parser.received(bytes[start..<min(bytes.count, start + 65536)])
            #expect(result.violation == nil)
            events += result.events
        }
        #expect(events.count == 1)
        #expect(parser.bufferedBytes == 0)
    }

    // MARK: - Handshake

    @Test("The Sec-WebSocket-Accept of RFC 6455's example, and what a handshake must have")
    func handshake() {
        #expect(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        var headers = HTTPHeaders()
        headers.add("Upgrade", "websocket")
        headers.add("Connection", "keep-alive, Upgrade")
        headers.add("Sec-WebSocket-Version", "13")
        headers.add("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
        let request = HTTPRequest(method: "GET", target: "/chat", headers: headers)
        #expect(WebSocketHandshake.isUpgrade(request))
        #expect(WebSocketHandshake.problem(with: request) == nil)
        let head = String(decoding: WebSocketHandshake.acceptingHead(for: request), as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        #expect(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        var old = headers
        old.set("Sec-WebSocket-Version", "8")
        #expect(WebSocketHandshake.problem(with: HTTPRequest(method: "GET", target: "/chat", headers: old)) != nil)
        #expect(WebSocketHandshake.problem(with: HTTPRequest(method: "POST", target: "/chat", headers: headers)) != nil)
    }

    @Test("SHA-1 of FIPS 180's examples")
    func sha1() {
        func hex(_ text: String) -> String { SHA1.digest(Array(text.utf8)).map { String(format: "%02x", $0) }.joined() }
        #expect(hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(
            hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }
}
