import Testing

@testable import OrreryCore

/// A header value's control bytes: a request's are refused and a response's NUL and CR, wherever in the value the
/// byte falls (the value is scanned in one pass that only notes whether any is there).
@Suite("Control bytes in header values")
struct HeaderValueControlBytesTests {
    @Test("A request's value with a control byte is refused wherever the byte is; a tab and high bytes pass")
    func requests() throws {
        for place in 0..<20 {
            for byte: UInt8 in [0x00, 0x01, 0x0B, 0x1F, 0x7F] {
                var value = Array("abcdefghijklmnopqrst".utf8)
                value[place] = byte
                let head = Array("GET / HTTP/1.1\r\nHost: h\r\nX-Value: ".utf8) + value + Array("\r\n\r\n".utf8)
                var parser = HTTP1Parser(role: .request)
                let error = #expect(throws: HTTP1ParseError.self, "byte \(byte) at \(place)") {
                    _ = try head.withUnsafeBytes { try parser.parse($0) }
                }
                #expect(error?.message == "The value of header 'X-Value' holds a control character (byte \(byte)).")
            }
            var value = Array("abcdefghijklmnopqrst".utf8)
            value[place] = 0x09
            value[19 - place] = 0xC3
            let head = Array("GET / HTTP/1.1\r\nHost: h\r\nX-Value: ".utf8) + value + Array("\r\n\r\n".utf8)
            var parser = HTTP1Parser(role: .request)
            _ = try head.withUnsafeBytes { try parser.parse($0) }
            #expect(parser.isComplete, "a tab at \(place)")
        }
    }

    @Test("A response's value may carry odd control bytes, but not NUL or CR")
    func responses() throws {
        for place in 0..<12 {
            for (byte, refused) in [(UInt8(0x01), false), (0x7F, false), (0x00, true), (0x0D, true)] {
                var value = Array("abcdefghijkl".utf8)
                value[place] = byte
                let head =
                    Array("HTTP/1.1 200 OK\r\nX-Value: ".utf8) + value + Array("\r\nContent-Length: 0\r\n\r\n".utf8)
                var parser = HTTP1Parser(requestMethod: "GET")
                if refused {
                    #expect(throws: HTTP1ParseError.self, "byte \(byte) at \(place)") {
                        _ = try head.withUnsafeBytes { try parser.parse($0) }
                    }
                } else {
                    _ = try head.withUnsafeBytes { try parser.parse($0) }
                    #expect(parser.isComplete, "byte \(byte) at \(place)")
                }
            }
        }
    }
}
