import CLibevent

/// Builds and signs one X.509 v3 certificate, in the order OpenSSL 3 needs.
///
/// The public key goes in before any extension, because the subject key identifier hashes it (added earlier it
/// hashes nothing, and every certificate would share one identifier). The subject key identifier goes in before
/// the authority key identifier, which on a self-signed CA copies it.
struct CertificateBuilder {
    /// Subject fields as OpenSSL names them (`CN`, `O`), in order; none for a leaf, which names its hosts in a
    /// critical subjectAltName.
    var subject: [(field: String, value: String)] = []
    /// Extensions in OpenSSL's configuration syntax, in order, before the key identifiers.
    var extensions: [(nid: Int32, value: String)] = []
    /// The lifetime, counted from an hour ago (a clock a little behind still accepts the certificate).
    var lifetimeSeconds: Int
    /// Whether to add an authority key identifier with `keyid:always` (a CA's own) instead of `keyid`.
    var isCertificateAuthority = false

    static let backdatingSeconds = 3600

    /// Signs a certificate for `key`: by `issuer` (its certificate and key) or, without one, by `key` itself.
    /// The certificate never outlives its issuer.
    func sign(publicKey key: PrivateKey, issuer: (certificate: Certificate, key: PrivateKey)?) throws(EventError)
        -> Certificate
    {
        guard let x509 = X509_new() else { throw OpenSSLErrorQueue.error("cannot make a certificate") }
        let certificate = Certificate(taking: x509)
        guard X509_set_version(x509, Int(X509_VERSION_3)) == 1 else {
            throw OpenSSLErrorQueue.error("cannot set the certificate version")
        }
        try setRandomSerial(x509)
        try setValidity(x509, notAfterLimit: issuer?.certificate)
        try setSubject(x509)
        let issuerName = issuer.map { X509_get_subject_name($0.certificate.pointer) } ?? X509_get_subject_name(x509)
        guard X509_set_issuer_name(x509, issuerName) == 1, X509_set_pubkey(x509, key.pointer) == 1 else {
            throw OpenSSLErrorQueue.error("cannot set the certificate's issuer and key")
        }
        var v3 = X509V3_CTX()
        X509V3_set_ctx(&v3, issuer?.certificate.pointer ?? x509, x509, nil, nil, 0)
        let identifiers: [(nid: Int32, value: String)] = [
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, isCertificateAuthority ? "keyid:always" : "keyid"),
        ]
        for (nid, value) in extensions + identifiers {
            guard let extensionValue = X509V3_EXT_nconf_nid(nil, &v3, nid, value) else {
                throw OpenSSLErrorQueue.error("cannot make the extension '\(value)'")
            }
            defer { X509_EXTENSION_free(extensionValue) }
            guard X509_add_ext(x509, extensionValue, -1) == 1 else {
                throw OpenSSLErrorQueue.error("cannot add the extension '\(value)'")
            }
        }
        // X509_sign returns the signature's length, not 1.
        guard X509_sign(x509, (issuer?.key ?? key).pointer, EVP_sha256()) > 0 else {
            throw OpenSSLErrorQueue.error("cannot sign the certificate")
        }
        return certificate
    }

    /// 159 random bits: positive, at most 20 octets (RFC 5280 §4.1.2.2), unique in practice.
    private func setRandomSerial(_ x509: OpaquePointer) throws(EventError) {
        guard let number = BN_new() else { throw OpenSSLErrorQueue.error("cannot make a serial number") }
        defer { BN_free(number) }
        guard BN_rand(number, 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1,
            BN_to_ASN1_INTEGER(number, X509_get_serialNumber(x509)) != nil
        else { throw OpenSSLErrorQueue.error("cannot set a serial number") }
    }

    private func setValidity(_ x509: OpaquePointer, notAfterLimit issuer: Certificate?) throws(EventError) {
        guard X509_gmtime_adj(X509_getm_notBefore(x509), -Self.backdatingSeconds) != nil,
            X509_gmtime_adj(X509_getm_notAfter(x509), lifetimeSeconds - Self.backdatingSeconds) != nil
        else { throw OpenSSLErrorQueue.error("cannot set the validity") }
        if let issuer, let limit = X509_get0_notAfter(issuer.pointer),
            ASN1_TIME_compare(X509_get0_notAfter(x509), limit) > 0
        {
            guard X509_set1_notAfter(x509, limit) == 1 else { throw OpenSSLErrorQueue.error("cannot set the validity") }
        }
    }

    private func setSubject(_ x509: OpaquePointer) throws(EventError) {
        guard !subject.isEmpty else { return }
        guard let name = X509_NAME_new() else { throw OpenSSLErrorQueue.error("cannot make the subject") }
        defer { X509_NAME_free(name) }
        for (field, value) in subject {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
                throw OpenSSLErrorQueue.error("cannot set \(field)=\(value) in the subject")
            }
        }
        // X509_set_subject_name copies the name.
        guard X509_set_subject_name(x509, name) == 1 else { throw OpenSSLErrorQueue.error("cannot set the subject") }
    }
}
