import Foundation
import Glibc

/// A plain TCP client for sending bytes no HTTP library would send.
struct RawSocket {
    /// Sends `bytes` to 127.0.0.1:`port` and reads until the server closes or `timeout` passes.
    static func exchange(port: Int, _ bytes: [UInt8], timeout: Int = 5) throws -> String {
        let connection = try RawConnection(port: port, timeout: timeout)
        connection.send(bytes)
        return String(decoding: connection.readToEnd().bytes, as: UTF8.self)
    }

    /// A GET of `path` that closes the connection after its answer; the answer's body.
    static func get(port: Int, _ path: String) -> String {
        let answer = (try? exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")) ?? ""
        guard let end = answer.range(of: "\r\n\r\n") else { return "" }
        return String(answer[end.upperBound...])
    }

    static func exchange(port: Int, _ text: String, timeout: Int = 5) throws -> String {
        try exchange(port: port, Array(text.utf8), timeout: timeout)
    }

    /// Like `exchange`, but fails unless the server itself closes the connection within `timeout`.
    static func exchangeExpectingClose(port: Int, _ text: String, timeout: Int = 5) throws -> String {
        let connection = try RawConnection(port: port, timeout: timeout)
        connection.send(Array(text.utf8))
        let (bytes, closed) = connection.readToEnd()
        let received = String(decoding: bytes, as: UTF8.self)
        guard closed else { throw FixtureError("the server kept the connection open after: \(received)") }
        return received
    }
}

/// One TCP connection to 127.0.0.1 kept open across several sends and reads, every read bounded by `timeout`.
final class RawConnection {
    private var fd: Int32
    private var buffered: [UInt8] = []
    /// errno of the last read that failed (ECONNRESET after a reset), 0 if none did.
    private(set) var lastError: Int32 = 0

    init(port: Int, timeout: Int = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        if fd >= 0 { Glibc.close(fd) }
    }

    /// Whether bytes (or the end) are waiting to be read right now, without waiting for them.
    func hasInput() -> Bool {
        if !buffered.isEmpty { return true }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    /// Closes the connection now, as a client that gives up.
    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    func send(_ text: String) {
        send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }  // the server may close early after answering; read what it said
            offset += sent
        }
    }

    /// Reads until `marker` has arrived and returns everything up to and including it; nil if the connection closed
    /// or went quiet first.
    func read(through marker: String) -> String? {
        let needle = Array(marker.utf8)
        while true {
            if let end = range(of: needle) {
                let head = Array(buffered[..<end])
                buffered.removeFirst(end)
                return String(decoding: head, as: UTF8.self)
            }
            guard receive() else { return nil }
        }
    }

    /// Reads exactly `count` bytes; nil if the connection closed or went quiet first.
    func read(count: Int) -> String? {
        while buffered.count < count {
            guard receive() else { return nil }
        }
        let bytes = Array(buffered[..<count])
        buffered.removeFirst(count)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads until the server closes (`closed` true) or a read times out (`closed` false).
    func readToEnd() -> (bytes: [UInt8], closed: Bool) {
        while true {
            let count = receiveCount()
            if count < 0 { break }
            if count == 0 {
                defer { buffered = [] }
                return (buffered, true)
            }
        }
        defer { buffered = [] }
        return (buffered, false)
    }

    private func receive() -> Bool { receiveCount() > 0 }

    private func receiveCount() -> Int {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 { buffered += chunk[0..<count] }
        if count < 0 { lastError = errno }
        return count
    }

    private func range(of needle: [UInt8]) -> Int? {
        guard buffered.count >= needle.count else { return nil }
        for start in 0...(buffered.count - needle.count) where buffered[start..<(start + needle.count)].elementsEqual(needle) {
            return start + needle.count
        }
        return nil
    }
}

/// A TCP socket bound to an ephemeral port on 127.0.0.1; the caller closes `descriptor`.
struct LoopbackSocket {
    let descriptor: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, bound else {
            if fd >= 0 { close(fd) }
            throw POSIXError(.EADDRNOTAVAIL)
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }
}
