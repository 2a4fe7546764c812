import Foundation
import Glibc
import Testing

/// "Staying up" (DESIGN.md) against the real binary: a regex that gives up while SIGTERM arrives, no file
/// descriptors left, SIGTERM with nothing to finish, and clients that send their heads and bodies too slowly.
@Suite("Hostile input: the daemon stays up")
struct HostileInputTests {
    static let okStub = #"{"request": {"method": "GET", "path": "/ok"}, "response": {"body": "ok"}}"#

    /// Starts `orrery serve` on a free port with the scratch folder's stubs, and returns it with its port.
    static func serve(_ scratch: Scratch, _ options: [String] = [], shell: String? = nil) throws -> (OrreryProcess, Int) {
        let orrery = try OrreryProcess(
            ["serve", "--port", "0", "--stubs", scratch.path("stubs"), "--config", scratch.path("config")] + options,
            shell: shell)
        let base = try orrery.waitUntilListening()
        let port = try #require(base.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) })
        return (orrery, port)
    }

    @Test("A regex that runs out of its budget on every request: other requests go on, SIGTERM still ends the daemon")
    func regexUnderSIGTERM() throws {
        // Starts at every letter and keeps up to 1000 threads alive per byte: each long target uses up the budget.
        let scratch = try Scratch([
            "stubs/re.yaml": "request: { urlPattern: '[a-z][a-z]{0,999}0' }\nresponse: { body: never }\n",
            "stubs/ok.json": Self.okStub,
        ])
        let (orrery, port) = try Self.serve(scratch, ["--max-uri-length", "131072", "--threads", "2"])
        let hostile = "GET /" + String(repeating: "a", count: 100_000) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let clock = ContinuousClock()
        var start = clock.now
        #expect(RawClient.exchange(port: port, hostile, timeout: 20).hasPrefix("HTTP/1.1 404 "))
        // What one hostile request costs (a few milliseconds in a release build, far more in a debug one): an
        // ordinary request may wait for the matches in progress on its loop, never for more.
        let cost = clock.now - start

        // Two clients send hostile requests back to back until the daemon is gone.
        let hostileClients = HostileClients(port: port, request: hostile, count: 2)
        defer { hostileClients.stop() }
        for _ in 0..<10 {
            start = clock.now
            #expect(RawClient.get(port: port, "/ok") == "ok")
            #expect(clock.now - start < max(.seconds(1), cost * 4), "an ordinary request waited \(clock.now - start)")
        }
        // Each costs the whole budget (a second or so in a debug build): a few answered show the loops are not held.
        #expect(OrreryProcess.waitFor(seconds: 20) { hostileClients.answered >= 4 })
        start = clock.now
        #expect(orrery.stop(SIGTERM) == 0)
        #expect(clock.now - start < max(.seconds(3), cost * 4), "SIGTERM took \(clock.now - start)")
        // Reported once for the pattern, not once per request.
        let warnings = orrery.standardError.components(separatedBy: "gave up on a").count - 1
        #expect(warnings == 1, "\(orrery.standardError.suffix(2_000))")
    }

