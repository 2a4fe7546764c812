import Foundation
import OrreryServer
import Testing

/// `GET /__admin/ui` on a live daemon, over plain HTTP: what is sent, and to whom.
@Suite("Dashboard over HTTP")
struct DashboardLiveTests {
    static let stub = #"{"name": "ok", "request": {"method": "GET", "path": "/ok"}, "response": {"json": {"ok": true}}}"#

    /// One request on its own connection; the answer's head (lower-cased names) and body.
    static func exchange(_ port: Int, _ method: String, _ target: String, _ headers: [String] = [])
        throws -> (status: Int, headers: [String: String], body: String)
    {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.lowercased().hasPrefix("host:") }) { text += "Host: 127.0.0.1:\(port)\r\n" }
        for header in headers { text += header + "\r\n" }
        text += "Content-Length: 0\r\nConnection: close\r\n\r\n"
        let answer = try RawSocket.exchange(port: port, text)
        let parts = answer.components(separatedBy: "\r\n\r\n")
        let lines = parts[0].components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, fields, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test("the page and its files come from the binary with their types, a strict policy, gzip and revalidation")
    func servesThePage() async throws {
        try await LiveServer.with(files: ["stubs/ok.json": Self.stub]) { (server: LiveServer) async throws in
            let page = try Self.exchange(server.port, "GET", "/__admin/ui")
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.headers["content-security-policy"]?.hasPrefix("default-src 'none'; script-src 'self'") == true)
            #expect(page.headers["x-content-type-options"] == "nosniff")
            #expect(page.headers["referrer-policy"] == "no-referrer")
            #expect(page.headers["cache-control"] == "no-cache")
            #expect(page.body.contains("<title>Orrery dashboard</title>"))

            for (name, type) in [("dashboard.js", "text/javascript"), ("dashboard.css", "text/css"), ("favicon.svg", "image/svg+xml")] {
                let file = try Self.exchange(server.port, "GET", "/__admin/ui/\(name)", ["Accept-Encoding: gzip"])
                #expect(file.status == 200, "\(name)")
                #expect(file.headers["content-type"]?.hasPrefix(type) == true, "\(name)")
                #expect(file.headers["content-encoding"] == "gzip", "\(name)")
                let tag = try #require(file.headers["etag"])
                let again = try Self.exchange(server.port, "GET", "/__admin/ui/\(name)", ["Accept-Encoding: gzip", "If-None-Match: \(tag)"])
                #expect(again.status == 304, "\(name)")
            }
            let plain = try await server.request("/__admin/ui/dashboard.js")
            #expect(plain.text.contains("EventSource"))
            #expect(try Self.exchange(server.port, "GET", "/__admin/ui/nothing.js").status == 404)
            #expect(try Self.exchange(server.port, "POST", "/__admin/ui").status == 405)
        }
    }

    @Test("the admin API's rules hold: another site's Origin or Host is refused")
    func sameRules() async throws {
        try await LiveServer.with(files: ["stubs/ok.json": Self.stub]) { (server: LiveServer) async throws in
            #expect(try Self.exchange(server.port, "GET", "/__admin/ui", ["Host: evil.example"]).status == 403)
            #expect(try Self.exchange(server.port, "GET", "/__admin/ui/dashboard.js", ["Origin: http://evil.example"]).status == 403)
            #expect(try Self.exchange(server.port, "GET", "/__admin/ui", ["Origin: http://127.0.0.1:\(server.port)"]).status == 200)
            #expect(try Self.exchange(server.port, "GET", "/__admin/ui", ["Host: localhost:\(server.port)"]).status == 200)
        }
    }

    @Test("with an admin token: given once in the URL, a cookie carries it for the page's own reads, and no further")
    func tokenOnce() async throws {
        let token = "s3cret token"
        try await LiveServer.with(files: ["stubs/ok.json": Self.stub], configure: { $0.adminToken = token }) {
            (server: LiveServer) async throws in
            // A name that is not loopback, as a browser on another machine (or one rebinding DNS) sends it.
            let host = "Host: dashboard.test:\(server.port)"
            #expect(try Self.exchange(server.port, "GET", "/__admin/ui", [host]).status == 403)
            #expect(try Self.exchange(server.port, "GET", "/__admin/ui?token=guess", [host]).status == 401)

            let handOver = try Self.exchange(server.port, "GET", "/__admin/ui?token=s3cret%20token", [host])
            #expect(handOver.status == 303)
            #expect(handOver.headers["location"] == "/__admin/ui")
            let setCookie = try #require(handOver.headers["set-cookie"])
            #expect(setCookie == "orrery-admin-token-\(server.port)=s3cret%20token; Path=/__admin; HttpOnly; SameSite=Strict")
            let cookie = "Cookie: " + (setCookie.split(separator: ";").first.map(String.init) ?? "")

            let page = try Self.exchange(server.port, "GET", "/__admin/ui", [host, cookie])
            #expect(page.status == 200)
            #expect(page.headers["cache-control"] == "no-store")
            #expect(page.body.contains(#"<meta name="orrery-admin-token" content="s3cret token">"#))
            #expect(try Self.exchange(server.port, "GET", "/__admin/ui/dashboard.js", [host, cookie]).status == 200)
            #expect(try Self.exchange(server.port, "GET", "/__admin/requests.har", [host, cookie]).status == 200)
            let viewer = try RawConnection(port: server.port)
            viewer.send("GET /__admin/requests/stream HTTP/1.1\r\n\(host)\r\n\(cookie)\r\n\r\n")
            let head = try #require(viewer.read(through: "\r\n\r\n"))
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.contains("text/event-stream"))

            // The cookie reads nothing else and changes nothing; the URL form works on the page alone.
            #expect(try Self.exchange(server.port, "GET", "/__admin/stubs", [host, cookie]).status == 403)
            #expect(try Self.exchange(server.port, "DELETE", "/__admin/requests", [host, cookie]).status == 403)
            #expect(
                try Self.exchange(server.port, "DELETE", "/__admin/requests", [cookie, "Origin: http://127.0.0.1:9"]).status == 403)
            #expect(try Self.exchange(server.port, "GET", "/__admin/requests/stream?token=s3cret%20token", [host]).status == 403)
            #expect(try Self.exchange(server.port, "DELETE", "/__admin/requests?token=s3cret%20token", [host]).status == 403)
            // The header, as the page sends it, does everything.
            #expect(try Self.exchange(server.port, "DELETE", "/__admin/requests", [host, "X-Orrery-Admin-Token: \(token)"]).status == 200)
        }
    }
}
