import Foundation

/// What `doctor` asks of the machine: whether a port can be bound, where a certificate is trusted, whether
/// `no_proxy` covers a host, whether a host resolves and accepts a connection.
enum DoctorProbe {
    /// Binds (without listening) and lets go: nil when it could, else the errno that stopped it.
    static func bindFailure(host: String, port: Int) -> Int32? {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let name = host == "localhost" ? "127.0.0.1" : host
        guard getaddrinfo(name, String(port), &hints, &list) == 0, let first = list else { return EADDRNOTAVAIL }
        defer { freeaddrinfo(list) }
        let descriptor = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return errno }
        defer { close(descriptor) }
        var on: Int32 = 1
        // As serve binds: a port left in TIME_WAIT by a daemon that just stopped is free.
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        return bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 ? nil : errno
    }

    /// Where a PEM certificate is trusted: Debian's store (a copy in its folder, or the bundle it builds), and the
    /// variables that point clients at a bundle holding it.
    static func placesTrusting(pem: String, systemFolder: String) -> [String] {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard !body.isEmpty else { return [] }
        func holds(_ path: String) -> Bool {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return false }
            return text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined().contains(body)
        }
        var places: [String] = []
        let copies = (try? FileManager.default.contentsOfDirectory(atPath: systemFolder)) ?? []
        if let copy = copies.sorted().first(where: { holds(systemFolder + "/" + $0) }) {
            let bundled = holds("/etc/ssl/certs/ca-certificates.crt")
            places.append(
                bundled
                    ? "the system store (\(systemFolder)/\(copy))"
                    : "\(systemFolder)/\(copy), not yet in the system bundle (run update-ca-certificates)")
        } else if holds("/etc/ssl/certs/ca-certificates.crt") {
            places.append("the system store (/etc/ssl/certs/ca-certificates.crt)")
        }
        let environment = ProcessInfo.processInfo.environment
        for variable in ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"] {
            if let path = environment[variable], holds(path) { places.append("\(variable)=\(path)") }
        }
        return places
    }

    /// Whether a `no_proxy` list exempts `host`: the name itself, `*`, a domain suffix, or loopback written as
    /// `localhost`, `127.0.0.1` or `127.0.0.0/8`.
    static func noProxyCovers(_ list: String, host: String) -> Bool {
        let entries = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let name = host.lowercased()
        let isLoopback = name == "localhost" || name.hasPrefix("127.") || name == "::1"
        for entry in entries where !entry.isEmpty {
            if entry == "*" || entry == name { return true }
            if isLoopback, entry == "127.0.0.0/8" || entry == "127.0.0.1" || entry == "localhost" && name == "localhost"
            {
                return true
            }
            let suffix = entry.hasPrefix(".") ? entry : "." + entry
            if name.hasSuffix(suffix) { return true }
        }
        return false
    }

    enum Connection {
        case connected(String)
        case unresolved(String)
        case refused(String, String)
    }

    /// Resolves `host[:port]` and connects to its first address within the deadline; nothing is sent.
    static func connect(authority: String, defaultPort: Int, timeoutMilliseconds: Int) -> Connection {
        var host = authority
        var port = defaultPort
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            port = Int(authority[close...].dropFirst(2)) ?? defaultPort
        } else if authority.filter({ $0 == ":" }).count == 1, let colon = authority.firstIndex(of: ":") {
            host = String(authority[..<colon])
            port = Int(authority[authority.index(after: colon)...]) ?? defaultPort
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { return .unresolved(String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(list) }
        let address = numeric(first.pointee) + ":\(port)"
        let descriptor = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return .refused(address, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        if Glibc.connect(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 {
            return .connected(address)
        }
        guard errno == EINPROGRESS else { return .refused(address, String(cString: strerror(errno))) }
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&poller, 1, Int32(timeoutMilliseconds)) == 1 else {
            return .refused(address, "no answer within \(timeoutMilliseconds) ms")
        }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
        return failure == 0 ? .connected(address) : .refused(address, String(cString: strerror(failure)))
    }

    private static func numeric(_ info: addrinfo) -> String {
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        getnameinfo(info.ai_addr, info.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
