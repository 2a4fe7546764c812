import Foundation
import OrreryServer
import Testing

/// `GET /__admin/requests/stream`: the journal as server-sent events, for the dashboard's live view.
@Suite("Exchange stream")
struct ExchangeStreamLiveTests {
    static let stub = #"{"request": {"method": "GET", "path": "/ok"}, "response": {"json": {"ok": true}}}"#

    @Test("a viewer gets each exchange as it is journaled, and 'cleared' when the journal is emptied")
    func liveExchanges() async throws {
        try await LiveServer.with(files: ["stubs/ok.json": Self.stub]) { (server: LiveServer) async throws in
            let viewer = try RawConnection(port: server.port)
            viewer.send("GET /__admin/requests/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let head = try #require(viewer.read(through: "\r\n\r\n"))
            #expect(head.hasPrefix("HTTP/1.1 200 OK"))
            #expect(head.contains("Content-Type: text/event-stream"))
            #expect(head.contains("Transfer-Encoding: chunked"))
            #expect(!head.contains("Content-Length"))
            #expect(viewer.read(through: "retry: 2000\n\n") != nil)

            #expect(try await server.request("/ok").status == 200)
            let event = try #require(Self.nextEvent(from: viewer), "no event after a request")
            #expect(event.contains("event: exchange"))
            #expect(event.contains(#""path":"/ok""#))
            #expect(event.contains("id: 1\n"))

            #expect(try await server.request("DELETE", "/__admin/requests").status == 200)
            let cleared = try #require(Self.nextEvent(from: viewer))
            #expect(cleared.contains("event: cleared"))
        }
    }

    @Test("a viewer on a session's port is sent that session's exchanges alone")
    func sessionViewerSeesItsOwn() async throws {
        try await LiveServer.with(files: ["stubs/ok.json": Self.stub]) { (server: LiveServer) async throws in
            let mine = try await SessionLiveTests.open(server)
            let other = try await SessionLiveTests.open(server)
            let viewer = try RawConnection(port: mine.port)
            viewer.send("GET /__admin/requests/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            _ = try #require(viewer.read(through: "retry: 2000\n\n"))
            // Another session's exchange and the daemon's own come first; the viewer's first event must be its own.
            #expect(try await HTTPClient.request("GET", other.url + "/ok?who=other").status == 200)
            #expect(try await server.request("/ok?who=daemon").status == 200)
            #expect(try await HTTPClient.request("GET", mine.url + "/ok?who=mine").status == 200)
            let event = try #require(Self.nextEvent(from: viewer), "no event after the session's own request")
            #expect(event.contains("who=mine"), "\(event)")
        }
    }

    /// The next event, skipping comment lines (the heartbeat a slow run may meet).
    static func nextEvent(from viewer: RawConnection) -> String? {
        for _ in 0..<10 {
            guard let block = viewer.read(through: "\n\n") else { return nil }
            if block.contains("event:") { return block }
        }
        return nil
    }

    @Test("a stopping daemon ends the stream at once instead of waiting for it")
    func stopsPromptly() async throws {
        let server = try LiveServer(files: ["stubs/ok.json": Self.stub])
        let viewer = try RawConnection(port: server.port)
        viewer.send("GET /__admin/requests/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        _ = try #require(viewer.read(through: "retry: 2000\n\n"))
        let started = ContinuousClock.now
        server.stop()
        #expect(ContinuousClock.now - started < .seconds(2))
        let (rest, closed) = viewer.readToEnd()
        #expect(closed)
        // The chunked body ends properly.
        #expect(String(decoding: rest, as: UTF8.self).hasSuffix("0\r\n\r\n"))
    }
}
