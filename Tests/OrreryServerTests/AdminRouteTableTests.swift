import Foundation
import OrreryCore
import Testing

@testable import OrreryServer

/// The admin API's route table, its router, and the admin guide's table of endpoints, with no sockets.
@Suite("Admin route table")
struct AdminRouteTableTests {
    static let guide = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/admin-api.md")

    /// The first cell of every row of the first table under the guide's `# Admin API` title.
    static func documentedEndpoints() throws -> [String] {
        let text = try String(contentsOf: guide, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "# Admin API"), "docs/admin-api.md has no '# Admin API' title")
        let rows = lines[start...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }.dropFirst(2)
        return rows.map { row in
            let cell = row.split(separator: "|", omittingEmptySubsequences: false)[1].trimmingCharacters(in: .whitespaces)
            return cell.hasPrefix("`") && cell.hasSuffix("`") ? String(cell.dropFirst().dropLast()) : cell
        }
    }

    static func request(_ method: String, _ target: String) -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: ["Host": "127.0.0.1"])
    }

    @Test("the admin guide's table lists exactly the route table's endpoints, in its order")
    func guideMatchesTheTable() throws {
        let documented = try Self.documentedEndpoints()
        let routes = AdminAPI.routes.map(\.name)
        #expect(
            documented == routes,
            "docs/admin-api.md's table should list, one per row as `METHOD PATH`:\n\(routes.joined(separator: "\n"))")
    }

    @Test("every method and path is in the table once, and every route says what it does")
    func noDuplicates() {
        let names = AdminAPI.routes.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(AdminAPI.routes.allSatisfy { !$0.summary.isEmpty && $0.pattern.description.hasPrefix("/__admin/") })
    }

    @Test("a literal segment wins over a parameter, whatever the table's order")
    func literalWins() throws {
        let id = AdminRoute("GET", "/__admin/things/{id}", "one thing") { _, _ in .json(.null) }
        let deleteID = AdminRoute("DELETE", "/__admin/things/{id}", "remove one") { _, _ in .json(.null) }
        let reload = AdminRoute("POST", "/__admin/things/reload", "reload") { _, _ in .json(.null) }
        for router in [AdminRouter([id, deleteID, reload]), AdminRouter([reload, id, deleteID])] {
            guard case .route(let route, _) = router.resolve(method: "POST", path: ["__admin", "things", "reload"]) else {
                Issue.record("POST reload did not reach its route")
                continue
            }
            #expect(route.name == "POST /__admin/things/reload")
            guard case .methodNotAllowed(let allowed) = router.resolve(method: "GET", path: ["__admin", "things", "reload"]) else {
                Issue.record("GET reload should be 405")
                continue
            }
            #expect(allowed == ["POST"])
            guard case .route(let one, let parameters) = router.resolve(method: "GET", path: ["__admin", "things", "7"]) else {
                Issue.record("GET 7 did not reach its route")
                continue
            }
            #expect(one.name == "GET /__admin/things/{id}")
            #expect(parameters == ["id": "7"])
            guard case .methodNotAllowed(let methods) = router.resolve(method: "PATCH", path: ["__admin", "things", "7"]) else {
                Issue.record("PATCH 7 should be 405")
                continue
            }
            #expect(methods == ["GET", "DELETE"])
            guard case .notFound = router.resolve(method: "GET", path: ["__admin", "things", "7", "x"]) else {
                Issue.record("a longer path should be 404")
                continue
            }
        }
    }

    @Test("the real table: rewind and reload are reachable; ids that name an endpoint are not addressable")
    func realTable() {
        for name in ["rewind", "reload"] {
            guard case .route(let route, _) = AdminAPI.router.resolve(method: "POST", path: ["__admin", "stubs", name]) else {
                Issue.record("POST /__admin/stubs/\(name) is not routed")
                continue
            }
            #expect(route.name == "POST /__admin/stubs/\(name)")
            #expect(!AdminAPI.isAddressable(stubID: name))
        }
        #expect(AdminAPI.isAddressable(stubID: "login"))
        guard case .methodNotAllowed(let allowed) = AdminAPI.router.resolve(method: "PATCH", path: ["__admin", "stubs"]) else {
            Issue.record("PATCH /__admin/stubs should be 405")
            return
        }
        #expect(allowed == ["GET", "POST", "DELETE"])
    }

    @Test("segments are decoded one by one; a trailing slash and the query do not count")
    func segments() {
        #expect(AdminRouter.segments(of: Self.request("GET", "/__admin/stubs/a%2Fb?x=1")) == ["__admin", "stubs", "a/b"])
        #expect(AdminRouter.segments(of: Self.request("GET", "/__admin/health/")) == ["__admin", "health"])
        #expect(AdminRouter.segments(of: Self.request("GET", "/__admin/environments/api.example.com%3A8443")) == [
            "__admin", "environments", "api.example.com:8443",
        ])
    }
}

