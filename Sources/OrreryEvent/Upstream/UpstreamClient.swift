import CLibevent
import Glibc
import OrreryCore

/// An HTTP/1.1 and HTTP/2 client for one event loop: asynchronous DNS (evdns), a keep-alive pool per upstream, TLS through
/// OpenSSL bufferevents, and connect and response deadlines. Use it only on its loop's thread.
public final class UpstreamClient {
    let loop: EventLoop
    let configuration: UpstreamClientConfiguration
    let tls: TLSContext
    private var dns: OpaquePointer?
    /// Idle connections by origin (`scheme://host:port`). A list, not a dictionary: there are a few upstreams,
    /// and their origin strings are the same objects request after request, so comparing is a pointer check
    /// where hashing was a few hundred instructions.
    private var idle: [(key: String, connections: [UpstreamConnection])] = []
    /// Where plain connections receive into: one buffer for the loop, read from before the next recv().
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

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
        scratch.deallocate()
    }

    /// Frees every pooled connection and the resolver; call before the loop's base goes away.
    public func close() {
        for pool in idle { pool.connections.forEach { $0.free() } }
        idle.removeAll()
        if let dns { evdns_base_free(dns, 1) }
        dns = nil
    }

    /// Sends a request and calls `completion` once, on this loop, with the response or the failure.
    public func send(_ request: UpstreamRequest, completion: @escaping (Result<UpstreamResponse, UpstreamFailure>) -> Void) {
        send(request, to: CollectingReceiver(completion))
    }

    /// Sends a request and hands the answer to `receiver` as it arrives, on this loop. The exchange returned
    /// pauses, resumes or cancels it.
    @discardableResult
    public func send(_ request: UpstreamRequest, to receiver: any UpstreamReceiver) -> UpstreamExchange {
        let exchange = UpstreamExchange(
            client: self, request: request, key: request.upstream.poolKey, receiver: receiver)
        exchange.start()
        return exchange
    }

    // MARK: - Pool

    private func pool(for key: String) -> Int {
        if let index = idle.firstIndex(where: { $0.key == key }) { return index }
        // A forward proxy meets any number of hosts: empty pools go before the list grows long.
        if idle.count >= 64 { idle.removeAll { $0.connections.isEmpty } }
        idle.append((key, []))
        return idle.count - 1
    }

    func takeIdleConnection(for key: String) -> UpstreamConnection? {
        let index = pool(for: key)
        while let connection = idle[index].connections.popLast() {
            if !connection.isClosed { return connection }
            connection.free()
        }
        return nil
    }

    func recycle(_ connection: UpstreamConnection) {
        let index = pool(for: connection.key)
        guard !connection.isClosed, idle[index].connections.count < configuration.maximumIdleConnectionsPerHost else {
            discard(connection)
            return
        }
        idle[index].connections.append(connection)
    }

    /// Frees a connection after the current callback returns: libevent must not free it from its own callback.
    func discard(_ connection: UpstreamConnection) {
        connection.closed()
        if let index = idle.firstIndex(where: { $0.key == connection.key }) {
            idle[index].connections.removeAll { $0 === connection }
        }
        loop.schedule(afterMilliseconds: 0) { connection.free() }
    }

    /// The connection's bufferevent reports data.
    func readable(_ connection: UpstreamConnection) {
        if connection.http2 != nil {
            readableHTTP2(connection)
        } else if let exchange = connection.exchange {
            exchange.readable(connection)
        } else {
            // An idle connection has nothing to say; whatever it sends, it is not to be trusted with a request.
            discard(connection)
        }
    }

    /// An HTTP/2 connection's frames: the exchange's answer, or, while it is idle in the pool, what the upstream
    /// says between requests (SETTINGS, PING, WINDOW_UPDATE), which nghttp2 answers. A GOAWAY or a broken frame
    /// ends an idle connection.
    private func readableHTTP2(_ connection: UpstreamConnection) {
        let isFine = connection.readHTTP2()
        if let exchange = connection.exchange {
            exchange.progressedHTTP2(connection, isFine: isFine)
        } else if !isFine || connection.http2?.isReusable != true {
            discard(connection)
        }
    }

    /// The connection's bufferevent reports a connect, the end of the connection, or an error.
    func event(_ connection: UpstreamConnection, _ what: Int16, errorCode: Int32) {
        if what & Int16(BEV_EVENT_CONNECTED) != 0 {
            connection.connected()
            connection.exchange?.connected()
            return
        }
        guard what & Int16(BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) != 0 else { return }
        if connection.exchange != nil {
            // Bytes that came with the end are read first: a response that runs to the close ends here.
            if connection.isTLS, connection.hasUnreadInput { readable(connection) }
            connection.exchange?.ended(connection, failed: what & Int16(BEV_EVENT_ERROR) != 0, errorCode: errorCode)
        } else {
            discard(connection)
        }
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
        UpstreamConnection(key: key, upstream: upstream, address: address, client: self, tls: tls)
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
        done(.success(Sockets.text(of: address)))
    }
}
