import Foundation
import Testing

@testable import OrreryCore

/// `websocket` and `events` stubs as values: what they decode to, what a script answers, how events are written,
/// and the errors a broken one gets.
@Suite("Real-time stubs as values")
struct RealtimeStubTests {
    static let chat = """
        request:
          path: /chat
          websocket: true
        response:
          websocket:
            onOpen: [ welcome, { json: { hello: true }, delay: 5 } ]
            onMessage:
              - match: { jsonPath: $.type, equalTo: join }
                reply:
                  - text: "joined {{message.json.room}} at {{request.path}}"
                    template: true
              - match: quit
                close: { code: 4001, reason: bye }
              - reply: [ { binary: AQID } ]
        """

    static func upgrade(_ path: String = "/chat") -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add("Upgrade", "websocket")
        headers.add("Connection", "Upgrade")
        return HTTPRequest(method: "GET", target: path, headers: headers)
    }

    @Test("A WebSocket stub matches only a GET that asks for the upgrade")
    func matching() throws {
        let stub = try StubText.decodeOne(Self.chat)
        #expect(stub.request.method == "GET")
        #expect(stub.request.matches(Self.upgrade()))
        #expect(!stub.request.matches(HTTPRequest(method: "GET", target: "/chat")))
    }

    @Test("The script's opening messages, a template over the message, a close, and a catch-all")
    func script() throws {
        let script = try #require(try StubText.decodeOne(Self.chat).response.websocket)
        let opening = script.opening(Self.upgrade())
        #expect(opening.map(\.message.text) == ["welcome", #"{"hello":true}"#])
        #expect(opening.map(\.delayMilliseconds) == [0, 5])
        let joined = script.answer(WebSocketMessage(text: #"{"type":"join","room":"lobby"}"#), request: Self.upgrade())
        #expect(joined.rule == 0)
        #expect(joined.messages.map(\.message.text) == ["joined lobby at /chat"])
        let quit = script.answer(WebSocketMessage(text: "quit"), request: Self.upgrade())
        #expect(quit.messages.isEmpty)
        #expect(quit.close == WebSocketScript.Close(code: 4001, reason: "bye"))
        let other = script.answer(WebSocketMessage(text: "anything"), request: Self.upgrade())
        #expect(other.rule == 2)
        #expect(other.messages.first?.message == WebSocketMessage(binary: [1, 2, 3]))
    }

    @Test("A message no rule takes gets no answer")
    func unmatched() throws {
        let stub = try StubText.decodeOne(
            """
            request: { path: /echo, websocket: true }
            response:
              websocket:
                onMessage: [ { match: { contains: x }, reply: [ y ] } ]
            """)
        let answer = try #require(stub.response.websocket).answer(
            WebSocketMessage(text: "nothing"), request: Self.upgrade("/echo"))
        #expect(answer == WebSocketScript.Answer(rule: nil, messages: [], close: nil))
    }

    @Test("Broken WebSocket stubs are errors at their lines")
    func errors() {
        let cases: [(String, String)] = [
            (
                "request: { path: /a, websocket: yes please }\nresponse: { status: 200 }",
                "'websocket' must be true or false"
            ),
            ("request: { path: /a, method: POST, websocket: true }\nresponse: { websocket: {} }", "opens with a GET"),
            (
                "request: { path: /a, websocket: true }\nresponse:\n  websocket:\n    onMesage: []",
                "did you mean 'onMessage'"
            ),
            (
                "request: { path: /a, websocket: true }\nresponse:\n  websocket:\n    onOpen: [ { binary: '@@' } ]",
                "'binary' must be base64"
            ),
            (
                "request: { path: /a, websocket: true }\nresponse:\n  websocket:\n    onMessage: [ { close: 1005 } ]",
                "close code 1005 cannot be sent"
            ),
            ("request: { path: /a, websocket: true }\nresponse:\n  body: hi\n  websocket: {}", "leave out 'body'"),
            (
                "request: { path: /a, websocket: true }\nresponse:\n  websocket:\n    onOpen: [ { text: '{{message.txt}}', template: true } ]",
                "message.text"
            ),
        ]
        for (text, expected) in cases {
            let errors = StubText.errors(text, as: .yaml)
            #expect(errors.contains { $0.message.contains(expected) }, "\(errors.map(\.message))")
            #expect(errors.allSatisfy { $0.line > 0 })
        }
    }

    @Test("Events are written in the text/event-stream format and read back with their timing")
    func events() throws {
        let stub = try StubText.decodeOne(
            """
            request: { path: /scores }
            response:
              keepOpen: true
              events:
                - { event: score, data: { home: 1 }, id: "7" }
                - { data: "two\\nlines", retry: 500, delay: 250 }
            """)
        let script = try #require(stub.response.events)
        #expect(script.keepOpen)
        #expect(stub.response.headers["Content-Type"] == "text/event-stream")
        let text = String(decoding: script.encoded, as: UTF8.self)
        #expect(text == "event: score\nid: 7\ndata: {\"home\":1}\n\nretry: 500\ndata: two\ndata: lines\n\n")
        let parsed = EventStreamScript.parse(script.encoded, arrivals: [10, 260])
        #expect(
            parsed == [
                EventStreamScript.Event(event: "score", data: #"{"home":1}"#, id: "7", delayMilliseconds: 10),
                EventStreamScript.Event(data: "two\nlines", retry: 500, delayMilliseconds: 250),
            ])
        let errors = StubText.errors("request: { path: /a }\nresponse:\n  keepOpen: true", as: .yaml)
        #expect(errors.contains { $0.message.contains("'keepOpen' goes beside 'events'") })
    }
}
