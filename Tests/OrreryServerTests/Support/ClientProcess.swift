import Foundation
import Glibc

/// A real HTTP client program (node, python3, curl) run to completion with a deadline; it talks to loopback only.
enum ClientProcess {
    /// Runs `executable` (looked up on PATH) with `arguments`, `input` on its standard input, and returns its
    /// standard output. Fails if it exits non-zero or runs past `timeout` seconds (it is killed then).
    static func run(_ executable: String, _ arguments: [String], input: Data = Data(), timeout: TimeInterval = 60) throws -> Data {
        let folder = FileManager.default.temporaryDirectory
        let outputURL = folder.appendingPathComponent("orrery-client-\(UUID().uuidString).out")
        let errorURL = folder.appendingPathComponent("orrery-client-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: errorURL)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        // No proxy from the environment: each client is told its proxy, and everything else is loopback.
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.lowercased().hasSuffix("_proxy") }
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        stdin.fileHandleForWriting.write(input)
        try stdin.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            // SIGKILL: the test runner starts children with SIGTERM blocked.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw FixtureError("\(executable) did not finish within \(Int(timeout)) s")
        }
        process.waitUntilExit()
        let output = try Data(contentsOf: outputURL)
        guard process.terminationStatus == 0 else {
            let errors = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            throw FixtureError("\(executable) exited with \(process.terminationStatus): \(errors.suffix(2000))")
        }
        return output
    }

    /// Whether `executable` is on PATH.
    static func isInstalled(_ executable: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(executable)")
        }
    }

    /// Whether python3 has the requests package.
    static let hasPythonRequests: Bool = {
        guard isInstalled("python3") else { return false }
        return (try? run("python3", ["-c", "import requests"], timeout: 30)) != nil
    }()
}

/// One answer read off a raw connection, framed by its own head.
struct RawResponse {
    var status: Int
    var head: String
    var body: String

    /// The value of the first header with this name.
    func header(_ name: String) -> String? {
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The body as a JSON object.
    func json() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(body.utf8))
        guard let members = object as? [String: Any] else { throw FixtureError("not a JSON object: \(body)") }
        return members
    }
}

extension RawConnection {
    /// Reads one answer: its head, then exactly as many body bytes as its Content-Length says (none without one, as
    /// for 1xx, 204 and 304, or when `isHead`). Nil if the connection closed or went quiet first.
    func readResponse(isHead: Bool = false) -> RawResponse? {
        guard let head = read(through: "\r\n\r\n") else { return nil }
        let statusLine = head.prefix { $0 != "\r" }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            return RawResponse(status: 0, head: head, body: "")
        }
        var response = RawResponse(status: status, head: head, body: "")
        if !isHead, let length = response.header("Content-Length").flatMap({ Int($0) }), length > 0 {
            guard let body = read(count: length) else { return nil }
            response.body = body
        }
        return response
    }
}

/// A connection that sends, then ends its side (a half-close), and reads until the server closes.
enum HalfClosingClient {
    /// Sends `text` to 127.0.0.1:`port`, shuts down writing, and returns what came back, whether the server closed
    /// within `timeout` seconds, and how long that took.
    static func exchange(port: Int, _ text: String, timeout: Int = 5) throws -> (answer: String, closed: Bool, seconds: Double) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let started = Date()
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }
            offset += sent
        }
        shutdown(fd, Int32(SHUT_WR))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[0..<count]
                continue
            }
            let closed = count == 0
            return (String(decoding: received, as: UTF8.self), closed, Date().timeIntervalSince(started))
        }
    }
}
