import Foundation
import OrreryClient
import Testing

/// The stub-file JSON the DSL builds, without a daemon.
@Suite struct DSLTests {
    @Test func aFullURLRequiresItsHostAndComparesPathAndQuery() {
        let stub = stubRequest(.get, "https://api.example.com/users/1?fields=name")
            .withHeaders(["Accept": "application/json"])
            .andReturn(.code200OK)
            .withHeaders(["X-Request-Id": "abc"])
            .withJSON(["id": 1, "name": "Ada"])
        let expected: JSON = [
            "request": [
                "method": "GET", "host": "api.example.com", "url": "/users/1?fields=name",
                "headers": ["Accept": "application/json"],
            ],
            "response": ["status": 200, "headers": ["X-Request-Id": "abc"], "json": ["id": 1, "name": "Ada"]],
        ]
        #expect(stub.stubDefinition.json == expected)
        // Members in the order the stub file format lists them.
        #expect(stub.stubDefinition.json.objectMembers?.map(\.key) == ["request", "response"])
        #expect(
            stub.stubDefinition.json["response"]?.encoded
                == #"{"status":200,"headers":{"X-Request-Id":"abc"},"json":{"id":1,"name":"Ada"}}"#)
    }

    @Test func aPortStaysWithTheHost() {
        let json = stubRequest(.get, "http://127.0.0.1:9001/").stubDefinition.json
        #expect(json["request"] == ["method": "GET", "host": "127.0.0.1:9001", "url": "/"])
    }

