import CLibevent
import OrreryCore

/// The OpenSSL server context for HTTPS: the TLS port and intercepted `CONNECT` tunnels. One for the whole
/// process, shared by every loop.
///
/// Each handshake presents a certificate signed by the local CA for the name the client asked for (SNI), made on
/// first use and cached; a client that sends no SNI (an IP URL, or an old client) gets the certificate of its
/// session's fallback: the `CONNECT` host, or the TLS port's certificate. TLS 1.2 and newer, no renegotiation, and
/// ALPN chooses `h2` when the client offers it (else `http/1.1`): the connection's first bytes then tell which.
///
/// For each accepted connection (TLS port) or upgraded one (after answering `CONNECT` with 200), on its loop:
/// 1. `makeServerSession(defaultCertificate:)` or `makeServerSession(defaultName:)` gives an `SSL`.
/// 2. `bufferevent_openssl_socket_new` (TLS port) or `bufferevent_openssl_filter_new` over the plain bufferevent
///    (`CONNECT`: re-wrapping the fd would lose a ClientHello already read), with `BUFFEREVENT_SSL_ACCEPTING` and
///    `BEV_OPT_CLOSE_ON_FREE`, which owns the `SSL` from then on, also when it fails.
/// 3. A handshake timeout with `bufferevent_set_timeouts` at once; `BEV_EVENT_CONNECTED` means the handshake is
///    done.
/// 4. To close: `SSL_shutdown` (libevent never sends close_notify) and then `bufferevent_free`; for a filter, only
///    once the underlying output has drained.
/// `SSL_OP_IGNORE_UNEXPECTED_EOF` is set, so with `bufferevent_openssl_set_allow_dirty_shutdown(bev, 1)` a client
/// that hangs up without close_notify reads as `BEV_EVENT_EOF` rather than an error.
public final class TLSServerContext: @unchecked Sendable {
    // @unchecked: the SSL_CTX is configured in init and never changed after (OpenSSL then allows SSL_new from any
    // thread), and the leaf cache has its own lock.
    let context: OpaquePointer
    public let authority: CertificateAuthority
    let leaves: LeafCertificates

    /// - Parameter maximumCachedNames: how many single-name certificates to keep; the least recently used goes.
    /// - Parameter offersHTTP2: whether ALPN may choose `h2` (the daemon's connections speak it; a server that
    ///   speaks only HTTP/1 passes false).
    /// - Parameter keepsCertificates: whether the certificates made for names are kept in the CA's folder
    ///   (`leaves/`) and used again after a restart; `warn` hears of stored files that cannot be used.
    public init(
        authority: CertificateAuthority, maximumCachedNames: Int = 1000, offersHTTP2: Bool = true,
        keepsCertificates: Bool = false, warn: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(EventError) {
        guard Self.fallbackIndex >= 0 else { throw OpenSSLErrorQueue.error("cannot reserve SSL ex_data") }
        self.authority = authority
        let store = keepsCertificates ? LeafCertificateStore(authorityFolder: authority.folder, warn: warn) : nil
        leaves = try LeafCertificates(authority: authority, capacity: maximumCachedNames, store: store)
        guard let method = TLS_server_method(), let context = SSL_CTX_new(method) else {
            throw OpenSSLErrorQueue.error("cannot make the TLS server context")
        }
        self.context = context
        SSL_CTX_set_options(context, CLibevent_SSL_OP_NO_RENEGOTIATION() | CLibevent_SSL_OP_IGNORE_UNEXPECTED_EOF())
        // Resumption rides on session tickets (TLS 1.3 and 1.2, on by default, two after each full handshake),
        // which the server keeps no state for. The server-side session cache is off: it would only hold every
        // TLS 1.2 session for five minutes, for clients that take no tickets.
        SSL_CTX_ctrl(context, SSL_CTRL_SET_SESS_CACHE_MODE, Int(SSL_SESS_CACHE_OFF), nil)
        // The servername callback finds its way back through each SSL's fallback, which also keeps this context
        // alive for as long as any of its sessions lives; so it needs no argument.
        guard CLibevent_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1,
            CLibevent_SSL_CTX_set_servername_callback(context, Trampolines.tlsServername, nil) == 1
        else {
            SSL_CTX_free(context)
            throw OpenSSLErrorQueue.error("cannot configure the TLS server context")
        }
        SSL_CTX_set_alpn_select_cb(context, offersHTTP2 ? Trampolines.tlsSelectALPN : Trampolines.tlsSelectHTTP11, nil)
    }

    deinit {
        SSL_CTX_free(context)
    }

    // MARK: - Certificates

    /// The certificate for one name (a host name, a `*.` wildcard or an address), made now if not cached.
    public func certificate(for name: CertificateName) throws(EventError) -> LeafCertificate {
        try leaves.leaf(for: name)
    }

    /// The names the TLS port's certificate always covers.
    public static let loopbackNames = ["localhost", "127.0.0.1", "::1"]

    /// One certificate for the TLS port: `localhost`, `127.0.0.1`, `::1` and `extraHosts` (host names, `*.`
    /// wildcards or addresses; duplicates are dropped). Made each call, not cached.
    public func makePortCertificate(extraHosts: [String]) throws(EventError) -> LeafCertificate {
        var names: [CertificateName] = []
        for host in Self.loopbackNames + extraHosts {
            guard let name = CertificateName(host) else {
                throw EventError("'\(host)' cannot be named in a certificate: it is not a host name or IP address")
            }
            if !names.contains(name) { names.append(name) }
        }
        return try leaves.makeLeaf(for: names)
    }

    // MARK: - Sessions

    /// A new server `SSL` for one connection. A handshake without SNI presents the certificate for `defaultName`
    /// (the `CONNECT` host, or the name the port is known by).
    ///
    /// The caller owns the `SSL`: hand it to a bufferevent with `BEV_OPT_CLOSE_ON_FREE` (which frees it, also when
    /// that creation fails) or free it with `SSL_free`. Whatever the session holds (its fallback, a reference to
    /// this context) is released with it. Slot 0 of its ex_data (`SSL_set_app_data`) is free for the caller.
    func makeServerSession(defaultName: String) throws(EventError) -> OpaquePointer {
        guard let name = CertificateName(defaultName) else {
            throw EventError("'\(defaultName)' cannot be named in a certificate: it is not a host name or IP address")
        }
        // A wildcard leaf would answer for every name below it, made for one client that asked for `*`.
        guard !name.isWildcard else {
            throw EventError("'\(defaultName)' is a wildcard: no certificate is made for it")
        }
        return try makeSession(.name(name))
    }

    /// A new server `SSL` whose handshakes without SNI present `defaultCertificate` (the TLS port's). Ownership as
    /// for `makeServerSession(defaultName:)`.
    func makeServerSession(defaultCertificate: LeafCertificate) throws(EventError) -> OpaquePointer {
        try makeSession(.certificate(defaultCertificate))
    }

    private func makeSession(_ fallback: SessionFallback.Choice) throws(EventError) -> OpaquePointer {
        guard let ssl = SSL_new(context) else { throw OpenSSLErrorQueue.error("cannot make a TLS session") }
        let box = Unmanaged.passRetained(SessionFallback(context: self, choice: fallback)).toOpaque()
        guard SSL_set_ex_data(ssl, Self.fallbackIndex, box) == 1 else {
            Unmanaged<SessionFallback>.fromOpaque(box).release()
            SSL_free(ssl)
            throw OpenSSLErrorQueue.error("cannot attach the session's fallback")
        }
        return ssl
    }

    /// The name the client asked for in SNI, if it sent one.
    static func requestedName(_ ssl: OpaquePointer) -> String? {
        guard let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) else { return nil }
        return String(cString: name)
    }

