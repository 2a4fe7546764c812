import Foundation
import OrreryCore
import Testing

@Suite("HTTP/2 as values: the preface, Upgrade: h2c, header blocks")
struct HTTP2Tests {
    private func feed(_ pieces: [String]) -> [HTTP2Preface.Verdict] {
        var preface = HTTP2Preface()
        return pieces.map { piece in Array(piece.utf8).withUnsafeBytes { preface.received($0) } }
    }

    @Test("the preface, whole or a byte at a time, is HTTP/2 with every byte kept")
    func preface() {
        let whole = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
        #expect(feed([whole + "\0\0"]) == [.http2(Array((whole + "\0\0").utf8))])
        let split = feed(whole.map { String($0) })
        #expect(split.dropLast().allSatisfy { $0 == .undecided })
        #expect(split.last == .http2(Array(whole.utf8)))
    }

    @Test("an HTTP/1 request is told at its first byte that differs, with the bytes held before it")
    func http1() {
        #expect(feed(["GET / HTTP/1.1\r\n"]) == [.http1(Array("GET / HTTP/1.1\r\n".utf8))])
        // PRI is a method HTTP/1 may carry: the difference comes later.
        #expect(feed(["PRI * HTTP/", "1.1\r\n"]) == [.undecided, .http1(Array("PRI * HTTP/1.1\r\n".utf8))])
        var preface = HTTP2Preface()
        _ = Array("PR".utf8).withUnsafeBytes { preface.received($0) }
        #expect(preface.receivedEnd() == Array("PR".utf8))
    }

    @Test("Upgrade: h2c takes a bodiless request with one HTTP2-Settings, and drops the fields that asked")
    func upgrade() throws {
        // curl's: MAX_CONCURRENT_STREAMS 100, INITIAL_WINDOW_SIZE, ENABLE_PUSH 0.
        let settings = "AAMAAABkAARAAAAAAAIAAAAA"
        let request = HTTPRequest(
            method: "GET", target: "/a?b=1",
            headers: [
                "Host": "localhost", "Connection": "Upgrade, HTTP2-Settings", "Upgrade": "h2c",
                "HTTP2-Settings": settings,
                "Accept": "*/*",
            ])
        let upgrade = try #require(HTTP2Upgrade(request))
        #expect(upgrade.settings.count == 18)
        #expect(upgrade.settings.prefix(6) == [0, 3, 0, 0, 0, 100])
        #expect(upgrade.request.headers.entries.map(\.name) == ["Host", "Accept"])
        #expect(upgrade.request.target == "/a?b=1")
    }

