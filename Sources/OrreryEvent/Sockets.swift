import CLibevent
import Glibc
import OrreryCore

/// Socket steps that the listener, the upstream client and CONNECT tunnels share.
enum Sockets {
    /// Starts connecting `bufferevent` to `address` (numeric, as the resolver gives it) and `port`. False when the
    /// address does not parse or the connect cannot start; errno then says why, if the system was asked.
    static func connect(_ bufferevent: OpaquePointer, address: String, port: Int) -> Bool {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let written = ConnectTarget(host: address, port: port).description
        return withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                evutil_parse_sockaddr_port(written, socketAddress, &length) == 0
                    && bufferevent_socket_connect(bufferevent, socketAddress, length) == 0
            }
        }
    }

    /// Turns Nagle's algorithm off: a small write that follows another (the end of a large answer, a request body
    /// after its head) would otherwise wait for the peer's delayed ACK, 40 ms on Linux. Accepted sockets inherit
    /// it from the listening one.
    static func sendWithoutDelay(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }
}

extension Sockets {
    /// Makes closing the socket send a TCP reset instead of a FIN (SO_LINGER with a zero timeout).
    static func resetOnClose(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// The address of a connected socket's peer, as text (`127.0.0.1`, `::1`); empty when it cannot be read.
    static func peerAddress(of fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getpeername(fd, address, &length) == 0 ? text(of: address) : ""
            }
        }
    }

    /// The port a socket is bound to; nil when it cannot be read.
    static func localPort(of fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer -> Int? in
            let found = pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
            guard found else { return nil }
            if Int32(pointer.pointee.ss_family) == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// This machine's interface addresses, as text (asked only for a `CONNECT` while bound to all addresses).
    static func localAddresses() -> Set<String> {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var addresses: Set<String> = []
        var current = first
        while let entry = current {
            if let address = entry.pointee.ifa_addr,
                Int32(address.pointee.sa_family) == AF_INET || Int32(address.pointee.sa_family) == AF_INET6
            {
                addresses.insert(text(of: address))
            }
            current = entry.pointee.ifa_next
        }
        return addresses
    }

    /// An IPv4 or IPv6 address as text (`127.0.0.1`, `::1`), without its port.
    static func text(of address: UnsafePointer<sockaddr>) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if Int32(address.pointee.sa_family) == AF_INET6 {
            address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                var bytes = pointer.pointee.sin6_addr
                _ = inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count))
            }
        } else {
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                var bytes = pointer.pointee.sin_addr
                _ = inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count))
            }
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