    /// The ALPN protocol agreed on, if any (`http/1.1`).
    static func negotiatedProtocol(_ ssl: OpaquePointer) -> String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    // MARK: - Callbacks (through Trampolines)

    /// The ex_data slot of each session's `SessionFallback`, released by OpenSSL when the `SSL` is freed.
    static let fallbackIndex: Int32 = CRYPTO_get_ex_new_index(
        CRYPTO_EX_INDEX_SSL, 0, nil, nil, nil, Trampolines.tlsReleaseSessionFallback)

    /// Puts the certificate for the handshake on `ssl`: the SNI name's when it is one a certificate can carry, else
    /// the session's fallback. False when there is none to give (the handshake then fails), and for an SNI name
    /// with `*`: no wildcard leaf is made for what a client asks.
    static func chooseCertificate(_ ssl: OpaquePointer, _ fallback: SessionFallback) -> Bool {
        let leaf: LeafCertificate
        if let requested = requestedName(ssl), requested.contains("*") { return false }
        do {
            if let requested = requestedName(ssl), let name = CertificateName(requested) {
                leaf = try fallback.context.leaves.leaf(for: name)
            } else {
                switch fallback.choice {
                case .certificate(let certificate): leaf = certificate
                case .name(let name): leaf = try fallback.context.leaves.leaf(for: name)
                }
            }
        } catch {
            return false
        }
        // Both up-ref: the SSL holds its own references, and the cache may drop the leaf meanwhile.
        return SSL_use_certificate(ssl, leaf.certificate.pointer) == 1 && SSL_use_PrivateKey(ssl, leaf.key.pointer) == 1
    }

    /// Where `http/1.1` starts in a client's ALPN list (length-prefixed names), pointing at its length byte.
    static func http11Offset(in offered: UnsafeBufferPointer<UInt8>) -> Int? {
        protocolOffset(Array("http/1.1".utf8), in: offered)
    }

    /// ALPN's name for HTTP/2 over TLS.
    static let h2: [UInt8] = Array("h2".utf8)

    /// Where `wanted` starts (its length byte) in the client's ALPN list; nil when it is not offered.
    static func protocolOffset(_ wanted: [UInt8], in offered: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        while index < offered.count {
            let length = Int(offered[index])
            let end = index + 1 + length
            guard end <= offered.count else { return nil }
            if length == wanted.count, offered[(index + 1)..<end].elementsEqual(wanted) { return index }
            index = end
        }
        return nil
    }
}

/// What a session presents when the client sends no SNI, kept in the `SSL`'s ex_data (retained there, released by
/// OpenSSL's free callback), with the context it came from.
final class SessionFallback {
    enum Choice {
        case name(CertificateName)
        case certificate(LeafCertificate)
    }

    let context: TLSServerContext
    let choice: Choice

    init(context: TLSServerContext, choice: Choice) {
        self.context = context
        self.choice = choice
    }
}
