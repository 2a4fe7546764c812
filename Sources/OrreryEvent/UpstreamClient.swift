import CLibevent
import Glibc
import OrreryCore

/// An HTTP/1.1 client for one event loop: asynchronous DNS (evdns), a keep-alive pool per upstream, TLS through
/// OpenSSL bufferevents, and connect and response deadlines. Use it only on its loop's thread.
public final class UpstreamClient {
    let loop: EventLoop
    let configuration: UpstreamClientConfiguration
    private let tls: TLSContext
    private var dns: OpaquePointer?
    /// Idle connections by `scheme://host:port`.
    private var idle: [String: [UpstreamConnection]] = [:]
    /// Exchanges libevent may still call back into (it holds them unretained).
    var active: [ObjectIdentifier: UpstreamExchange] = [:]

    public init(loop: EventLoop, configuration: UpstreamClientConfiguration) throws(EventError) {
        self.loop = loop
        self.configuration = configuration
        tls = try TLSContext(caFile: configuration.caFile)
        let useSystemServers = configuration.dnsServer == nil
        guard let dns = evdns_base_new(loop.base, useSystemServers ? EVDNS_BASE_INITIALIZE_NAMESERVERS : 0) else {
            throw EventError("evdns_base_new failed")
        }
        self.dns = dns
        if let server = configuration.dnsServer, evdns_base_nameserver_ip_add(dns, server) != 0 {
            throw EventError("cannot use DNS server '\(server)'")
        }
    }

    deinit {
        close()
    }

    /// Frees every pooled connection and the resolver; call before the loop's base goes away.
    public func close() {
        for connections in idle.values { connections.forEach { $0.free() } }
        idle.removeAll()
        if let dns { evdns_base_free(dns, 1) }
        dns = nil
    }

    /// Sends a request and calls `completion` once, on this loop, with the response or the failure.
    public func send(_ request: UpstreamRequest, completion: @escaping (Result<UpstreamResponse, UpstreamFailure>) -> Void) {
        guard let command = Self.command(request.method) else {
            completion(.failure(UpstreamFailure(.unsupportedMethod, "\(request.method) cannot be relayed")))
            return
        }
        let exchange = UpstreamExchange(client: self, request: request, command: command, completion: completion)
        exchange.start()
    }

    static func command(_ method: String) -> evhttp_cmd_type? {
        switch method {
        case "GET": EVHTTP_REQ_GET
        case "POST": EVHTTP_REQ_POST
        case "HEAD": EVHTTP_REQ_HEAD
        case "PUT": EVHTTP_REQ_PUT
        case "DELETE": EVHTTP_REQ_DELETE
        case "OPTIONS": EVHTTP_REQ_OPTIONS
        case "TRACE": EVHTTP_REQ_TRACE
        case "PATCH": EVHTTP_REQ_PATCH
        default: nil
        }
    }

    // MARK: - Pool

    func takeIdleConnection(for key: String) -> UpstreamConnection? {
        while let connection = idle[key]?.popLast() {
            if !connection.isClosed { return connection }
            connection.free()
        }
        return nil
    }

    func recycle(_ connection: UpstreamConnection) {
        guard !connection.isClosed, (idle[connection.key]?.count ?? 0) < configuration.maximumIdleConnectionsPerHost else {
            discard(connection)
            return
        }
        idle[connection.key, default: []].append(connection)
    }

    /// Frees a connection after the current callback returns: libevent must not free it from its own callback.
    func discard(_ connection: UpstreamConnection) {
        idle[connection.key]?.removeAll { $0 === connection }
        loop.schedule(afterMilliseconds: 0) { connection.free() }
    }

    func connectionClosed(_ connection: UpstreamConnection) {
        connection.isClosed = true
    }

    /// Resolves `host` through evdns (numeric addresses answer at once).
    func resolve(_ host: String, port: Int, _ done: @escaping (Result<String, UpstreamFailure>) -> Void) {
        guard let dns else {
            done(.failure(UpstreamFailure(.hostNotFound, "the resolver is closed")))
            return
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        let box = Unmanaged.passRetained(ResolveBox(done)).toOpaque()
        _ = evdns_getaddrinfo(dns, host, String(port), &hints, Trampolines.addressResolved, box)
    }

    func makeConnection(key: String, upstream: Upstream, address: String) -> UpstreamConnection? {
        let bufferevent: OpaquePointer?
        if upstream.scheme == "https" {
            guard let session = tls.makeSession(host: upstream.host) else { return nil }
            bufferevent = bufferevent_openssl_socket_new(
                loop.base, -1, session, BUFFEREVENT_SSL_CONNECTING,
                Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue))
            if let bufferevent { bufferevent_openssl_set_allow_dirty_shutdown(bufferevent, 1) }
        } else {
            bufferevent = bufferevent_socket_new(loop.base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
        }
        guard let bufferevent,
            let connection = evhttp_connection_base_bufferevent_new(loop.base, nil, bufferevent, address, UInt16(upstream.port))
        else { return nil }
        // No retries: a request is sent once, and a failure is reported as it happened.
        evhttp_connection_set_retries(connection, 0)
        var timeout = timeval(milliseconds: configuration.responseTimeoutMilliseconds)
        evhttp_connection_set_timeout_tv(connection, &timeout)
        let wrapper = UpstreamConnection(key: key, connection: connection, isTLS: upstream.scheme == "https", client: self)
        evhttp_connection_set_closecb(connection, Trampolines.upstreamConnectionClosed, Unmanaged.passUnretained(wrapper).toOpaque())
        return wrapper
    }
}

/// One pooled connection to an upstream.
final class UpstreamConnection {
    let key: String
    private(set) var connection: OpaquePointer?
    let isTLS: Bool
    unowned let client: UpstreamClient
    /// The upstream closed it; it is not reused.
    var isClosed = false

    init(key: String, connection: OpaquePointer, isTLS: Bool, client: UpstreamClient) {
        self.key = key
        self.connection = connection
        self.isTLS = isTLS
        self.client = client
    }

    /// Whether the TCP connection is established (a connect that timed out is not).
    var isConnected: Bool {
        guard let connection, let bufferevent = evhttp_connection_get_bufferevent(connection) else { return false }
        let fd = bufferevent_getfd(bufferevent)
        guard fd >= 0 else { return false }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
    }

    /// The OpenSSL error on this connection, if any.
    var tlsError: String? {
        guard isTLS, let connection, let bufferevent = evhttp_connection_get_bufferevent(connection) else { return nil }
        let code = bufferevent_get_openssl_error(bufferevent)
        return code == 0 ? nil : TLSContext.describe(code)
    }

    func free() {
        if let connection {
            // No close callback into a client that may already be gone.
            evhttp_connection_set_closecb(connection, nil, nil)
            evhttp_connection_free(connection)
        }
        connection = nil
    }
}

/// Carries a DNS completion through libevent's `void *`.
final class ResolveBox {
    let done: (Result<String, UpstreamFailure>) -> Void

    init(_ done: @escaping (Result<String, UpstreamFailure>) -> Void) {
        self.done = done
    }

    func finish(status: Int32, _ result: UnsafeMutablePointer<addrinfo>?) {
        defer { if let result { evutil_freeaddrinfo(result) } }
        guard status == 0, let first = result, let address = first.pointee.ai_addr else {
            let reason = status == 0 ? "no address" : String(cString: evutil_gai_strerror(status))
            done(.failure(UpstreamFailure(.hostNotFound, reason)))
            return
        }
        var text = [CChar](repeating: 0, count: 64)
        if first.pointee.ai_family == AF_INET6 {
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
        done(.success(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
    }
}