    @Test("Out of file descriptors (ulimit -n 64): one warning per pause, not a flood; the stubs stay; it answers again")
    func fileDescriptorExhaustion() throws {
        let scratch = try Scratch(["stubs/ok.json": Self.okStub])
        let (orrery, port) = try Self.serve(
            scratch, ["--threads", "1", "--watch-interval", "200", "--log-level", "info"], shell: "ulimit -n 64;")
        #expect(RawClient.get(port: port, "/ok") == "ok")
        // More connections than the daemon has descriptors for: the kernel queues them, accept() fails with EMFILE.
        var held: [RawClient] = []
        for _ in 0..<90 {
            if let client = RawClient(port: port) { held.append(client) }
        }
        #expect(OrreryProcess.waitFor(seconds: 10) { orrery.standardError.contains("pausing accept") })
        // A stub file added meanwhile: the watcher may not be able to read it yet, and must not drop the others.
        try scratch.write("stubs/extra.json", #"{"request": {"path": "/extra"}, "response": {"body": "extra"}}"#)
        usleep(2_500_000)
        held.removeAll()  // Closes them: the daemon sees them end and gets its descriptors back.

        #expect(OrreryProcess.waitFor(seconds: 10) { RawClient.get(port: port, "/ok") == "ok" })
        #expect(OrreryProcess.waitFor(seconds: 10) { RawClient.get(port: port, "/extra") == "extra" })
        #expect(RawClient.get(port: port, "/__admin/health").contains(#""stubs""#))
        let pauses = orrery.standardError.components(separatedBy: "pausing accept").count - 1
        // The pause doubles from 100 ms to 1 s: about six in the 2.5 s the descriptors were held, not thousands.
        #expect(pauses >= 1 && pauses <= 15, "\(pauses) warnings:\n\(orrery.standardError.suffix(3_000))")
        #expect(!orrery.standardError.contains("0 stubs"), "\(orrery.standardError.suffix(3_000))")
        #expect(orrery.stop() == 0)
    }

    @Test("SIGTERM with nothing in flight exits within a second, an idle kept-alive connection or not",
        arguments: [false, true])
    func idleSIGTERM(withIdleConnection: Bool) throws {
        let scratch = try Scratch(["stubs/ok.json": Self.okStub])
        let (orrery, port) = try Self.serve(scratch)
        var idle: RawClient?
        if withIdleConnection {
            let client = try #require(RawClient(port: port))
            client.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.read(until: "ok").hasPrefix("HTTP/1.1 200 "))
            idle = client
        }
        let clock = ContinuousClock()
        let start = clock.now
        #expect(orrery.stop(SIGTERM) == 0)
        #expect(clock.now - start < .seconds(1), "SIGTERM took \(clock.now - start)")
        withExtendedLifetime(idle) {}
    }

    @Test("A head sent a byte at a time gets 408 within --header-timeout, and the connection is closed")
    func slowHead() throws {
        let scratch = try Scratch(["stubs/ok.json": Self.okStub])
        let (orrery, port) = try Self.serve(scratch, ["--header-timeout", "1s"])
        let client = try #require(RawClient(port: port, timeout: 5))
        let clock = ContinuousClock()
        let start = clock.now
        let head = Array("GET /ok HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 40)
        // A byte every 100 ms (the whole head would take 5.8 s), until the answer comes.
        var answeredAfter: Duration?
        for byte in head {
            if client.hasBytesToRead() {
                answeredAfter = clock.now - start
                break
            }
            guard client.send([byte]) else { break }
            usleep(100_000)
        }
        let answer = client.readToEnd()
        #expect(answer.text.hasPrefix("HTTP/1.1 408 "), "\(answer.text.prefix(200))")
        #expect(answer.isClosed)
        let elapsed = answeredAfter ?? clock.now - start
        #expect(elapsed < .milliseconds(2_500), "408 after \(elapsed)")
        #expect(RawClient.get(port: port, "/ok") == "ok")
        #expect(orrery.stop() == 0)
    }

    @Test("A client that never reads a large answer is closed after --idle-timeout; others are answered meanwhile")
    func clientThatNeverReads() throws {
        // More than the kernel's socket buffers on both sides hold, so most of it waits in the daemon.
        let size = 24_000_000
        let scratch = try Scratch([
            "stubs/ok.json": Self.okStub,
            "stubs/big.json": #"{"request": {"path": "/big"}, "response": {"body": "\#(String(repeating: "x", count: size))"}}"#,
        ])
        let (orrery, port) = try Self.serve(scratch, ["--idle-timeout", "1s"])
        let client = try #require(RawClient(port: port, timeout: 5, receiveBuffer: 4_096))
        client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        usleep(300_000)
        #expect(RawClient.get(port: port, "/ok") == "ok")
        usleep(2_700_000)
        let answer = client.readToEnd()
        #expect(answer.isClosed, "the connection is still open after \(answer.text.utf8.count) bytes")
        #expect(answer.text.utf8.count < size, "the whole answer was kept for a client that did not read")
        #expect(orrery.stop() == 0)
    }

    @Test("A body that stops arriving gets 408 within --body-timeout, and the connection is closed")
    func slowBody() throws {
        let scratch = try Scratch(["stubs/ok.json": Self.okStub])
        let (orrery, port) = try Self.serve(scratch, ["--body-timeout", "1s"])
        let client = try #require(RawClient(port: port, timeout: 5))
        let clock = ContinuousClock()
        client.send("POST /ok HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nfirst ten!")
        let start = clock.now
        let answer = client.readToEnd()
        #expect(answer.text.hasPrefix("HTTP/1.1 408 "), "\(answer.text.prefix(200))")
        #expect(answer.isClosed)
        #expect(clock.now - start < .milliseconds(2_500), "408 after \(clock.now - start)")
        #expect(orrery.stop() == 0)
    }
}

/// A plain TCP client on 127.0.0.1, for what curl will not send: slow heads, held connections, huge targets.
final class RawClient {
    private let fd: Int32