/// Who may use the admin API, as a value.
@Suite("Admin access")
struct AdminAccessTests {
    static let access = AdminAccess(token: nil, listenHost: "127.0.0.1", port: 8080)

    static func request(_ headers: HTTPHeaders) -> HTTPRequest {
        HTTPRequest(method: "POST", target: "/__admin/stubs", headers: headers)
    }

    @Test("the daemon's own origins pass, any other is refused", arguments: [
        ("http://127.0.0.1:8080", true), ("http://localhost:8080", true), ("http://[::1]:8080", true),
        ("HTTP://LOCALHOST:8080", true), ("http://127.0.0.1:8081", false), ("http://localhost", false),
        ("https://127.0.0.1:8080", false), ("http://evil.example", false), ("null", false),
        ("http://127.0.0.1.evil.example:8080", false), ("http://user@127.0.0.1:8080", false),
    ])
    func origins(origin: String, isOwn: Bool) {
        #expect(Self.access.isOwn(origin: origin) == isOwn)
    }

    @Test("Host may name the listening address, localhost or a numeric loopback address, with any port", arguments: [
        ("127.0.0.1:8080", true), ("127.0.0.1", true), ("localhost:8080", true), ("LOCALHOST", true), ("[::1]:8080", true),
        ("127.1.2.3:9000", true), ("[::ffff:127.0.0.1]", true), ("evil.example", false), ("evil.example:8080", false),
        ("127.0.0.1.evil.example", false), ("127.evil.example", false), ("localhost:x", false), ("[::2]:8080", false),
        ("10.0.0.1:8080", false),
    ])
    func hosts(host: String, isOwn: Bool) {
        #expect(Self.access.isOwn(host: host) == isOwn)
    }

    @Test("a listening address that is not loopback is accepted as itself")
    func listenHost() {
        let access = AdminAccess(token: "t", listenHost: "192.168.1.5", port: 80)
        #expect(access.isOwn(host: "192.168.1.5:80"))
        #expect(access.isOwn(origin: "http://192.168.1.5"))
        #expect(!access.isOwn(host: "192.168.1.6"))
    }

    @Test("foreign Origin or Host is 403 from loopback, unless the token is sent; no Origin passes")
    func refusals() throws {
        #expect(Self.access.refusal(Self.request(["Host": "127.0.0.1:8080"]), remoteAddress: "127.0.0.1") == nil)
        let crossSite = try #require(
            Self.access.refusal(Self.request(["Host": "127.0.0.1:8080", "Origin": "http://evil.example"]), remoteAddress: "127.0.0.1"))
        #expect(crossSite.status == 403)
        let rebound = try #require(Self.access.refusal(Self.request(["Host": "evil.example:8080"]), remoteAddress: "127.0.0.1"))
        #expect(rebound.status == 403)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(rebound.body)) as? [String: Any])
        #expect(json["failureReason"] is String)
        #expect(json["recoverySuggestion"] is String)

        var withToken = Self.access
        withToken.token = "secret"
        let headers: HTTPHeaders = ["Host": "evil.example", "Origin": "http://evil.example"]
        var bearer = headers
        bearer.add("Authorization", "Bearer secret")
        var header = headers
        header.add("X-Orrery-Admin-Token", "secret")
        #expect(withToken.refusal(Self.request(bearer), remoteAddress: "127.0.0.1") == nil)
        #expect(withToken.refusal(Self.request(header), remoteAddress: "10.1.2.3") == nil)
        #expect(withToken.refusal(Self.request(headers), remoteAddress: "127.0.0.1")?.status == 403)
        var wrong = headers
        wrong.add("X-Orrery-Admin-Token", "guess")
        #expect(withToken.refusal(Self.request(wrong), remoteAddress: "127.0.0.1")?.status == 401)
        #expect(withToken.refusal(Self.request(["Host": "10.0.0.1"]), remoteAddress: "10.1.2.3")?.status == 401)
        #expect(Self.access.refusal(Self.request(["Host": "10.0.0.1"]), remoteAddress: "10.1.2.3")?.status == 403)
    }

    @Test("loopback means a numeric loopback address", arguments: [
        ("127.0.0.1", true), ("127.255.0.9", true), ("::1", true), ("::ffff:127.0.0.1", true), ("128.0.0.1", false),
        ("::2", false), ("localhost", false), ("127.example", false), ("", false),
    ])
    func loopback(address: String, isLoopback: Bool) {
        #expect(AdminAccess.isLoopback(address) == isLoopback)
    }
}
