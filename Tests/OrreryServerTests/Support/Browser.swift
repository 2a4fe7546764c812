import Foundation
import Testing

/// Headless Chromium driven through chromedriver's WebDriver HTTP API (W3C), from Debian's `chromium` and
/// `chromium-driver` packages, on 127.0.0.1 only. Every call is bounded in time, and `with` always ends the session,
/// the driver and the browser, on success and on error alike.
///
/// The WebDriver calls go over a plain loopback socket rather than URLSession: chromedriver writes its header lines
/// without a space after the colon (`Content-Length:249`), which is valid HTTP but which swift-corelibs-foundation's
/// URLSession refuses ("Failed writing header").
///
/// When the browser cannot be started the error says why and what to install: the dashboard's tests fail rather than
/// pass without having looked at the page.
final class Browser {
    private let driver: Process
    private let driverOutput: FileHandle
    private let driverPort: Int
    private let sessionID: String
    /// The browser's own process, as chromedriver reports it; ended here if closing the session left it running.
    private let browserPID: Int32?
    private let profile: URL
    private let driverLog: URL
    private var isClosed = false

    /// What to give `WebDriver` for an element.
    struct Element: CustomStringConvertible {
        let id: String
        let selector: String
        var description: String { selector }
    }

    /// One line of the browser's console, as `goog:loggingPrefs` collects it.
    struct LogEntry: CustomStringConvertible {
        let level: String
        let source: String
        let message: String
        var description: String { "\(level) [\(source)] \(message)" }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// Starts chromedriver and a headless browser. `width` × `height` is the viewport; a phone-sized width uses
    /// Chromium's device emulation, since a desktop window cannot be made that narrow.
    private init(width: Int, height: Int, arguments: [String]) async throws {
        let chromedriver = try Self.executable(
            environment: "CHROMEDRIVER", candidates: ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"])
        let chromium = try Self.executable(
            environment: "CHROMIUM", candidates: ["/usr/bin/chromium", "/usr/lib/chromium/chromium"])
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        profile = work.appendingPathComponent("profile")
        driverLog = work.appendingPathComponent("chromedriver.log")

        // Port 0: chromedriver picks a free port and says which; without --allowed-ips it listens on loopback only.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromedriver)
        process.arguments = ["--port=0", "--log-path=\(driverLog.path)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(at: work)
            throw Failure("chromedriver (\(chromedriver)) could not be started: \(error)")
        }
        driver = process
        driverOutput = output.fileHandleForReading
        var announced: Int?
        do {
            let port = try Self.announcedPort(output.fileHandleForReading, process: process)
            announced = port
            driverPort = port
            var options: [String: Any] = [
                "binary": chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-proxy-server",
                    "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync",
                    "--disable-background-networking", "--disable-component-update", "--user-data-dir=\(profile.path)",
                    "--window-size=\(max(width, 800)),\(height)", "--hide-scrollbars",
                ] + arguments,
            ]
            if width < 800 {
                options["mobileEmulation"] = ["deviceMetrics": ["width": width, "height": height, "pixelRatio": 1]]
            }
            let capabilities: [String: Any] = [
                "browserName": "chrome", "goog:chromeOptions": options, "goog:loggingPrefs": ["browser": "ALL"],
                "timeouts": ["pageLoad": 30_000, "script": 30_000, "implicit": 0],
            ]
            let answer = try await Self.call(
                port, "POST", "/session", ["capabilities": ["alwaysMatch": capabilities]], timeout: 60)
            guard let value = answer as? [String: Any], let id = value["sessionId"] as? String else {
                throw Failure("chromedriver gave no session: \(answer ?? "nothing")")
            }
            sessionID = id
            let returned = value["capabilities"] as? [String: Any]
            browserPID = (returned?["goog:processID"] as? Int).map { Int32($0) }
        } catch {
            let log = (try? String(contentsOf: driverLog, encoding: .utf8)).map { String($0.suffix(3000)) } ?? ""
            // A browser may have started all the same: ending chromedriver would leave it running.
            if let port = announced, let sessions = try? await Self.call(port, "GET", "/sessions", nil, timeout: 10) as? [[String: Any]] {
                for case let id as String in sessions.map({ $0["id"] }) {
                    _ = try? await Self.call(port, "DELETE", "/session/\(id)", nil, timeout: 15)
                }
            }
            output.fileHandleForReading.readabilityHandler = nil
            Self.stop(process)
            try? FileManager.default.removeItem(at: work)
            throw Failure(
                "Headless Chromium did not start (\(chromium) driven by \(chromedriver)): \(error). "
                    + "The dashboard's browser tests need Debian's chromium and chromium-driver packages "
                    + "(scripts/install-dependencies.sh installs them).\nchromedriver's log ends with:\n\(log)")
        }
    }