    /// Connects, with every later read and write bounded by `timeout` seconds; nil when the connect fails.
    /// - Parameter receiveBuffer: SO_RCVBUF, set before connecting so that the window stays that small.
    init?(port: Int, timeout: Int = 5, receiveBuffer: Int32? = nil) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            return nil
        }
    }

    deinit {
        close(fd)
    }

    /// Sends all the bytes; false when the connection refused them (closed, reset, or the timeout passed).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a closed connection is an error here, not a SIGPIPE that ends the test runner.
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Whether the server has sent something (or closed) that is not read yet; does not wait.
    func hasBytesToRead() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) >= 0
    }

    /// Reads until the server closes, a read fails, or the timeout passes; whether the server closed it.
    func readToEnd() -> (text: String, isClosed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return (String(decoding: received, as: UTF8.self), true) }
            if count < 0 { return (String(decoding: received, as: UTF8.self), errno == ECONNRESET) }
            received += buffer[..<count]
        }
    }

    /// Reads until the text received ends with `suffix`, or the timeout passes.
    func read(until suffix: String) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while !String(decoding: received, as: UTF8.self).hasSuffix(suffix) {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// One request on a new connection; the whole answer, or "" when there was none.
    static func exchange(port: Int, _ request: String, timeout: Int = 5) -> String {
        guard let client = RawClient(port: port, timeout: timeout), client.send(request) else { return "" }
        return client.readToEnd().text
    }

    /// The body of a GET on a new connection, or "" when there was no answer.
    static func get(port: Int, _ path: String) -> String {
        let answer = exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        guard let end = answer.range(of: "\r\n\r\n") else { return "" }
        return String(answer[end.upperBound...])
    }
}

/// Threads that each send the same request on a new connection, again and again, until stopped.
final class HostileClients: @unchecked Sendable {
    // Unchecked: `lock` guards every mutable field, and the threads share nothing else.
    private let lock = NSLock()
    private var isStopped = false
    private var answers = 0
    private var running: Int

    init(port: Int, request: String, count: Int) {
        running = count
        for _ in 0..<count {
            Thread.detachNewThread { [self] in
                while !lock.withLock({ isStopped }) {
                    let answer = RawClient.exchange(port: port, request, timeout: 5)
                    if answer.isEmpty {
                        // The daemon is gone (or not answering): try again a little later, until stopped.
                        usleep(50_000)
                    } else {
                        lock.withLock { answers += 1 }
                    }
                }
                lock.withLock { running -= 1 }
            }
        }
    }

    var answered: Int { lock.withLock { answers } }

    /// Stops the threads and waits (at most 10 s) for them to end.
    func stop() {
        lock.withLock { isStopped = true }
        _ = OrreryProcess.waitFor(seconds: 10) { lock.withLock { running == 0 } }
    }
}
