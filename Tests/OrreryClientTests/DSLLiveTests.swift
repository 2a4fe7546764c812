import Foundation
import OrreryClient
import Testing

/// Stubs made with the DSL answering real requests.
@Suite struct DSLLiveTests {
    @Test func aStubForAFullURLAnswersThatHost() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        try await stubRequest(.get, "https://api.example.com/users/1")
            .withHeaders(["Accept": "application/json"])
            .andReturn(.code200OK)
            .withHeaders(["X-Request-Id": "abc"])
            .withJSON(["id": 1, "name": "Ada"])
            .install(on: daemon.client)

        let headers = ["Host": "api.example.com", "Accept": "application/json"]
        let answer = try await HTTP.send("GET", "/users/1", to: daemon, headers: headers)
        #expect(answer.status == 200)
        #expect(try answer.json() == ["id": 1, "name": "Ada"])
        #expect(answer.header("X-Request-Id") == "abc")
        #expect(answer.header("Content-Type") == "application/json")

        #expect(try await HTTP.send("GET", "/users/1", to: daemon, headers: ["Host": "api.example.com"]).status == 404)
        #expect(
            try await HTTP.send("GET", "/users/1", to: daemon, headers: ["Accept": "application/json"]).status == 404)
        #expect(try await HTTP.send("GET", "/users/1?x=1", to: daemon, headers: headers).status == 404)
    }

    /// The example of docs/testing-from-swift.md, as written there.
    @Test func theReadmeExample() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let orrery = OrreryClient(baseURL: daemon.baseURL)
        try await orrery.reset()
        try await stubRequest(.get, "https://api.example.com/users/1")
            .withHeaders(["Accept": "application/json"])
            .andReturn(.code200OK)
            .withJSON(["id": 1, "name": "Ada"])
            .install(on: orrery)
        let headers = ["Host": "api.example.com", "Accept": "application/json"]
        #expect(
            try await HTTP.send("GET", "/users/1", to: daemon, headers: headers).json() == ["id": 1, "name": "Ada"])
        try await orrery.verify(.get, "https://api.example.com/users/1", count: 1)
    }

    @Test func requestBodiesAndResponseBodies() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let client = daemon.client
        try await stubRequest(.post, "/echo").withBody("ping").andReturn(201).withBody("pong").install(on: client)
        try await stubRequest(.post, "/orders").withJSON(["sku": "A", "quantity": 2]).andReturn(202)
            .withBody(Data("{\"accepted\": true}".utf8)).withHeader("Content-Type", "application/json")
            .install(on: client)
        struct Receipt: Codable, Equatable { let order: Int; let items: [String] }
        try await stubRequest(.get, "/receipts/7").andReturn(200).withJSON(encoding: Receipt(order: 7, items: ["A"]))
            .install(on: client)

        let echo = try await HTTP.send("POST", "/echo", to: daemon, body: Data("ping".utf8))
        #expect(echo.status == 201)
        #expect(echo.text == "pong")
        #expect(try await HTTP.send("POST", "/echo", to: daemon, body: Data("pong".utf8)).status == 404)

        // Key order and spacing differ from the stub's; the JSON is equal.
        let order = try await HTTP.send("POST", "/orders", to: daemon, body: Data(#"{"quantity":2, "sku":"A"}"#.utf8))
        #expect(order.status == 202)
        #expect(try order.json() == ["accepted": true])

        let receipt = try await HTTP.send("GET", "/receipts/7", to: daemon)
        #expect(try JSONDecoder().decode(Receipt.self, from: receipt.body) == Receipt(order: 7, items: ["A"]))
    }

    @Test func regexStubs() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        try await stubAnyRequest(.get, regex: "^/users/[0-9]+$").andReturn(200).withBody("a user").install(
            on: daemon.client)
        try await stubRequest(.post, pattern: "^/orders/[0-9]+/cancel").andReturn(.code409Conflict).install(
            on: daemon.client)

        #expect(try await HTTP.send("GET", "/users/42", to: daemon).text == "a user")
        #expect(try await HTTP.send("GET", "/users/ada", to: daemon).status == 404)
        #expect(try await HTTP.send("POST", "/users/42", to: daemon).status == 404)
        #expect(try await HTTP.send("POST", "/orders/7/cancel?why=late", to: daemon).status == 409)
    }

    @Test func aStubWithoutAResponseAnswersAnEmpty200() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        try await stubRequest(.delete, "/sessions/current").install(on: daemon.client)
        let answer = try await HTTP.send("DELETE", "/sessions/current", to: daemon)
        #expect(answer.status == 200)
        #expect(answer.body.isEmpty)
    }

    @Test func repeatedResponseHeadersAndPriority() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let client = daemon.client
        try await stubRequest(.get, path: "/login").andReturn(200).withBody("general").install(on: client)
        try await stubRequest(.get, path: "/login").withPriority(1).named("preferred").andReturn(200)
            .withHeader("X-Tag", "a").withHeader("X-Tag", "b").withBody("preferred").install(on: client)
        let answer = try await HTTP.send("GET", "/login?next=/", to: daemon)
        #expect(answer.text == "preferred")
        #expect(answer.header("X-Tag")?.replacingOccurrences(of: " ", with: "") == "a,b")
        #expect(try await client.requests().requests.first?.stub?.name == "preferred")
    }

    @Test func delayedResponsesWait() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        try await stubRequest(.get, "/slow").andReturn(200).withDelay(300).install(on: daemon.client)
        let clock = ContinuousClock()
        let start = clock.now
        #expect(try await HTTP.send("GET", "/slow", to: daemon).status == 200)
        #expect(clock.now - start >= .milliseconds(280))
    }

    /// Keys of DESIGN's "Dynamic responses": served when the daemon has them, else refused by name.
    @Test func dynamicResponsesWhenTheDaemonHasThem() async throws {
        let daemon = try await Daemon.start()
        defer { daemon.stop() }
        let client = daemon.client

        try await installed(
            stubRequest(.get, path: "/users/{id}").andReturn(200).withTemplate().withJSON(["id": "{{params.id}}"]),
            key: "template", on: client
        ) { () async throws in
            #expect(try await HTTP.send("GET", "/users/7", to: daemon).json() == ["id": "7"])
        }
        try await installed(
            stubRequest(.get, "/flaky").andFail(with: .connectionReset), key: "fault", on: client
        ) { () async throws in
            await #expect(throws: (any Error).self) { try await HTTP.send("GET", "/flaky", to: daemon) }
            let exchange = try #require(try await client.requests().requests.first)
            #expect(exchange.fault == "connectionReset" && exchange.scheme == "http" && exchange.session == nil)
        }
        try await installed(
            stubRequest(.get, "/jitter").andReturn(200).withDelay(.uniform(10...20)), key: "delay", on: client
        ) { () async throws in
            #expect(try await HTTP.send("GET", "/jitter", to: daemon).status == 200)
        }
        try await installed(
            stubRequest(.post, "/cart/checkout").inScenario("checkout", whenState: "Started", willSetStateTo: "paid")
                .andReturn(201),
            key: "scenario", on: client
        ) { () async throws in
            #expect(try await HTTP.send("POST", "/cart/checkout", to: daemon).status == 201)
            #expect(try await HTTP.send("POST", "/cart/checkout", to: daemon).status == 404)
        }
    }

    /// Installs `stub` (the daemon must take its `key`) and runs `served`.
    private func installed(
        _ stub: some StubConvertible, key: String, on client: OrreryClient, served: () async throws -> Void
    ) async throws {
        do {
            try await client.addStub(stub)
        } catch {
            Issue.record("the daemon refused a stub with '\(key)': \(error)")
            return
        }
        try await served()
    }
}
