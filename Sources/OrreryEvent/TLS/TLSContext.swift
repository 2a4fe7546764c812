import CLibevent

/// The OpenSSL client context for HTTPS upstreams: peer verification always on, against the system's CAs and,
/// optionally, one more CA file. There is no insecure mode.
final class TLSContext: @unchecked Sendable {
    // @unchecked: the SSL_CTX is configured once in init; OpenSSL allows SSL_new from many threads afterwards.
    let context: OpaquePointer

    init(caFile: String?) throws(EventError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw EventError("SSL_CTX_new failed") }
        self.context = context
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        guard SSL_CTX_set_default_verify_paths(context) == 1 else {
            SSL_CTX_free(context)
            throw EventError("cannot load the system's CA certificates")
        }
        if let caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                SSL_CTX_free(context)
                throw EventError("cannot load CA certificates from \(caFile): \(Self.lastError())")
            }
        }
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A new session for one connection, with SNI and host-name verification for `host`.
    func makeSession(host: String) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        if !isAddress { _ = CLibevent_SSL_set_tlsext_host_name(ssl, host) }
        if isAddress {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host)
        } else {
            SSL_set1_host(ssl, host)
        }
        return ssl
    }

    /// The OpenSSL error on a TLS bufferevent, if any, and when it is a failed certificate check, why the check
    /// failed (`unable to get local issuer certificate`, `hostname mismatch`): OpenSSL says only "certificate
    /// verify failed" on the error stack.
    static func error(on bufferevent: OpaquePointer) -> String? {
        // libevent's stack is last error first, with the raw SSL_get_error value (below 16) among the codes.
        var codes: [UInt] = []
        while case let code = bufferevent_get_openssl_error(bufferevent), code != 0 {
            if code >= 16 { codes.append(code) }
        }
        guard let code = codes.last else { return nil }
        var text = describe(code)
        if let ssl = bufferevent_openssl_get_ssl(bufferevent) {
            let verification = SSL_get_verify_result(ssl)
            if verification != Int(X509_V_OK), let reason = X509_verify_cert_error_string(verification) {
                text = "the certificate could not be verified: \(String(cString: reason)) (\(text))"
            }
        }
        return text
    }

    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "unknown error" }
        return describe(code)
    }

    static func describe(_ code: UInt) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