    /// Runs `body` with a new browser and closes it afterwards, whatever happens.
    /// `arguments` go to Chromium as they are (`--host-resolver-rules=…`).
    static func with<Result>(
        width: Int = 1280, height: Int = 900, arguments: [String] = [], _ body: (Browser) async throws -> Result
    ) async throws -> Result {
        let browser = try await Browser(width: width, height: height, arguments: arguments)
        do {
            let result = try await body(browser)
            await browser.close()
            return result
        } catch {
            await browser.close()
            throw error
        }
    }

    /// Ends the session (which quits the browser), then the driver; a browser still running after that is killed.
    func close() async {
        guard !isClosed else { return }
        isClosed = true
        _ = try? await Self.call(driverPort, "DELETE", session(""), nil, timeout: 15)
        driverOutput.readabilityHandler = nil
        Self.stop(driver)
        if let browserPID, kill(browserPID, 0) == 0 {
            kill(browserPID, SIGKILL)
        }
        try? FileManager.default.removeItem(at: profile.deletingLastPathComponent())
    }

    deinit {
        // `with` closes it; this only guards against a browser left behind by a test that did not use `with`.
        if !isClosed {
            Self.stop(driver)
            if let browserPID { kill(browserPID, SIGKILL) }
        }
    }

    // MARK: - WebDriver commands

    func navigate(to url: String) async throws {
        _ = try await command("POST", "/url", ["url": url])
    }

    func find(_ selector: String) async throws -> Element {
        let value = try await command("POST", "/element", ["using": "css selector", "value": selector])
        guard let object = value as? [String: Any], let id = object[Self.elementKey] as? String else {
            throw Failure("no element for '\(selector)': \(value ?? "nothing")")
        }
        return Element(id: id, selector: selector)
    }

    func findAll(_ selector: String) async throws -> [Element] {
        let value = try await command("POST", "/elements", ["using": "css selector", "value": selector])
        let list = value as? [[String: Any]] ?? []
        return list.compactMap { ($0[Self.elementKey] as? String).map { Element(id: $0, selector: selector) } }
    }

    func click(_ element: Element) async throws {
        _ = try await command("POST", "/element/\(element.id)/click", [:])
    }

    /// Clears a field and types `text` into it.
    func type(_ text: String, into element: Element) async throws {
        _ = try await command("POST", "/element/\(element.id)/clear", [:])
        _ = try await command("POST", "/element/\(element.id)/value", ["text": text])
    }

    func text(_ element: Element) async throws -> String {
        try await command("GET", "/element/\(element.id)/text", nil) as? String ?? ""
    }

    func attribute(_ name: String, of element: Element) async throws -> String? {
        try await command("GET", "/element/\(element.id)/attribute/\(name)", nil) as? String
    }

    /// Presses and releases keys on whatever has focus, as a keyboard would (`\u{E007}` is Enter, `" "` Space,
    /// `\u{E004}` Tab).
    func press(_ keys: String...) async throws {
        var actions: [[String: Any]] = []
        for key in keys {
            actions.append(["type": "keyDown", "value": key])
            actions.append(["type": "keyUp", "value": key])
        }
        _ = try await command("POST", "/actions", ["actions": [["type": "key", "id": "keyboard", "actions": actions]]])
        _ = try await command("DELETE", "/actions", nil)
    }

    /// Runs `script` (a function body; `arguments[0]`… are `arguments`) in the page and returns what it returns.
    @discardableResult
    func execute(_ script: String, _ arguments: [Any] = []) async throws -> Any? {
        try await command("POST", "/execute/sync", ["script": script, "args": arguments])
    }

    /// The page as a PNG.
    func screenshot() async throws -> Data {
        guard let text = try await command("GET", "/screenshot", nil) as? String, let data = Data(base64Encoded: text) else {
            throw Failure("the screenshot was not base64 PNG")
        }
        return data
    }

    /// The console lines logged since the last call.
    func consoleLog() async throws -> [LogEntry] {
        let value = try await command("POST", "/se/log", ["type": "browser"])
        let list = value as? [[String: Any]] ?? []
        return list.map {
            LogEntry(
                level: $0["level"] as? String ?? "", source: $0["source"] as? String ?? "",
                message: $0["message"] as? String ?? "")
        }
    }

