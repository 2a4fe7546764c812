import Glibc

/// The listening TCP socket, shared by every event loop.
///
/// One socket, duplicated once per loop (each loop's listener closes its own copy), rather than a socket per loop
/// with SO_REUSEPORT: with SO_REUSEPORT a second Orrery started on the same port would bind too and silently take
/// half the connections, where a user needs "address already in use".
enum ListeningSocket {
    /// Opens the socket and returns `count` descriptors for it, and the bound port (useful when asked for 0).
    static func open(host: String, port: Int, count: Int) throws(EventError) -> (sockets: [Int32], port: Int) {
        let first = try openOne(host: host, port: port)
        var sockets = [first]
        let boundPort: Int
        do {
            boundPort = try localPort(of: first)
        } catch {
            close(first)
            throw error
        }
        for _ in 1..<max(1, count) {
            let copy = fcntl(first, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else {
                let error = EventError.system("dup")
                sockets.forEach { close($0) }
                throw error
            }
            sockets.append(copy)
        }
        return (sockets, boundPort)
    }

    private static func openOne(host: String, port: Int) throws(EventError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw EventError("cannot resolve listen address '\(host)': \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw EventError.system("socket") }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        // Accepted connections inherit it (as nginx's tcp_nodelay): the end of a large answer does not wait.
        Sockets.sendWithoutDelay(fd)
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let error = EventError.system("cannot listen on \(host):\(port)")
            close(fd)
            throw error
        }
        guard listen(fd, 1024) == 0 else {
            let error = EventError.system("listen")
            close(fd)
            throw error
        }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        return fd
    }

    private static func localPort(of fd: Int32) throws(EventError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { throw EventError.system("getsockname") }
        return withUnsafePointer(to: &storage) { pointer in
            if Int32(pointer.pointee.ss_family) == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }
}
