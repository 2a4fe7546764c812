import Testing

@testable import OrreryCore

/// What WireMock's admin API is sent, read as values: a posted mapping becomes the stub the same mapping in a file
/// would be, with the priority the caller makes of WireMock's; a request pattern becomes a native one.
@Suite("WireMock admin input")
struct WireMockAdminInputTests {
    static let id = "8c2a7d0e-54a3-4b57-9d0a-4a4f3b0c1a01"

    @Test("A posted mapping is the stub a file's mapping is, with its id and the priority made of WireMock's")
    func mapping() throws {
        let json = try JSONValue.parse(
            #"{"priority": 2, "request": {"method": "GET", "urlPathPattern": "/users/[0-9]+"}, "response": {"status": 201, "jsonBody": {"a": 1}}}"#
        )
        let converted = try WireMockAdminInput.mapping(json, id: Self.id) { $0 * 100 }
        #expect(converted.stub.id == Self.id)
        #expect(converted.wireMockPriority == 2)
        #expect(converted.stub.priority == 200)
        #expect(converted.stub.request.matches(HTTPRequest(method: "GET", target: "/users/42")))
        #expect(!converted.stub.request.matches(HTTPRequest(method: "GET", target: "/users/42/x")))
        #expect(converted.stub.response.status == 201)
        #expect(
            converted.stub.response.headers["Content-Type"] == nil, "WireMock adds no Content-Type it was not given")
    }

    @Test("A mapping Orrery cannot honour is refused with the JSON path and the reason")
    func refused() throws {
        let json = try JSONValue.parse(
            #"{"request": {"method": "GET", "customMatcher": {"name": "x"}}, "response": {}}"#)
        #expect(throws: WireMockAdminInputError.self) { try WireMockAdminInput.mapping(json, id: Self.id) { $0 } }
        do {
            _ = try WireMockAdminInput.mapping(json, id: Self.id) { $0 }
        } catch {
            #expect(error.pointers == ["/request/customMatcher"])
            #expect(error.messages.first?.contains("customMatcher") == true)
        }
    }

    @Test("A request pattern as WireMock's clients send it for verification")
    func requestPattern() throws {
        let pattern = try WireMockAdminInput.requestPattern(
            try JSONValue.parse(#"{"method": "POST", "url": "/orders", "bodyPatterns": [{"contains": "sku"}]}"#))
        #expect(pattern.matches(HTTPRequest(method: "POST", target: "/orders", body: Array(#"{"sku": 1}"#.utf8))))
        #expect(!pattern.matches(HTTPRequest(method: "POST", target: "/orders", body: Array("{}".utf8))))
        #expect(!pattern.matches(HTTPRequest(method: "GET", target: "/orders", body: Array("sku".utf8))))
        let any = try WireMockAdminInput.requestPattern(
            try JSONValue.parse(#"{"method": "ANY", "urlPattern": "/a.*"}"#))
        #expect(any.matches(HTTPRequest(method: "DELETE", target: "/abc")))
    }
}