    /// Waits, polling, until `condition` holds; fails after `seconds` with `what` and the last page text.
    func waitUntil(
        _ what: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            if try await condition() { return }
            if ContinuousClock.now >= deadline {
                let page = (try? await execute("return document.body.innerText") as? String) ?? ""
                throw Failure("timed out after \(seconds) s waiting until \(what); the page shows:\n\(page.prefix(2000))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    // MARK: - Plumbing

    private func session(_ path: String) -> String {
        "/session/\(sessionID)\(path)"
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]?) async throws -> Any? {
        try await Self.call(driverPort, method, session(path), body, timeout: 30)
    }

    /// One WebDriver call: its `value`, or the error WebDriver answered with. The socket is blocking, so it runs on a
    /// thread of its own rather than holding up the tests' shared ones.
    private static func call(_ port: Int, _ method: String, _ path: String, _ body: [String: Any]?, timeout: Int)
        async throws -> Any?
    {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let (status, data) = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try exchange(port, method, path, Array(payload), timeout: timeout) })
            }
        }
        let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        let value = (object as? [String: Any])?["value"]
        if status >= 400 {
            let error = (value as? [String: Any]).map { "\($0["error"] ?? ""): \($0["message"] ?? "")" }
            throw Failure("WebDriver \(method) \(path) answered \(status): \(error ?? String(decoding: data, as: UTF8.self))")
        }
        return value is NSNull ? nil : value
    }

    /// One HTTP/1.1 request to chromedriver on 127.0.0.1 and its answer, each read bounded by `timeout` seconds.
    private static func exchange(_ port: Int, _ method: String, _ path: String, _ body: [UInt8], timeout: Int) throws
        -> (status: Int, body: Data)
    {
        let connection = try RawConnection(port: port, timeout: timeout)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        head += "Content-Length: \(body.count)\r\n"
        if !body.isEmpty { head += "Content-Type: application/json; charset=utf-8\r\n" }
        connection.send(Array((head + "\r\n").utf8) + body)
        guard let answer = connection.read(through: "\r\n\r\n") else {
            throw Failure("chromedriver did not answer \(method) \(path) within \(timeout) s")
        }
        let lines = answer.components(separatedBy: "\r\n")
        guard let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") else {
            throw Failure("chromedriver answered \(method) \(path) with '\(lines[0])'")
        }
        var length: Int?
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].lowercased()
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            if name == "content-length" { length = Int(value) }
            if name == "transfer-encoding" { throw Failure("chromedriver sent '\(line)', which this client does not read") }
        }
        if let length {
            guard let text = connection.read(count: length) else {
                throw Failure("chromedriver's answer to \(method) \(path) ended early")
            }
            return (status, Data(text.utf8))
        }
        return (status, Data(connection.readToEnd().bytes))
    }

    private static func executable(environment name: String, candidates: [String]) throws -> String {
        let paths = (ProcessInfo.processInfo.environment[name].map { [$0] } ?? []) + candidates
        guard let found = paths.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(
                "\(candidates[0]) is missing: the dashboard's browser tests need Debian's chromium and chromium-driver "
                    + "packages. Run scripts/install-dependencies.sh (or apt-get install chromium chromium-driver), or "
                    + "set \(name) to the program.")
        }
        return found
    }

    /// The port in chromedriver's "started successfully on port N." line, read within 20 s.
    private static func announcedPort(_ handle: FileHandle, process: Process) throws -> Int {
        let deadline = Date().addingTimeInterval(20)
        var text = ""
        let descriptor = handle.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 200)
            if ready > 0 {
                let count = read(descriptor, &buffer, buffer.count)
                if count <= 0 { break }
                text += String(decoding: buffer[0..<count], as: UTF8.self)
                if let range = text.range(of: "started successfully on port "),
                    let end = text[range.upperBound...].firstIndex(of: "."), let port = Int(text[range.upperBound..<end])
                {
                    // Whatever it prints later is read and dropped, so that a full pipe never holds it up.
                    handle.readabilityHandler = { _ = $0.availableData }
                    return port
                }
            } else if !process.isRunning {
                break
            }
        }
        throw Failure("chromedriver did not say which port it listens on within 20 s; it printed: \(text)")
    }

    /// Ends chromedriver once its session is over. SIGKILL, because the test runner starts children with SIGTERM
    /// blocked; the browser has quit already with the session.
    private static func stop(_ process: Process) {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
