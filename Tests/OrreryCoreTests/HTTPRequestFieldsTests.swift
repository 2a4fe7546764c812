import Testing

@testable import OrreryCore

/// The two fields a request reads while it is made: `Host` and whether `X-Orrery-Session` is there.
@Suite("Request fields read at once")
struct HTTPRequestFieldsTests {
    @Test("Host is the first Host field, in any case; an absolute target's authority wins")
    func host() {
        #expect(
            HTTPRequest(method: "GET", target: "/", headers: ["hOsT": "a.test", "Host": "b.test"]).host == "a.test")
        #expect(HTTPRequest(method: "GET", target: "/", headers: ["Accept": "*/*"]).host == nil)
        #expect(HTTPRequest(method: "GET", target: "http://c.test/x", headers: ["Host": "a.test"]).host == "c.test")
    }

    @Test("A request names a session only when it has the field, spelled in any case")
    func namesSession() {
        #expect(
            !HTTPRequest(method: "GET", target: "/", headers: ["Host": "h", "X-Orrery-Sessions": "a"]).namesSession)
        #expect(HTTPRequest(method: "GET", target: "/", headers: ["Host": "h", "x-orrery-session": "a"]).namesSession)
        #expect(HTTPRequest(method: "GET", target: "/", headers: [HTTPRequest.sessionHeader: ""]).namesSession)
        #expect(!HTTPRequest(method: "GET", target: "/").namesSession)
    }
}