    @Test func pathsPatternsAndAnyRequest() {
        #expect(stubRequest(.get, "/users/1").stubDefinition.json["request"] == ["method": "GET", "url": "/users/1"])
        #expect(
            stubRequest(.get, path: "/users/{id}").stubDefinition.json["request"] == [
                "method": "GET", "path": "/users/{id}",
            ])
        #expect(
            stubRequest(.post, pattern: "^/orders/[0-9]+$").stubDefinition.json["request"]
                == ["method": "POST", "urlPattern": "^/orders/[0-9]+$"])
        #expect(
            stubAnyRequest(.get, regex: "^/users/[0-9]+$").stubDefinition.json["request"]
                == ["method": "GET", "urlPattern": "^/users/[0-9]+$"])
        #expect(stubAnyRequest().stubDefinition.json == ["request": [:], "response": [:]])
        #expect(stubRequest("delete", "/x").stubDefinition.request.method == .delete)
    }

    @Test func requestConditions() {
        let json = stubRequest(.post, "/orders")
            .withHeader("Content-Type", .contains("json"))
            .withHeader("X-Debug", .absent)
            .withQuery(["tenant": "a"])
            .withQueryParameter("page", .matches("^[0-9]+$"))
            .withJSON(["sku": "A"])
            .stubDefinition.json["request"]
        #expect(
            json == [
                "method": "POST", "url": "/orders",
                "query": ["tenant": "a", "page": ["matches": "^[0-9]+$"]],
                "headers": ["Content-Type": ["contains": "json"], "X-Debug": ["absent": true]],
                "body": ["json": ["sku": "A"]],
            ])
        #expect(stubRequest(.post, "/t").withBody("plain").stubDefinition.json["request"]?["body"] == "plain")
        #expect(
            stubRequest(.post, "/t").withBody(Data([0xff, 0x00])).stubDefinition.json["request"]?["body"]
                == ["binaryEqualTo": "/wA="])
        #expect(
            stubRequest(.post, "/t").withBody(.allOf([.contains("a"), .matches("b$")])).stubDefinition.json["request"]?[
                "body"]
                == ["contains": "a", "matches": "b$"])
        #expect(
            stubRequest(.post, "/t").withBody(.form(["user": "ada", "token": .present])).stubDefinition.json[
                "request"]?["body"]
                == ["form": ["token": ["absent": false], "user": "ada"]])
    }

    @Test func responsesStatusesBodiesAndRepeatedHeaders() throws {
        #expect(stubRequest(.get, "/a").andReturn(201).stubDefinition.json["response"] == ["status": 201])
        #expect(
            stubRequest(.get, "/a").andReturn(.code404NotFound).withStatus(410).stubDefinition.json["response"] == [
                "status": 410
            ])
        let response = stubRequest(.get, "/a").andReturn(200)
            .withHeader("Set-Cookie", "a=1").withHeader("Set-Cookie", "b=2").withHeader("Cache-Control", "no-store")
            .withBody("hello")
            .stubDefinition.json["response"]
        #expect(
            response == [
                "status": 200, "headers": ["Set-Cookie": ["a=1", "b=2"], "Cache-Control": "no-store"], "body": "hello",
            ])
        #expect(
            stubRequest(.get, "/a").andReturn(200).withBodyFile("bodies/a.json").stubDefinition.json["response"]?[
                "bodyFile"] == "bodies/a.json")

        struct User: Encodable { let id: Int; let name: String }
        let encoded = stubRequest(.get, "/a").andReturn(200).withJSON(encoding: User(id: 1, name: "Ada"))
        #expect(encoded.stubDefinition.json["response"]?["json"] == ["id": 1, "name": "Ada"])
    }

    @Test func dynamicResponseKeys() {
        let json = stubRequest(.post, "/cart/checkout")
            .inScenario("checkout", whenState: "Started", willSetStateTo: "paid")
            .named("checkout").withPriority(1).withID("checkout-1")
            .andReturn(.code201Created)
            .withDelay(.uniform(100...300))
            .withThrottle(bytesPerSecond: 2048)
            .withTemplate()
            .withJSON(["id": "{{uuid}}"])
            .stubDefinition.json
        #expect(json["scenario"] == "checkout")
        #expect(json["requiredState"] == "Started")
        #expect(json["newState"] == "paid")
        #expect(json["name"] == "checkout")
        #expect(json["priority"] == 1)
        #expect(json["id"] == "checkout-1")
        #expect(
            json["response"] == [
                "status": 201, "json": ["id": "{{uuid}}"], "template": true, "delay": ["uniform": [100, 300]],
                "throttle": ["bytesPerSecond": 2048],
            ])
        #expect(
            stubRequest(.get, "/slow").andReturn(200).withDelay(250).stubDefinition.json["response"]?["delay"] == 250)
        #expect(
            stubRequest(.get, "/slow").andReturn(200).withDelay(.lognormal(median: 80, sigma: 0.4))
                .stubDefinition.json["response"]?["delay"] == ["lognormal": ["median": 80, "sigma": 0.4]])
        #expect(
            stubRequest(.get, "/flaky").andFail(with: .connectionReset).stubDefinition.json["response"]
                == ["fault": "connectionReset"])
        #expect(
            stubRequest(.get, "/p").andReturn(200).withField("paginate", ["perPage": 30]).stubDefinition.json[
                "response"]
                == ["status": 200, "paginate": ["perPage": 30]])
    }

    @Test func aStubThatCannotBeBuiltFailsBeforeAnythingIsSent() async throws {
        // Nothing listens there: the error must come from the DSL, not from the network.
        let client = OrreryClient(baseURL: try #require(URL(string: "http://127.0.0.1:9")))
        let binary = try await #require(throws: OrreryClientError.self) {
            try await stubRequest(.get, "/logo.png").andReturn(200).withBody(Data([0x89, 0x50, 0xff])).install(
                on: client)
        }
        #expect(binary.kind == .invalidStub)
        #expect(binary.description.contains("not UTF-8"))
        let badURL = try await #require(throws: OrreryClientError.self) {
            try await stubRequest(.get, "https://").install(on: client)
        }
        #expect(badURL.kind == .invalidStub)
        #expect(badURL.description.contains("https://"))
    }

    @Test func patternsDescribeThemselves() {
        #expect(RequestPattern(.get, "/users/1").description == "GET /users/1")
        #expect(RequestPattern(.get, "https://api.example.com/users/1").description == "GET api.example.com/users/1")
        #expect(RequestPattern(.any, path: "/orders").description == "any method /orders (any query)")
        #expect(
            RequestPattern(.post, "/orders").withJSON(["sku": "A"]).description
                == #"POST /orders with {"body":{"json":{"sku":"A"}}}"#)
    }

    @Test func statusesHaveTheirPhrases() {
        #expect(HTTPStatus.code404NotFound.description == "404 Not Found")
        #expect(HTTPStatus(599).description == "599")
        #expect(HTTPStatus.code200OK == 200)
    }
}
