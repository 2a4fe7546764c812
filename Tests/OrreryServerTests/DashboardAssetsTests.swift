import Foundation
import OrreryCore
import OrreryEvent
import Testing

@testable import OrreryServer

/// The dashboard's files as compiled into the binary, and who may read them, with no sockets.
@Suite("Dashboard assets")
struct DashboardAssetsTests {
    static let assetsFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/OrreryServer/Dashboard/Assets")

    static func text(_ name: String) throws -> String {
        try #require(DashboardFiles.all.first { $0.name == name }?.text, "no embedded \(name)")
    }

    @Test("the compiled-in files are exactly the files in Dashboard/Assets (else run scripts/embed-dashboard-assets.py)")
    func embeddedFilesAreCurrent() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.assetsFolder.path)
            .filter { !$0.hasPrefix(".") }.sorted()
        let stale = "Sources/OrreryServer/Dashboard/DashboardFiles.swift is stale: run scripts/embed-dashboard-assets.py"
        #expect(DashboardFiles.all.map(\.name) == names, "\(stale)")
        for (name, text) in DashboardFiles.all {
            let onDisk = try Data(contentsOf: Self.assetsFolder.appendingPathComponent(name))
            #expect(Array(text.utf8) == Array(onDisk), "\(name) differs from the file on disk. \(stale)")
        }
    }

    @Test("the page loads its script, styles and icon from the daemon, and nothing from anywhere else")
    func noNetwork() throws {
        let page = try Self.text("index.html")
        for name in Dashboard.assets.keys.sorted() {
            #expect(page.contains("\"\(Dashboard.path)/\(name)\""), "index.html does not link \(name)")
        }
        for name in ["index.html", "dashboard.js", "dashboard.css"] {
            let text = try Self.text(name)
            #expect(!text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"), "\(name) names another site")
            #expect(!text.contains("@import"), "\(name) imports")
        }
    }

    @Test("no inline script or style for the Content-Security-Policy to allow; traffic is put in the page as text")
    func strictPolicyHolds() throws {
        let page = try Self.text("index.html")
        #expect(!page.contains("<style"))
        #expect(!page.contains(" style="))
        #expect(page.components(separatedBy: "<script").count == 2, "one script element")
        #expect(page.contains("<script src=\"/__admin/ui/dashboard.js\" defer></script>"))
        #expect(page.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil, "no inline event handlers")
        let script = try Self.text("dashboard.js")
        for forbidden in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "'style'"] {
            #expect(!script.contains(forbidden), "dashboard.js uses \(forbidden)")
        }
        #expect(Dashboard.contentSecurityPolicy.contains("default-src 'none'"))
        #expect(Dashboard.contentSecurityPolicy.contains("script-src 'self'"))
        #expect(!Dashboard.contentSecurityPolicy.contains("unsafe"))
    }

    @Test("each file has its type, a gzip form made once, and answers 304 to a browser that holds it")
    func serving() throws {
        let script = try #require(Dashboard.assets["dashboard.js"])
        #expect(script.contentType == "text/javascript; charset=utf-8")
        #expect(Dashboard.assets["dashboard.css"]?.contentType == "text/css; charset=utf-8")
        #expect(Dashboard.assets["favicon.svg"]?.contentType == "image/svg+xml")
        let gzipped = try #require(script.gzipped)
        #expect(gzipped.count < script.body.count / 2)
        #expect(Zlib.decompress(gzipped, .gzip) == script.body)

        let plain = script.reply(to: HTTPRequest(method: "GET", target: "/__admin/ui/dashboard.js"))
        #expect(plain.status == 200 && plain.body == script.body)
        #expect(plain.headers["Content-Encoding"] == nil)
        #expect(plain.headers["Cache-Control"] == "no-cache")
        #expect(plain.headers["Content-Security-Policy"] == Dashboard.contentSecurityPolicy)
        let compressed = script.reply(to: HTTPRequest(method: "GET", target: "/x", headers: ["Accept-Encoding": "gzip, br"]))
        #expect(compressed.headers["Content-Encoding"] == "gzip" && compressed.body == gzipped)
        #expect(compressed.headers["Vary"] == "Accept-Encoding")
        let tag = try #require(plain.headers["ETag"])
        #expect(tag != compressed.headers["ETag"])
        let revalidated = script.reply(to: HTTPRequest(method: "GET", target: "/x", headers: ["If-None-Match": tag]))
        #expect(revalidated.status == 304 && revalidated.body.isEmpty)
        let changed = script.reply(to: HTTPRequest(method: "GET", target: "/x", headers: ["If-None-Match": "\"other\""]))
        #expect(changed.status == 200)
    }

    static func request(_ method: String, _ target: String, _ headers: HTTPHeaders = ["Host": "127.0.0.1:8080"]) -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: headers)
    }

    @Test("?token= counts only on GET /__admin/ui; the cookie only on the page, its files, the stream and the HAR")
    func tokenPlaces() {
        let cookie: HTTPHeaders = ["Host": "127.0.0.1:8080", "Cookie": "a=b; orrery-admin-token-8080=s%3Bcret"]
        #expect(DashboardAccess.presentedToken(Self.request("GET", "/__admin/ui?token=s3cret")) == "s3cret")
        #expect(DashboardAccess.presentedToken(Self.request("GET", "/__admin/ui/?token=s3cret")) == "s3cret")
        for target in ["/__admin/ui/dashboard.js?token=s", "/__admin/requests/stream?token=s", "/__admin/stubs?token=s"] {
            #expect(DashboardAccess.presentedToken(Self.request("GET", target)) == nil, "\(target)")
        }
        #expect(DashboardAccess.presentedToken(Self.request("POST", "/__admin/ui?token=s3cret")) == nil)
        for target in ["/__admin/ui", "/__admin/ui/dashboard.js", "/__admin/requests/stream", "/__admin/requests.har"] {
            #expect(DashboardAccess.presentedToken(Self.request("GET", target, cookie)) == "s;cret", "\(target)")
        }
        for (method, target) in [("GET", "/__admin/stubs"), ("GET", "/__admin/requests"), ("DELETE", "/__admin/requests"),
            ("POST", "/__admin/stubs"), ("PUT", "/__admin/environments/api.example.com"), ("GET", "/__admin/ui/a/b")]
        {
            #expect(DashboardAccess.presentedToken(Self.request(method, target, cookie)) == nil, "\(method) \(target)")
        }
        // Another port's cookie is another daemon's.
        let otherPort: HTTPHeaders = ["Host": "127.0.0.1:9090", "Cookie": "orrery-admin-token-8080=s3cret"]
        #expect(DashboardAccess.presentedToken(Self.request("GET", "/__admin/ui", otherPort)) == nil)
    }

    @Test("the page keeps a token it is given in a cookie and out of the URL; the token is escaped where it goes")
    func tokenHandOver() throws {
        let redirect = Dashboard.page(Self.request("GET", "/__admin/ui?token=a%20b%3Bc"), hasHostMap: true)
        #expect(redirect.status == 303)
        #expect(redirect.headers["Location"] == "/__admin/ui")
        #expect(redirect.headers["Set-Cookie"] == "orrery-admin-token-8080=a%20b%3Bc; Path=/__admin; HttpOnly; SameSite=Strict")
        #expect(redirect.headers["Cache-Control"] == "no-store")

        let headers: HTTPHeaders = ["Host": "127.0.0.1:8080", "Cookie": "orrery-admin-token-8080=%22%3E%3Cscript%3E"]
        let personal = Dashboard.page(Self.request("GET", "/__admin/ui", headers), hasHostMap: true)
        let html = String(decoding: personal.body, as: UTF8.self)
        #expect(html.contains(#"<meta name="orrery-admin-token" content="&quot;&gt;&lt;script&gt;">"#))
        #expect(personal.headers["Cache-Control"] == "no-store")
        #expect(personal.headers["Content-Encoding"] == nil)

        let plain = Dashboard.page(Self.request("GET", "/__admin/ui"), hasHostMap: true)
        #expect(String(decoding: plain.body, as: UTF8.self).contains(#"<meta name="orrery-admin-token" content="">"#))
        #expect(String(decoding: plain.body, as: UTF8.self).contains(#"<meta name="orrery-host-map" content="present">"#))
        let stubsOnly = Dashboard.page(Self.request("GET", "/__admin/ui"), hasHostMap: false)
        #expect(String(decoding: stubsOnly.body, as: UTF8.self).contains(#"<meta name="orrery-host-map" content="absent">"#))
        #expect(stubsOnly.headers["ETag"] != plain.headers["ETag"])
        #expect(plain.headers["Cache-Control"] == "no-cache")
        #expect(!String(decoding: plain.body, as: UTF8.self).contains(Dashboard.tokenMarker))
        #expect(!String(decoding: plain.body, as: UTF8.self).contains(Dashboard.hostMapMarker))
    }

    @Test("an unknown file is a JSON 404 that names the files there are")
    func unknownFile() throws {
        let reply = Dashboard.asset(named: "missing.js", Self.request("GET", "/__admin/ui/missing.js"))
        #expect(reply.status == 404)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])
        #expect((json["message"] as? String)?.contains("dashboard.js") == true)
        #expect(json["recoverySuggestion"] is String)
    }
}
