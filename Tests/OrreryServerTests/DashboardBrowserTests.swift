import Foundation
import OrreryServer
import Testing

/// The dashboard in a real browser (headless Chromium through chromedriver) against a live daemon: live rows,
/// expanding them by keyboard, paging, filters, the stubs, the environment switcher, the token, narrow screens, and a
/// console with no errors. One browser at a time: the machines these run on have few cores.
@Suite("Dashboard in a browser", .serialized)
struct DashboardBrowserTests {
    static let stubs: [String: String] = [
        "stubs/hello.json": #"""
        {"name": "hello", "request": {"method": "GET", "path": "/api/hello"},
         "response": {"headers": {"X-Demo": "yes"}, "json": {"greeting": "hi", "to": ["ada", "grace"]}}}
        """#,
        "stubs/items.yaml": """
            - name: items
              request: { method: GET, urlPattern: "^/items/[0-9]+$" }
              response: { body: item }
            - name: create-item
              request: { method: POST, path: /items }
              response: { status: 201, json: { created: true } }
            """,
        "stubs/v2.yaml": """
            base: { path: /api/v2 }
            stubs:
              - name: v2-users
                request: { method: GET, path: /users }
                response: { body: users }
            """,
    ]

    static let hostMap = """
        {"configurations": [{"canonical_host": "api.example.com", "canonical_protocol": "https",
          "prerelease_key": "QA", "release_key": "PROD",
          "hosts": [{"key": "PROD", "host": "api.example.com"}, {"key": "QA", "host": "qa.api.example.com"},
                    {"key": "USER"}]}]}
        """

    static var files: [String: String] {
        stubs.merging(["config/hosts.json": hostMap]) { first, _ in first }
    }

    /// Misses get the explaining 404 instead of being forwarded: nothing here reaches a network.
    static func offline(_ configuration: inout DaemonConfiguration) {
        configuration.isProxyEnabled = false
    }

    /// Fails on any console line at warning level or above (script errors, failed requests, CSP violations).
    static func expectCleanConsole(_ browser: Browser, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let problems = try await browser.consoleLog().filter { $0.level == "SEVERE" || $0.level == "WARNING" }
        #expect(problems.isEmpty, "the browser's console: \(problems)", sourceLocation: sourceLocation)
    }

    /// Opens the dashboard and waits until its stream is connected.
    static func open(_ browser: Browser, _ url: String) async throws {
        try await browser.navigate(to: url)
        let badge = try await browser.find("#stream-state")
        try await browser.waitUntil("the live stream is connected") { try await browser.text(badge) == "Live" }
    }

    static func rowPaths(_ browser: Browser) async throws -> [String] {
        try await browser.execute(
            "return [...document.querySelectorAll('#exchanges > li .path')].map((node) => node.textContent)") as? [String] ?? []
    }

    /// The text in an element, read in one step (the element may be drawn anew between two WebDriver calls).
    static func text(_ browser: Browser, _ selector: String) async throws -> String {
        try await browser.execute("const node = document.querySelector(arguments[0]); return node ? node.textContent : ''", [selector])
            as? String ?? ""
    }

    @Test("a request shows up live; its row expands by keyboard to headers, pretty JSON, redactions and the stub")
    func liveRowExpands() async throws {
        try await LiveServer.with(files: Self.files, configure: Self.offline) { (server: LiveServer) async throws in
            // A binary body, added over the API so the file can hold any bytes.
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0xFF, 0xFE]
            try Data(png).write(to: server.stubsFolder.appendingPathComponent("pixel.png"))
            let pixel = #"{"name": "pixel", "request": {"path": "/pixel"}, "response": {"bodyFile": "pixel.png", "headers": {"Content-Type": "image/png"}}}"#
            #expect(try await server.request("POST", "/__admin/stubs", body: Data(pixel.utf8)).status == 201)

            try await Browser.with { browser in
                try await Self.open(browser, server.baseURL + "/__admin/ui")
                #expect(try await Self.rowPaths(browser).isEmpty)

                #expect(try await server.request("/api/hello?lang=en", headers: ["Authorization": "Bearer abcdef123456"]).status == 200)
                try await browser.waitUntil("the exchange appears") { try await Self.rowPaths(browser) == ["/api/hello?lang=en"] }

                // Keyboard: focus the row's button, Enter opens it, Space closes it.
                let summary = try await browser.find("#exchanges > li .summary")
                try await browser.execute("arguments[0].focus()", [[Browser.elementKey: summary.id]])
                try await browser.press("\u{E007}")
                try await browser.waitUntil("Enter expands the row") { try await browser.attribute("aria-expanded", of: summary) == "true" }
                let isFocusVisible = try await browser.execute(
                    "const node = document.activeElement; return node.classList.contains('summary') && node.matches(':focus-visible') && getComputedStyle(node).outlineStyle !== 'none'")
                #expect(isFocusVisible as? Bool == true, "the focused row shows its focus")
                let details = try await browser.text(browser.find("#exchanges > li .details"))
                #expect(details.contains("Matched stub"))
                #expect(details.contains("hello"))
                #expect(details.contains("\(server.stubsFolder.lastPathComponent)/hello.json:1") || details.contains("hello.json:1"))
                #expect(details.contains("X-Demo"))
                #expect(details.contains("Authorization"))
                #expect(details.contains("[REDACTED]"))
                #expect(!details.contains("abcdef123456"))
                #expect(details.contains("Host"))
                let pretty = try await browser.execute(
                    "return [...document.querySelectorAll('#exchanges > li .details pre.body')].map((node) => node.textContent)") as? [String] ?? []
                #expect(pretty.contains("{\n  \"greeting\": \"hi\",\n  \"to\": [\n    \"ada\",\n    \"grace\"\n  ]\n}"), "\(pretty)")
                try await browser.press(" ")
                try await browser.waitUntil("Space collapses the row") { try await browser.attribute("aria-expanded", of: summary) == "false" }
                let isHidden = try await browser.execute("return document.querySelector('#exchanges > li .details').hidden")
                #expect(isHidden as? Bool == true)

                // A binary answer is shown as its size and type; the newest row comes first.
                #expect(try await server.request("/pixel").status == 200)
                try await browser.waitUntil("the second exchange appears") { try await Self.rowPaths(browser) == ["/pixel", "/api/hello?lang=en"] }
                try await browser.click(browser.find("#exchanges > li:first-child .summary"))
                let binary = try await browser.text(browser.find("#exchanges > li:first-child .details"))
                #expect(binary.contains("Binary body: 14 bytes, image/png"), "\(binary)")

                // A miss says so; filters narrow the rows.
                #expect(try await server.request("POST", "/items").status == 201)
                #expect(try await server.request("/nothing/here").status == 404)
                try await browser.waitUntil("four rows") { try await Self.rowPaths(browser).count == 4 }
                try await browser.type("pixel", into: browser.find("#filter-path"))
                try await browser.waitUntil("the path filter leaves one row") { try await Self.rowPaths(browser) == ["/pixel"] }
                try await browser.type("", into: browser.find("#filter-path"))
                try await browser.execute(
                    "const select = document.querySelector('#filter-method'); select.value = 'POST'; select.dispatchEvent(new Event('change', {bubbles: true}))")
                try await browser.waitUntil("the method filter leaves the POST") { try await Self.rowPaths(browser) == ["/items"] }
                try await browser.execute(
                    "const select = document.querySelector('#filter-method'); select.value = ''; select.dispatchEvent(new Event('change', {bubbles: true}))")
                try await browser.execute(
                    "const select = document.querySelector('#filter-answer'); select.value = 'unmatched'; select.dispatchEvent(new Event('change', {bubbles: true}))")
                try await browser.waitUntil("the miss alone") { try await Self.rowPaths(browser) == ["/nothing/here"] }
                #expect(try await browser.text(browser.find("#exchanges > li .answer")) == "no stub matched")

                // Clearing the journal empties the view.
                try await browser.click(browser.find("#clear-journal"))
                try await browser.waitUntil("the journal is cleared") { try await Self.rowPaths(browser).isEmpty }
                #expect(try await server.request("/__admin/requests").json()["total"] as? Int == 0)
                try await Self.expectCleanConsole(browser)
            }
        }
    }

    @Test("older exchanges page by the pager and the loader; paused, new ones wait behind a notice")
    func paging() async throws {
        try await LiveServer.with(files: Self.files, configure: Self.offline) { (server: LiveServer) async throws in
            for number in 1...30 { #expect(try await server.request("/items/\(number)").status == 200) }
            try await Browser.with { browser in
                try await Self.open(browser, server.baseURL + "/__admin/ui")
                try await browser.waitUntil("the first page") { try await Self.rowPaths(browser).count == 25 }
                #expect(try await Self.rowPaths(browser).first == "/items/30")
                #expect(try await browser.text(browser.find("#page-range")) == "Exchanges 1–25 of 30")

                try await browser.click(browser.find("#page-older"))
                try await browser.waitUntil("the older page") { try await Self.rowPaths(browser) == (1...5).reversed().map { "/items/\($0)" } }
                #expect(try await browser.text(browser.find("#page-range")) == "Exchanges 26–30 of 30")
                try await browser.click(browser.find("#page-newer"))
                try await browser.waitUntil("back to the newest") { try await Self.rowPaths(browser).first == "/items/30" }

                try await browser.click(browser.find("#load-older"))
                try await browser.waitUntil("the loader adds the rest") { try await Self.rowPaths(browser).count == 30 }
                #expect(try await Self.rowPaths(browser) == (1...30).reversed().map { "/items/\($0)" })
                #expect(try await browser.attribute("disabled", of: browser.find("#load-older")) != nil)

                // Paused: a new exchange is counted, not shown, until asked for.
                let pause = try await browser.find("#live-toggle")
                try await browser.click(pause)
                #expect(try await browser.attribute("aria-pressed", of: pause) == "true")
                #expect(try await server.request("/items/31").status == 200)
                let notice = try await browser.find("#show-newest")
                try await browser.waitUntil("the notice counts it") { try await browser.text(notice) == "1 new exchange: show the newest" }
                #expect(try await Self.rowPaths(browser).first == "/items/30")
                try await browser.click(pause)
                try await browser.waitUntil("resuming shows it") { try await Self.rowPaths(browser).first == "/items/31" }
                #expect(try await browser.text(browser.find("#page-range")) == "Exchanges 1–25 of 31")
                try await Self.expectCleanConsole(browser)
            }
        }
    }

    @Test("the stubs view lists each stub with its source; the switcher sets QA, then USER with a host; recording and the log")
    func stubsAndEnvironments() async throws {
        try await LiveServer.with(files: Self.files, configure: Self.offline) { (server: LiveServer) async throws in
            try await Browser.with { browser in
                try await Self.open(browser, server.baseURL + "/__admin/ui#stubs")
                try await browser.waitUntil("the stubs") { try await browser.findAll("#stub-list > li").count == 4 }
                let stubs = try await browser.text(browser.find("#stub-list"))
                #expect(stubs.contains("hello") && stubs.contains("GET /api/hello") && stubs.contains("hello.json:1"), "\(stubs)")
                #expect(stubs.contains("create-item") && stubs.contains("POST /items") && stubs.contains("items.yaml:4"), "\(stubs)")
                // A file's base path is part of the route shown.
                #expect(stubs.contains("v2-users") && stubs.contains("GET /api/v2/users"), "\(stubs)")

                try await browser.click(browser.find("a[data-view=environments]"))
                try await browser.waitUntil("the switcher") { try await browser.findAll("form.environment").count == 1 }
                let form = "form.environment[data-canonical-host='api.example.com']"
                #expect(try await Self.text(browser, form).contains("Active: PROD"))
                try await browser.click(browser.find("\(form) input[name=key][value=QA]"))
                try await browser.click(browser.find("\(form) button[type=submit]"))
                try await browser.waitUntil("QA is applied") { try await Self.text(browser, form).contains("now uses QA") }
                #expect(try await Self.active(server) == ["key": "QA", "host": "qa.api.example.com", "protocol": "https"])

                try await browser.click(browser.find("\(form) input[name=key][value=USER]"))
                try await browser.type("127.0.0.1:9001", into: browser.find("\(form) input[name=host]"))
                try await browser.execute(
                    "const select = document.querySelector(arguments[0]); select.value = 'http'; select.dispatchEvent(new Event('change', {bubbles: true}))",
                    ["\(form) select[name=protocol]"])
                try await browser.click(browser.find("\(form) button[type=submit]"))
                try await browser.waitUntil("USER is applied") { try await Self.text(browser, form).contains("now uses USER") }
                #expect(try await Self.active(server) == ["key": "USER", "host": "127.0.0.1:9001", "protocol": "http"])
                #expect(try await Self.text(browser, form).contains("http://127.0.0.1:9001"))

                // Recording and the traffic log, on and off, as the API reports them.
                try await browser.click(browser.find("a[data-view=recording]"))
                let log = server.folder.appendingPathComponent("traffic.jsonl").path
                try await browser.type(log, into: browser.find("#logging-file"))
                try await browser.click(browser.find("#logging-toggle"))
                try await browser.waitUntil("the log is on") { try await Self.text(browser, "#logging-toggle") == "Stop the traffic log" }
                #expect(try await server.request("/__admin/logging").json()["logging"] as? Bool == true)
                #expect(try await browser.attribute("hidden", of: browser.find("#logging-badge")) == nil)
                try await browser.click(browser.find("#logging-toggle"))
                try await browser.waitUntil("the log is off") { try await Self.text(browser, "#logging-toggle") == "Start the traffic log" }
                #expect(try await server.request("/__admin/logging").json()["logging"] as? Bool == false)

                let recordings = server.folder.appendingPathComponent("recordings").path
                try await browser.type(recordings, into: browser.find("#recording-folder"))
                // Misses are not forwarded here, so only mode none (replay) can start.
                try await browser.execute(
                    "const select = document.querySelector('#recording-mode'); select.value = 'none'; select.dispatchEvent(new Event('change', {bubbles: true}))")
                try await browser.click(browser.find("#recording-toggle"))
                try await browser.waitUntil("recording is on") { try await Self.text(browser, "#recording-toggle") == "Stop recording" }
                let recording = try await server.request("/__admin/recordings").json()
                #expect(recording["recording"] as? Bool == true)
                #expect(recording["folder"] as? String == recordings)
                try await browser.click(browser.find("#recording-toggle"))
                try await browser.waitUntil("recording is off") { try await Self.text(browser, "#recording-toggle") == "Start recording" }
                #expect(try await server.request("/__admin/recordings").json()["recording"] as? Bool == false)
                #expect(try await browser.attribute("href", of: browser.find("#har-link")) == "/__admin/requests.har")
                try await Self.expectCleanConsole(browser)
            }
        }
    }

    /// The active host of the only configuration, as `GET /__admin/environments` gives it.
    static func active(_ server: LiveServer) async throws -> [String: String] {
        let json = try await server.request("/__admin/environments").json()
        let configuration = try #require((json["configurations"] as? [[String: Any]])?.first)
        let hosts = try #require(configuration["hosts"] as? [[String: Any]])
        let active = try #require(hosts.first { $0["active"] as? Bool == true })
        return [
            "key": configuration["active"] as? String ?? "", "host": active["host"] as? String ?? "",
            "protocol": active["protocol"] as? String ?? "",
        ]
    }

    @Test("with an admin token, opened by another name: the token given once makes the page, its stream and its calls work")
    func token() async throws {
        let token = "dash-token-42"
        try await LiveServer.with(files: Self.files, configure: { Self.offline(&$0); $0.adminToken = token }) {
            (server: LiveServer) async throws in
            // dashboard.test is this machine to the browser, but not a loopback name to the daemon: the token is needed.
            let page = "http://dashboard.test:\(server.port)/__admin/ui"
            try await Browser.with(arguments: ["--host-resolver-rules=MAP dashboard.test 127.0.0.1"]) { browser in
                try await Self.open(browser, page + "?token=\(token)")
                let address = try await browser.execute("return location.href") as? String
                #expect(address == page, "the token left the address bar")
                #expect(try await browser.execute("return document.cookie") as? String == "", "the cookie is HttpOnly")

                #expect(try await server.request("/api/hello").status == 200)
                try await browser.waitUntil("the exchange arrives over the stream") { try await Self.rowPaths(browser) == ["/api/hello"] }
                try await browser.click(browser.find("#clear-journal"))
                try await browser.waitUntil("the journal is cleared") { try await Self.rowPaths(browser).isEmpty }
                #expect(try await server.request("/__admin/requests").json()["total"] as? Int == 0)

                // A reload keeps working without the token in the URL.
                try await browser.navigate(to: page)
                try await browser.waitUntil("the reloaded page is live") { try await browser.text(browser.find("#stream-state")) == "Live" }
                #expect(try await server.request("/items/7").status == 200)
                try await browser.waitUntil("the stream works after the reload") { try await Self.rowPaths(browser) == ["/items/7"] }
                try await Self.expectCleanConsole(browser)
            }
        }
    }

    @Test("at 360 px wide nothing scrolls sideways, an expanded row included; without a host map, nothing is asked for")
    func narrow() async throws {
        try await LiveServer.with(files: Self.stubs) { (server: LiveServer) async throws in
            #expect(try await server.request("/api/hello?with=a-rather-long-query-string-that-has-to-wrap-somewhere-on-a-phone").status == 200)
            try await Browser.with(width: 360, height: 740) { browser in
                try await Self.open(browser, server.baseURL + "/__admin/ui")
                try await browser.waitUntil("the row") { try await Self.rowPaths(browser).count == 1 }
                try await browser.click(browser.find("#exchanges > li .summary"))
                for view in ["traffic", "stubs", "environments", "recording"] {
                    try await browser.click(browser.find("a[data-view=\(view)]"))
                    try await Task.sleep(for: .milliseconds(200))
                    let widths = try await browser.execute("return [window.innerWidth, document.documentElement.scrollWidth]") as? [Int]
                    #expect(widths?.first == 360)
                    #expect(widths.map { $0[1] <= $0[0] } == true, "\(view) is wider than the screen: \(widths ?? [])")
                }
                #expect(try await Self.text(browser, "#environment-list").contains("There is no host map"))
                try await Self.expectCleanConsole(browser)
            }
        }
    }

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The repository's example stubs folder, relative to the working directory when it is inside it, so that stub
    /// sources read `stubs/auth.yaml:6` as with `scripts/run.sh`.
    static var exampleStubs: String {
        let stubs = repository.appendingPathComponent("stubs").standardizedFileURL.path
        let here = FileManager.default.currentDirectoryPath
        return stubs.hasPrefix(here + "/") ? String(stubs.dropFirst(here.count + 1)) : stubs
    }

    @Test("screenshots of the main views, into $ORRERY_SCREENSHOTS (scripts/dashboard-screenshots.sh) or a temporary folder")
    func screenshots() async throws {
        let target = ProcessInfo.processInfo.environment["ORRERY_SCREENSHOTS"].map { URL(fileURLWithPath: $0) }
        let folder = target ?? FileManager.default.temporaryDirectory.appendingPathComponent("orrery-shots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { if target == nil { try? FileManager.default.removeItem(at: folder) } }
        let upstream = try FixtureProcess.upstream(name: "reports")
        defer { upstream.stop() }

        // The example host map, under the name it has in the repository (hosts.example.json, or hosts.json before).
        let config = Self.repository.appendingPathComponent("config")
        let example = ["hosts.example.json", "hosts.json"].map { config.appendingPathComponent($0) }
            .first { FileManager.default.fileExists(atPath: $0.path) }
        let hostMap = try String(contentsOf: try #require(example, "no example host map in config/"), encoding: .utf8)
        // The examples as they are; the host map in a folder of the test's own, where the environment chosen is saved.
        try await LiveServer.with(files: ["config/hosts.json": hostMap], configure: { $0.stubsFolder = Self.exampleStubs }) {
            (server: LiveServer) async throws in
            let user = #"{"key": "USER", "host": "127.0.0.1:\#(upstream.port)", "protocol": "http"}"#
            #expect(try await server.request("PUT", "/__admin/environments/api.example.com", body: Data(user.utf8)).status == 200)
            try await Browser.with(width: 1280, height: 1100) { browser in
                try await Self.open(browser, server.baseURL + "/__admin/ui")
                let json = ["Content-Type": "application/json"]
                let bearer = ["Authorization": "Bearer demo-token-ada"]
                _ = try await server.request(
                    "POST", "/api/v1/token", headers: json, body: Data(#"{"username": "ada", "password": "lovelace"}"#.utf8))
                _ = try await server.request("/api/v1/users/1")
                _ = try await server.request("/api/v1/user/1")
                _ = try await server.request("/echo/reports/monthly?month=2026-11", headers: bearer)
                _ = try await server.request("/api/v1/users")
                _ = try await server.request("/api/v1/users", headers: bearer)
                try await browser.waitUntil("six rows") { try await Self.rowPaths(browser).count == 6 }
                // The oldest, so that the five above it show too.
                try await browser.click(browser.find("#exchanges > li:last-child .summary"))
                try await browser.execute("document.activeElement.blur(); window.scrollTo(0, 0)")
                try await Task.sleep(for: .milliseconds(1500))  // the new-row highlight fades
                try await Self.save(browser, folder, "dashboard-traffic.png")

                try await browser.click(browser.find("a[data-view=stubs]"))
                try await browser.waitUntil("the stubs") { try await browser.findAll("#stub-list > li").count > 0 }
                try await browser.click(browser.find("#stub-list > li:nth-child(3) details summary"))
                try await browser.execute("document.activeElement.blur()")
                try await Self.save(browser, folder, "dashboard-stubs.png")

                try await browser.click(browser.find("a[data-view=environments]"))
                try await browser.waitUntil("the switcher") { try await browser.findAll("form.environment").count == 1 }
                try await Self.save(browser, folder, "dashboard-environments.png")
                try await Self.expectCleanConsole(browser)
            }
        }
    }

    static func save(_ browser: Browser, _ folder: URL, _ name: String) async throws {
        let png = try await browser.screenshot()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(name) is a PNG")
        try png.write(to: folder.appendingPathComponent(name))
    }
}