    @Test("no upgrade without Connection: Upgrade, with a body, or with settings that do not decode")
    func noUpgrade() {
        let fields: [(String, String)] = [
            ("Connection", "Upgrade, HTTP2-Settings"), ("Upgrade", "h2c"), ("HTTP2-Settings", ""),
        ]
        #expect(HTTP2Upgrade(HTTPRequest(method: "GET", target: "/", headers: HTTPHeaders(fields))) != nil)
        #expect(
            HTTP2Upgrade(HTTPRequest(method: "GET", target: "/", headers: HTTPHeaders(Array(fields.dropFirst()))))
                == nil)
        #expect(HTTP2Upgrade(HTTPRequest(method: "POST", target: "/", headers: HTTPHeaders(fields), body: [1])) == nil)
        var bad = fields
        bad[2] = ("HTTP2-Settings", "AAM*")
        #expect(HTTP2Upgrade(HTTPRequest(method: "GET", target: "/", headers: HTTPHeaders(bad))) == nil)
        var websocket = fields
        websocket[1] = ("Upgrade", "websocket")
        #expect(HTTP2Upgrade(HTTPRequest(method: "GET", target: "/", headers: HTTPHeaders(websocket))) == nil)
    }

    @Test("base64url without padding, and the standard alphabet with it")
    func base64() {
        #expect(HTTP2Upgrade.decodeBase64URL("-_8") == [0xFB, 0xFF])
        #expect(HTTP2Upgrade.decodeBase64URL("+/8=") == [0xFB, 0xFF])
        #expect(HTTP2Upgrade.decodeBase64URL("aGk") == Array("hi".utf8))
        #expect(HTTP2Upgrade.decodeBase64URL("a b") == nil)
    }

    @Test("an encoded HTTP/1 head becomes lower-case HTTP/2 fields, without the connection-specific ones")
    func fieldsFromHead() throws {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        headers.add("X-Trace", " a b ")
        headers.add("Keep-Alive", "timeout=5")
        headers.add("Upgrade", "websocket")
        let response = EncodedResponse(status: 201, headers: headers, body: Payload("{}"))
        let fields = try #require(response.head.withUnsafeBytes { HTTP2Fields(http1Head: $0) })
        #expect(fields.status == 201)
        #expect(
            fields.pairs.map { "\($0.name)=\($0.value)" } == [
                ":status=201", "content-type=application/json", "x-trace=a b", "content-length=2",
            ])
        let trailers = HTTP2Fields(status: nil, headers: ["Grpc-Status": "0", "Connection": "close"])
        #expect(trailers.pairs.map { "\($0.name)=\($0.value)" } == ["grpc-status=0"])
        #expect(HTTP2Fields(malformedWith: HTTPHeaders()).pairs.first?.value == "orrery")
    }

    private func add(_ head: inout HTTP2RequestHead, _ name: String, _ value: String, limit: Int = 65_536) -> Bool {
        Array(name.utf8).withUnsafeBytes { name in
            Array(value.utf8).withUnsafeBytes { head.add(name: name, value: $0, limit: limit) }
        }
    }

    @Test("a header block becomes the request: :authority as host, cookies joined, the body as sent")
    func requestHead() {
        var head = HTTP2RequestHead()
        for (name, value) in [
            (":method", "POST"), (":scheme", "https"), (":authority", "api.example.test"), (":path", "/a%20b?x=1"),
            ("cookie", "a=1"), ("x-orrery-session", "s1"), ("cookie", "b=2"),
        ] {
            #expect(add(&head, name, value))
        }
        let request = head.request(body: Array("hi".utf8))
        #expect(request.method == "POST")
        #expect(request.path == "/a b")
        #expect(request.rawQuery == "x=1")
        #expect(request.host == "api.example.test")
        #expect(request.headers["Cookie"] == "a=1; b=2")
        #expect(request.headers["X-Orrery-Session"] == "s1")
        #expect(request.bodyText == "hi")
    }

    @Test("an extended CONNECT (RFC 8441) is the WebSocket handshake it stands for: a GET of :path with the upgrade")
    func extendedConnect() {
        var head = HTTP2RequestHead()
        for (name, value) in [
            (":method", "CONNECT"), (":protocol", "websocket"), (":scheme", "https"),
            (":authority", "api.example.test"), (":path", "/chat?room=1"), ("sec-websocket-version", "13"),
            ("sec-websocket-protocol", "chat, superchat"),
        ] {
            #expect(add(&head, name, value))
        }
        #expect(head.isExtendedConnect)
        #expect(head.connectProtocol == "websocket")
        let request = head.webSocketRequest()
        #expect(request.method == "GET")
        #expect(request.path == "/chat")
        #expect(request.rawQuery == "room=1")
        #expect(request.host == "api.example.test")
        #expect(WebSocketHandshake.isUpgrade(request))
        // No key over HTTP/2: a valid handshake there, not over HTTP/1.1.
        #expect(WebSocketHandshake.problem(with: request, overHTTP2: true) == nil)
        #expect(WebSocketHandshake.problem(with: request) != nil)
        // A plain CONNECT is not one.
        var plain = HTTP2RequestHead()
        #expect(add(&plain, ":method", "CONNECT"))
        #expect(add(&plain, ":authority", "api.example.test:443"))
        #expect(!plain.isExtendedConnect)
        #expect(plain.request(body: []).target == "api.example.test:443")
    }

    @Test("the 101 that accepts a handshake becomes a 200 without the upgrade's fields; the subprotocol stays")
    func extendedConnectAnswer() {
        let head = Array(
            ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: chat\r\n"
                + "X-Upstream: yes\r\n\r\n").utf8)
        let answer = WebSocketHandshake.http2Answer(forHead: head)
        #expect(answer.status == 200)
        #expect(answer.headers.entries.map(\.name) == ["Sec-WebSocket-Protocol", "X-Upstream"])
        #expect(answer.headers["sec-websocket-protocol"] == "chat")
        let key = WebSocketHandshake.makeKey()
        #expect(Data(base64Encoded: key)?.count == 16)
        #expect(key != WebSocketHandshake.makeKey())
    }

    @Test("host: from :authority first when the block has none, the block's own where it has one, none without either")
    func requestHost() {
        var head = HTTP2RequestHead()
        for (name, value) in [(":method", "GET"), (":authority", "a.test"), (":path", "/"), ("accept", "*/*")] {
            #expect(add(&head, name, value))
        }
        let fields = head.request(body: []).headers.entries.map { "\($0.name): \($0.value)" }
        #expect(fields == ["host: a.test", "accept: */*"])

        var own = HTTP2RequestHead()
        for (name, value) in [
            (":method", "GET"), (":authority", "a.test"), (":path", "/"), ("accept", "*/*"), ("host", "b.test"),
        ] {
            #expect(add(&own, name, value))
        }
        let request = own.request(body: [])
        #expect(request.headers.entries.map { "\($0.name): \($0.value)" } == ["accept: */*", "host: b.test"])
        #expect(request.host == "b.test")

        var bare = HTTP2RequestHead()
        for (name, value) in [(":method", "GET"), (":path", "/x"), (":authority", "")] {
            #expect(add(&bare, name, value))
        }
        #expect(bare.request(body: []).headers.entries.isEmpty)
        #expect(bare.request(body: []).host == nil)
    }

    @Test("a header list is counted as RFC 9113 counts it (name, value, 32 a field) and refused past the limit")
    func headerListLimit() {
        var head = HTTP2RequestHead()
        #expect(add(&head, "x-a", String(repeating: "v", count: 65), limit: 100))
        #expect(head.listBytes == 100)
        #expect(!add(&head, "b", "", limit: 100))
    }
}
