import Foundation
import OrreryCore
import Testing

@testable import OrreryServer

/// The admin API's route table, its router, and the README's table of endpoints, with no sockets.
@Suite("Admin route table")
struct AdminRouteTableTests {
    static let readme = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("README.md")

    /// The first cell of every row of the first table under `## Admin API`.
    static func readmeEndpoints() throws -> [String] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex(of: "## Admin API"), "the README has no '## Admin API' section")
        let rows = lines[start...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }.dropFirst(2)
        return rows.map { row in
            let cell = row.split(separator: "|", omittingEmptySubsequences: false)[1].trimmingCharacters(in: .whitespaces)
            return cell.hasPrefix("`") && cell.hasSuffix("`") ? String(cell.dropFirst().dropLast()) : cell
        }
    }

    static func request(_ method: String, _ target: String) -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: ["Host": "127.0.0.1"])
    }

    @Test("the README's admin table lists exactly the route table's endpoints, in its order")
    func readmeMatchesTheTable() throws {
        let documented = try Self.readmeEndpoints()
        let routes = AdminAPI.routes.map(\.name)
        #expect(
            documented == routes,
            "README.md's admin table should list, one per row as `METHOD PATH`:\n\(routes.joined(separator: "\n"))")
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
