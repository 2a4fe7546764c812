import Testing
@testable import OrreryCore

/// The request parser as a value: every input is also fed cut at every byte boundary, a byte at a time and at pairs
/// of cuts, and must be read the same way each time.
@Suite("Reading requests")
struct HTTP1RequestParsingTests {
    // MARK: - Request lines

    @Test("The four forms of request target are read as they are")
    func targetForms() {
        let origin = parseEveryWay("GET /a/b%20c?x=1&y HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(origin.isComplete && origin.method == "GET" && origin.target == "/a/b%20c?x=1&y" && origin.error == nil)

        let absolute = parseEveryWay("GET http://api.example.com:8080/users?id=1 HTTP/1.1\r\nHost: api.example.com:8080\r\n\r\n")
        #expect(absolute.isComplete && absolute.target == "http://api.example.com:8080/users?id=1")

        let authority = parseEveryWay("CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n")
        #expect(authority.isComplete && authority.method == "CONNECT" && authority.target == "api.example.com:443")

        let asterisk = parseEveryWay("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(asterisk.isComplete && asterisk.method == "OPTIONS" && asterisk.target == "*")
    }

    @Test("Each form and framing is read completely, whole or in pieces", arguments: wellFormedRequests)
    func wellFormed(text: String) {
        let parsed = parseEveryWay(text)
        #expect(parsed.error == nil && parsed.isComplete, "\(parsed)")
        #expect(parsed.consumed == text.utf8.count)
    }

    @Test("A token byte is exactly RFC 9110's tchar, for every byte")
    func tokenBytes() {
        let tchar = Set(Array("!#$%&'*+-.^_`|~0123456789".utf8) + Array(65...90) + Array(97...122))
        for byte in UInt8.min...UInt8.max {
            #expect(HTTP1Parser.isTokenByte(byte) == tchar.contains(byte), "byte \(byte)")
            // A header name of that byte alone (a line break would end the line): read only when it is a token.
            guard byte != 0x0A && byte != 0x0D else { continue }
            let parsed = parseRequest(Array("GET / HTTP/1.1\r\nHost: h\r\n".utf8) + [byte] + Array(": v\r\n\r\n".utf8))
            #expect((parsed.error == nil) == tchar.contains(byte), "header name byte \(byte)")
        }
    }

    @Test("Methods are tokens, kept as sent; targets may carry UTF-8 bytes")
    func methodsAndTargets() {
        #expect(parseEveryWay("PROPFIND /x HTTP/1.1\r\nHost: h\r\n\r\n").method == "PROPFIND")
        #expect(parseEveryWay("get /x HTTP/1.1\r\nHost: h\r\n\r\n").method == "get")
        #expect(parseEveryWay("M-SEARCH! /x HTTP/1.1\r\nHost: h\r\n\r\n").method == "M-SEARCH!")
        #expect(parseEveryWay("GET /caf\u{E9} HTTP/1.1\r\nHost: h\r\n\r\n").target == "/caf\u{E9}")
    }

    @Test("Empty lines before the request line are skipped; lines may end in a bare LF")
    func emptyLinesAndBareLF() {
        let skipped = parseEveryWay("\r\n\n\r\nGET /x HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(skipped.isComplete && skipped.target == "/x" && skipped.consumed == 33)
        let bareLF = parseEveryWay("GET /x HTTP/1.1\nHost: h\nX-A: 1\n\n")
        #expect(bareLF.isComplete && bareLF.headers == ["Host: h", "X-A: 1"])
    }

    @Test("HTTP/1.0 and HTTP/1.1 are read; a later 1.x minor version is read as 1.1")
    func versions() {
        #expect(parseEveryWay("GET / HTTP/1.0\r\n\r\n").minorVersion == 0)
        #expect(parseEveryWay("GET / HTTP/1.1\r\nHost: h\r\n\r\n").minorVersion == 1)
        #expect(parseEveryWay("GET / HTTP/1.9\r\nHost: h\r\n\r\n").minorVersion == 1)
    }

    // MARK: - Header fields

    @Test("Header values lose the whitespace around them and keep what is inside; names keep their case and order")
    func headerValues() {
        let parsed = parseEveryWay(
            "GET / HTTP/1.1\r\nhost: h\r\nX-Spaced:  \t a  b \t \r\nX-Empty:\r\nX-Empty-Spaced:   \r\nX-Tab: a\tb\r\n"
                + "X-Latin: caf\u{E9}\r\nx-spaced: again\r\n\r\n")
        #expect(
            parsed.headers == [
                "host: h", "X-Spaced: a  b", "X-Empty: ", "X-Empty-Spaced: ", "X-Tab: a\tb", "X-Latin: caf\u{E9}",
                "x-spaced: again",
            ])
        #expect(parsed.error == nil && parsed.isComplete)
    }

    @Test("Header names may use every token character")
    func tokenNames() {
        let parsed = parseEveryWay("GET / HTTP/1.1\r\nHost: h\r\n!#$%&'*+-.^_`|~09AZaz: v\r\n\r\n")
        #expect(parsed.headers.last == "!#$%&'*+-.^_`|~09AZaz: v")
    }

    // MARK: - Persistence

    @Test(
        "Whether the connection may carry another request: Connection, Proxy-Connection and the version decide",
        arguments: [
            ("GET / HTTP/1.1\r\nHost: h\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: CLOSE\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nConnection: close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, X-Foo\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: closed\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nHost: h\r\nProxy-Connection: close\r\n\r\n", false),
            ("GET http://h/ HTTP/1.1\r\nHost: h\r\nProxy-Connection: keep-alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\n\r\n", false),
            ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", false),
            ("GET http://h/ HTTP/1.0\r\nProxy-Connection: Keep-Alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\nProxy-Connection: keep-alive\r\nConnection: close\r\n\r\n", false),
            // A transfer coding on HTTP/1.0 is read, but the connection is not trusted after it.
            ("POST / HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false),
        ])
    func persistence(text: String, isKeepAlive: Bool) {
        let parsed = parseEveryWay(text)
        #expect(parsed.error == nil && parsed.isComplete)
        #expect(parsed.isKeepAlive == isKeepAlive)
    }

    // MARK: - Bodies

    @Test("A Content-Length body is read to its length, and what follows is left for the next request")
    func contentLengthBody() {
        let head = "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"
        let parsed = parseEveryWay(head + "helloGET / HTTP/1.1\r\n")
        #expect(parsed.isComplete && parsed.bodyText == "hello" && parsed.contentLength == 5 && !parsed.isChunked)
        #expect(parsed.consumed == head.utf8.count + 5)

        let empty = parseEveryWay("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\nGET")
        #expect(empty.isComplete && empty.body.isEmpty && empty.contentLength == 0)

        let same = parseEveryWay("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\ncontent-length: 3\r\n\r\nabc")
        #expect(same.isComplete && same.bodyText == "abc" && same.contentLength == 3)

        let list = parseEveryWay("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 3 , 3,\r\n\r\nabc")
        #expect(list.isComplete && list.bodyText == "abc" && list.contentLength == 3)

        let leadingZeros = parseEveryWay("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 003\r\n\r\nabc")
        #expect(leadingZeros.bodyText == "abc")

        let binary: [UInt8] = Array("PUT /b HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\n".utf8) + [0, 13, 10, 255]
        #expect(parseEveryWay(binary).body == [0, 13, 10, 255])
    }

    @Test("A body that has not all arrived leaves the request incomplete")
    func partialBody() {
        let parsed = parseEveryWay("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nhello")
        #expect(parsed.hasHead && !parsed.isComplete && parsed.error == nil && parsed.bodyText == "hello")
    }

    @Test("Chunked bodies: hex sizes of either case, extensions read and ignored, trailers read and dropped")
    func chunkedBodies() {
        let text =
            "POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4;ext=1\r\nWiki\r\n5 ;a=\"b c\";d\r\npedia\r\nA\t;x\r\n in chunks\r\n00\r\nX-Trailer: t\r\nX-Other: u\r\n\r\n"
        let parsed = parseEveryWay(text + "GET")
        #expect(parsed.isComplete && parsed.isChunked && parsed.contentLength == nil)
        #expect(parsed.bodyText == "Wikipedia in chunks")
        #expect(parsed.headers == ["Host: h", "Transfer-Encoding: chunked"])
        #expect(parsed.consumed == text.utf8.count)

        let upper = parseEveryWay("POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\na\r\n0123456789\r\n0\r\n\r\n")
        #expect(upper.bodyText == "0123456789" && upper.isChunked)

        let bareLF = parseEveryWay("POST /p HTTP/1.1\nHost: h\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n")
        #expect(bareLF.bodyText == "abc" && bareLF.isComplete)

        let empty = parseEveryWay("POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(empty.isComplete && empty.body.isEmpty)
    }

    @Test("A chunked body stops where its trailers end")
    func chunkedEnd() {
        let text = "POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n"
        let parsed = parseEveryWay(text + "GET / HTTP/1.1\r\n")
        #expect(parsed.isComplete && parsed.consumed == text.utf8.count)
    }

    @Test("A trailer is checked like a header line")
    func badTrailers() {
        for trailer in [" folded", "Bad Name: x", "X: a\u{0}b", "no colon"] {
            let parsed = parseEveryWay(
                "POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\(trailer)\r\n\r\n")
            #expect(parsed.error?.kind == .malformed, "\(trailer)")
        }
    }

    // MARK: - Expect

    @Test("The Expect value is kept, trimmed, for the connection to act on")
    func expectation() {
        #expect(parseEveryWay("POST / HTTP/1.1\r\nHost: h\r\nExpect:  100-continue \r\nContent-Length: 1\r\n\r\nx").expectation == "100-continue")
        #expect(parseEveryWay("GET / HTTP/1.1\r\nHost: h\r\n\r\n").expectation == nil)
    }

    // MARK: - Malformed

    @Test("Malformed requests are refused with a 400 and a reason, however they arrive", arguments: malformedRequests)
    func malformed(problem: String, text: String) {
        let parsed = parseEveryWay(text)
        let error = parsed.error
        #expect(error?.kind == .malformed, "\(problem): \(parsed)")
        #expect(error?.status == .Code400BadRequest)
        #expect(error.map { !$0.message.isEmpty } == true)
    }

    @Test("A transfer coding before chunked is not supported: 501")
    func unsupportedCoding() {
        for value in ["gzip, chunked", "deflate,chunked", "br, gzip, chunked"] {
            let parsed = parseEveryWay("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \(value)\r\n\r\n0\r\n\r\n")
            #expect(parsed.error?.kind == .unsupportedTransferCoding)
            #expect(parsed.error?.status == .Code501NotImplemented)
        }
        let split = parseEveryWay("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(split.error?.kind == .unsupportedTransferCoding)
    }

    @Test("Messages name what was wrong")
    func messages() {
        #expect(parseEveryWay(malformedRequests[0].text).error?.message == "Two Content-Length values that differ (5 and 6).")
        #expect(parseEveryWay("GET / HTTP/1.1\r\n\r\n").error?.message == "An HTTP/1.1 request without a Host header.")
        let folded = parseEveryWay("GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  continued\r\n\r\n")
        #expect(folded.error?.message == "A header line starts with whitespace (obsolete line folding).")
        let control = parseEveryWay("GET /\u{1}\u{7F} HTTP/1.1\r\n\r\n")
        #expect(control.error?.message == "The request target holds whitespace or a control character (byte 1).")
        let printable = parseEveryWay("GET\r\n\r\n").error?.message
        #expect(printable == "The request line 'GET' is not 'METHOD TARGET HTTP/1.1'.")
    }

    @Test("HTTP/1.0 needs no Host")
    func http10WithoutHost() {
        let parsed = parseEveryWay("GET / HTTP/1.0\r\n\r\n")
        #expect(parsed.isComplete && parsed.error == nil)
    }

    // MARK: - Limits

    @Test("A target over the limit is 414, whether or not its line has ended")
    func targetLimit() {
        let atLimit = parseEveryWay("GET /\(String(repeating: "a", count: 39)) HTTP/1.1\r\nHost: h\r\n\r\n", limits: smallLimits)
        #expect(atLimit.isComplete && atLimit.target.count == 40)
        let over = parseEveryWay("GET /\(String(repeating: "a", count: 40)) HTTP/1.1\r\nHost: h\r\n\r\n", limits: smallLimits)
        #expect(over.error?.kind == .targetTooLong && over.error?.status == .Code414URITooLong)
        // An endless line is refused before it ends.
        let endless = parseEveryWay("GET /\(String(repeating: "a", count: 100))", limits: smallLimits)
        #expect(endless.error?.kind == .targetTooLong)
        // A long absolute-form target counts whole.
        let absolute = parseEveryWay("GET http://h/\(String(repeating: "a", count: 40)) HTTP/1.1\r\nHost: h\r\n\r\n", limits: smallLimits)
        #expect(absolute.error?.kind == .targetTooLong)
    }

    @Test("Header lines over the limit are 431, whether or not the last has ended; the request line does not count")
    func headLimit() {
        let longValue = String(repeating: "v", count: 60)
        let under = parseEveryWay("GET /\(String(repeating: "a", count: 39)) HTTP/1.1\r\nHost: h\r\nX-A: \(longValue)\r\n\r\n", limits: smallLimits)
        #expect(under.isComplete)
        let over = parseEveryWay(
            "GET / HTTP/1.1\r\nHost: h\r\nX-A: \(longValue)\r\nX-B: \(longValue)\r\n\r\n", limits: smallLimits)
        #expect(over.error?.kind == .headTooLarge && over.error?.status == .Code431RequestHeaderFieldsTooLarge)
        let endless = parseEveryWay("GET / HTTP/1.1\r\nHost: h\r\nX-A: \(String(repeating: "v", count: 200))", limits: smallLimits)
        #expect(endless.error?.kind == .headTooLarge)
        let manyLines = parseEveryWay(
            "GET / HTTP/1.1\r\n" + String(repeating: "A: b\r\n", count: 30) + "Host: h\r\n\r\n", limits: smallLimits)
        #expect(manyLines.error?.kind == .headTooLarge)
    }

    @Test("Trailers count against the head limit")
    func trailerLimit() {
        let parsed = parseEveryWay(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n"
                + String(repeating: "X-T: tttttttttt\r\n", count: 10) + "\r\n",
            limits: smallLimits)
        #expect(parsed.error?.kind == .headTooLarge)
    }

    @Test("A body over the limit is 413: a declared length at once, a chunked one as its sizes add up")
    func bodyLimit() {
        let atLimit = parseEveryWay(
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 16\r\n\r\n\(String(repeating: "b", count: 16))", limits: smallLimits)
        #expect(atLimit.isComplete && atLimit.body.count == 16)
        // Refused from the head alone: the body need not arrive.
        let declared = parseEveryWay("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 17\r\n\r\n", limits: smallLimits)
        #expect(declared.error?.kind == .bodyTooLarge && declared.error?.status == .Code413ContentTooLarge)
        let huge = parseEveryWay("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 999999999999999999\r\n\r\n", limits: smallLimits)
        #expect(huge.error?.kind == .bodyTooLarge)

        let chunkedAtLimit = parseEveryWay(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n8\r\naaaaaaaa\r\n8\r\nbbbbbbbb\r\n0\r\n\r\n",
            limits: smallLimits)
        #expect(chunkedAtLimit.isComplete && chunkedAtLimit.body.count == 16)
        let chunkedOver = parseEveryWay(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n8\r\naaaaaaaa\r\n9\r\nbbbbbbbbb\r\n0\r\n\r\n",
            limits: smallLimits)
        #expect(chunkedOver.error?.kind == .bodyTooLarge)
        let oneHugeChunk = parseEveryWay(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n", limits: smallLimits)
        #expect(oneHugeChunk.error?.kind == .bodyTooLarge)
        let tooManyDigits = parseEveryWay(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000001\r\nx\r\n0\r\n\r\n")
        #expect(tooManyDigits.error?.kind == .malformed)
    }

    @Test("A chunk line may not run on without end")
    func chunkLineLimit() {
        let parsed = parseEveryWay(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 5000))
        #expect(parsed.error?.kind == .malformed)
    }

    @Test("The end of input completes nothing in a request, and cuts a partial one")
    func endOfInput() throws {
        var parser = HTTP1Parser(role: .request)
        let bytes = Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nab".utf8)
        _ = try bytes.withUnsafeBytes { try parser.parseMessage($0) }
        #expect(throws: HTTP1ParseError.self) { try parser.finishAtEndOfInput() }

        var complete = HTTP1Parser(role: .request)
        _ = try Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8).withUnsafeBytes { try complete.parseMessage($0) }
        try complete.finishAtEndOfInput()
        #expect(complete.isComplete)
    }

    @Test("reset() readies the parser for the next request on the connection")
    func reset() throws {
        var parser = HTTP1Parser(role: .request, limits: smallLimits)
        let first = Array("POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nab".utf8)
        _ = try first.withUnsafeBytes { try parser.parseMessage($0) }
        #expect(parser.isComplete && parser.takeBody() == Array("ab".utf8))
        parser.reset()
        #expect(!parser.isComplete && !parser.hasHead && parser.expectation == nil && parser.headers.count == 0)
        #expect(parser.limits == smallLimits)
        _ = try Array("GET /b HTTP/1.0\r\n\r\n".utf8).withUnsafeBytes { try parser.parseMessage($0) }
        #expect(parser.isComplete && parser.target == "/b" && parser.minorVersion == 0 && !parser.isKeepAlive)
    }
}

/// The encoder: what goes out for each kind of answer.
@Suite("Writing responses")
struct HTTP1EncoderTests {
    private func head(_ response: EncodedResponse) -> String { response.head.text }

    @Test("A response's head: status line, the given fields in order, and Content-Length")
    func plainHead() {
        let response = EncodedResponse(
            status: 201, headers: ["Content-Type": "text/plain", "X-Id": "7"], body: Payload("hello"))
        #expect(head(response) == "HTTP/1.1 201 Created\r\nContent-Type: text/plain\r\nX-Id: 7\r\nContent-Length: 5\r\n")
        #expect(response.body.text == "hello" && !response.hasDate && !response.closesConnection)
        #expect(response.sendsBody(in: ResponseContext()))
        let reason = EncodedResponse(status: 299, reason: "Fine Enough", headers: [:], body: .empty)
        #expect(head(reason) == "HTTP/1.1 299 Fine Enough\r\nContent-Length: 0\r\n")
    }

    @Test("HEAD gets the Content-Length its GET would get, and no body")
    func headAnswer() {
        let response = EncodedResponse(status: 200, headers: ["Content-Type": "application/json"], body: Payload("{\"a\":1}"))
        #expect(head(response).contains("Content-Length: 7\r\n"))
        #expect(!response.sendsBody(in: ResponseContext(isHead: true)))
        #expect(response.sendsBody(in: ResponseContext(isHead: false)))
        // A relayed answer to HEAD: no body, the upstream's length.
        let relayed = EncodedResponse(status: 200, headers: [:], body: .empty, contentLength: 42)
        #expect(head(relayed) == "HTTP/1.1 200 OK\r\nContent-Length: 42\r\n")
        #expect(!relayed.sendsBody(in: ResponseContext(isHead: true)))
    }

    @Test("1xx and 204 have neither Content-Length nor body; 304 has no body", arguments: [100, 101, 102, 103, 204, 304])
    func bodiless(status: Int) {
        let response = EncodedResponse(
            status: status, headers: ["Content-Length": "5", "X-A": "1"], body: Payload("hello"), contentLength: 5)
        #expect(!head(response).contains("Content-Length"), "\(head(response))")
        #expect(head(response).hasSuffix("X-A: 1\r\n"))
        #expect(response.body.count == 0)
        #expect(!response.sendsBody(in: ResponseContext()))
        #expect(!HTTP1Encoder.allowsBody(status: status))
    }

    @Test("Statuses that carry bodies", arguments: [200, 201, 205, 206, 301, 302, 400, 404, 500, 599])
    func withBody(status: Int) {
        #expect(HTTP1Encoder.allowsBody(status: status))
        #expect(EncodedResponse(status: status, headers: [:], body: .empty).head.text.hasSuffix("Content-Length: 0\r\n"))
    }

    @Test("Framing fields a handler gives are replaced by the encoder's own")
    func framingReplaced() {
        let response = EncodedResponse(
            status: 200,
            headers: HTTPHeaders([
                ("content-length", "99"), ("Transfer-Encoding", "chunked"), ("X-A", "1"), ("Connection", "keep-alive"),
                ("keep-alive", "timeout=5"), ("CONTENT-LENGTH", "1"),
            ]),
            body: Payload("abc"))
        #expect(head(response) == "HTTP/1.1 200 OK\r\nX-A: 1\r\nContent-Length: 3\r\n")
        #expect(!response.closesConnection)
    }

    @Test("Connection: close among the given fields closes the connection", arguments: ["close", "Close", "keep-alive, close", "x, CLOSE"])
    func connectionClose(value: String) {
        let response = EncodedResponse(status: 200, headers: ["Connection": value], body: .empty)
        #expect(response.closesConnection)
        #expect(!head(response).contains("onnection"))
    }

    @Test("A Date of the handler's is kept and reported, so the tail adds none")
    func ownDate() {
        let response = EncodedResponse(status: 200, headers: ["date": "Tue, 01 Jan 2030 00:00:00 GMT"], body: .empty)
        #expect(response.hasDate)
        #expect(head(response).contains("date: Tue, 01 Jan 2030 00:00:00 GMT\r\n"))
    }

    @Test("The tail: Date, the Connection field, the blank line")
    func tails() {
        let date = "Mon, 23 Nov 2026 19:49:43 GMT"
        #expect(String(decoding: HTTP1Encoder.tail(date: date, connection: .none), as: UTF8.self) == "Date: \(date)\r\n\r\n")
        #expect(String(decoding: HTTP1Encoder.tail(date: nil, connection: .close), as: UTF8.self) == "Connection: close\r\n\r\n")
        #expect(String(decoding: HTTP1Encoder.tail(date: nil, connection: .keepAlive), as: UTF8.self) == "Connection: keep-alive\r\n\r\n")
    }

    @Test("CR, LF and NUL in a field or reason never start a line of their own")
    func injection() {
        let response = EncodedResponse(
            status: 200, reason: "OK\r\nX-Evil: 1", headers: ["X-A": "a\r\nSet-Cookie: x", "X-B\n": "b\u{0}c"], body: .empty)
        #expect(head(response) == "HTTP/1.1 200 OK  X-Evil: 1\r\nX-A: a  Set-Cookie: x\r\nX-B : b c\r\nContent-Length: 0\r\n")
    }

    @Test("An error Orrery makes: JSON with the status's texts, and Connection: close when it ends the connection")
    func errors() throws {
        let error = ErrorResponse(.Code400BadRequest, message: "A bare CR.")
        let closing = EncodedResponse(error, closing: true)
        #expect(closing.closesConnection && closing.status == 400)
        #expect(!head(closing).contains("Connection"))
        #expect(head(closing).contains("Content-Type: application/json\r\n"))
        #expect(head(closing).contains("Content-Length: \(error.body.count)\r\n"))
        let text = closing.body.text
        #expect(text.contains("\"failureReason\"") && text.contains("\"recoverySuggestion\"") && text.contains("A bare CR."))
        #expect(!EncodedResponse(error).closesConnection)
    }

    @Test("What the encoder writes, the response parser reads back")
    func roundTrip() throws {
        for (status, method, body) in [(200, "GET", "hello"), (200, "HEAD", ""), (204, "GET", ""), (304, "GET", ""), (404, "POST", "{}")] {
            let response = EncodedResponse(status: status, headers: ["X-A": "1"], body: Payload(body), contentLength: method == "HEAD" ? 5 : nil)
            let context = ResponseContext(isHead: method == "HEAD")
            var bytes = response.head.bytes + HTTP1Encoder.tail(date: "Mon, 23 Nov 2026 19:49:43 GMT", connection: .none)
            if response.sendsBody(in: context) { bytes += response.body.bytes }
            var parser = HTTP1Parser(requestMethod: method)
            let used = try bytes.withUnsafeBytes { try parser.parseMessage($0) }
            #expect(used == bytes.count && parser.isComplete, "\(status) \(method)")
            #expect(parser.status == status && parser.body == Array(body.utf8) && parser.headers["X-A"] == "1")
            #expect(!parser.closesConnection)
        }
    }

    @Test("A request's head: framing fields replaced, Content-Length where the method or body calls for one")
    func requestHead() {
        let get = HTTP1Encoder.requestHead(
            method: "GET", target: "/a", headers: ["Host": "h", "Connection": "keep-alive", "Content-Length": "9"], bodyLength: 0)
        #expect(String(decoding: get, as: UTF8.self) == "GET /a HTTP/1.1\r\nHost: h\r\n\r\n")
        let post = HTTP1Encoder.requestHead(method: "POST", target: "/a", headers: ["Transfer-Encoding": "chunked"], bodyLength: 0)
        #expect(String(decoding: post, as: UTF8.self) == "POST /a HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        let delete = HTTP1Encoder.requestHead(method: "DELETE", target: "/a", headers: [:], bodyLength: 3)
        #expect(String(decoding: delete, as: UTF8.self) == "DELETE /a HTTP/1.1\r\nContent-Length: 3\r\n\r\n")
    }
}
