import Testing
@testable import OrreryCore

@Suite("Reading upstream responses")
struct HTTP1ResponseParsingTests {
    /// Feeds the text in pieces of `piece` bytes, as a socket might deliver it; returns the parser and the bytes
    /// it left unused (what follows the response).
    private func parse(
        _ text: String, method: String = "GET", piece: Int, atEnd: Bool = false
    ) throws -> (HTTP1Parser, leftover: Int) {
        var parser = HTTP1Parser(requestMethod: method, maximumHeadBytes: 256)
        let bytes = Array(text.utf8)
        var pending: [UInt8] = []
        var leftover = 0
        for start in stride(from: 0, to: bytes.count, by: piece) {
            pending += bytes[start..<min(start + piece, bytes.count)]
            let used = try pending.withUnsafeBytes { try parser.parseMessage($0) }
            pending.removeFirst(used)
            if parser.isComplete {
                leftover = pending.count + bytes.count - min(start + piece, bytes.count)
                break
            }
        }
        if atEnd { try parser.finishAtEndOfInput() }
        return (parser, leftover)
    }

    @Test("Content-Length, chunked (extensions, trailers) and to-the-end bodies, whole or a byte at a time",
          arguments: [1, 3, 1_000])
    func framings(piece: Int) throws {
        let (sized, rest) = try parse("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1", piece: piece)
        #expect(sized.isComplete && sized.status == 200 && sized.reason == "OK")
        #expect(sized.headers.entries.map { "\($0.name): \($0.value)" } == ["Content-Type: text/plain", "Content-Length: 5"])
        #expect(sized.body == Array("hello".utf8) && !sized.closesConnection)
        #expect(rest == 8)

        let chunked = try parse(
            "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\nWiki\r\nA \r\npedia in c\r\n0\r\nX-Trailer: t\r\n\r\n",
            piece: piece
        ).0
        #expect(chunked.isComplete && chunked.status == 201)
        #expect(String(decoding: chunked.body, as: UTF8.self) == "Wikipedia in c")

        var toEnd = try parse("HTTP/1.0 200 OK\nServer: old\n\nall of it", piece: piece).0
        #expect(!toEnd.isComplete)
        try toEnd.finishAtEndOfInput()
        #expect(toEnd.isComplete && toEnd.body == Array("all of it".utf8) && toEnd.closesConnection)
    }

    @Test("No body for HEAD, 204 and 304 whatever Content-Length says; 100 Continue is skipped")
    func noBody() throws {
        let head = try parse("HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n", method: "HEAD", piece: 7).0
        #expect(head.isComplete && head.body.isEmpty && head.headers["Content-Length"] == "42")
        for status in ["204 No Content", "304 Not Modified"] {
            let parser = try parse("HTTP/1.1 \(status)\r\nContent-Length: 3\r\n\r\n", piece: 5).0
            #expect(parser.isComplete && parser.body.isEmpty)
        }
        let continued = try parse(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", piece: 4).0
        #expect(continued.status == 200 && continued.body == Array("ok".utf8))
    }

    @Test("A folded header line continues the field before it, read as one space")
    func obsoleteFolding() throws {
        let parser = try parse("HTTP/1.1 200 OK\r\nX-Long: first\r\n \t second\r\nContent-Length: 0\r\n\r\n", piece: 6).0
        #expect(parser.headers["X-Long"] == "first second")
        #expect(throws: HTTP1ParseError.self) {
            _ = try parse("HTTP/1.1 200 OK\r\n folded\r\n\r\n", piece: 99)
        }
    }

    @Test("Whether the connection can carry another request")
    func connectionReuse() throws {
        #expect(try parse("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", piece: 99).0.closesConnection)
        #expect(try parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", piece: 99).0.closesConnection)
        #expect(try !parse("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", piece: 99).0.closesConnection)
        #expect(try !parse("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", piece: 99).0.closesConnection)
    }

    @Test("Broken responses are refused with what was wrong", arguments: [
        ("HTTP/2 200\r\n\r\n", "status line"),
        ("HTTP/1.1 2000 OK\r\n\r\n", "status line"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n", "Content-Length"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", "Content-Length"),
        ("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", "space in a header name"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "hexadecimal"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", "longer than its size"),
    ])
    func malformed(text: String, problem: String) {
        #expect {
            _ = try parse(text, piece: 3)
        } throws: { error in
            "\(error)".contains(problem)
        }
    }

    @Test("A head over the limit, and a response cut short, are failures")
    func limitsAndTruncation() {
        #expect {
            _ = try parse("HTTP/1.1 200 OK\r\nX: \(String(repeating: "a", count: 300))\r\n\r\n", piece: 50)
        } throws: { ($0 as? HTTP1ParseError)?.kind == .headTooLarge }
        #expect(throws: HTTP1ParseError(.truncated, "the connection closed before the message was complete")) {
            _ = try parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", piece: 4, atEnd: true)
        }
        #expect(throws: HTTP1ParseError(.truncated, "the connection closed before the message was complete")) {
            _ = try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", piece: 4, atEnd: true)
        }
    }

    @Test("Streaming: the body comes out in pieces that point into the input, whole or a byte at a time, never collected")
    func streamsBody() throws {
        for text in [
            "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n0123\r\n6\r\n456789\r\n0\r\n\r\n",
        ] {
            for piece in [text.utf8.count, 1, 7] {
                var parser = HTTP1Parser(requestMethod: "GET")
                parser.streamsBody = true
                var body: [UInt8] = []
                var pending: [UInt8] = []
                for start in stride(from: 0, to: text.utf8.count, by: piece) {
                    pending += Array(text.utf8).dropFirst(start).prefix(piece)
                    var used = 0
                    while used < pending.count, !parser.isComplete {
                        let count = try pending.withUnsafeBytes { bytes in
                            let rest = UnsafeRawBufferPointer(rebasing: bytes[used...])
                            let count = try parser.parse(rest)
                            if let range = parser.bodyPiece { body += rest[range] }
                            return count
                        }
                        if count == 0 { break }
                        used += count
                    }
                    pending.removeFirst(used)
                }
                #expect(parser.isComplete, "\(text) in pieces of \(piece)")
                #expect(String(decoding: body, as: UTF8.self) == "0123456789")
                #expect(parser.takeBody().isEmpty)
            }
        }
    }
}
