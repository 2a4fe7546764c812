import CLibevent

/// An X.509 certificate (`X509`), freed with its owner.
public final class Certificate: @unchecked Sendable {
    // @unchecked: the certificate is never changed once built or read, and OpenSSL reference-counts it atomically,
    // so any thread may read it or hand it to an SSL.
    let pointer: OpaquePointer

    /// Takes over one reference to `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }

    /// Reads the first certificate of a PEM text.
    static func read(pem: [UInt8]) throws(EventError) -> Certificate {
        let certificate: OpaquePointer? = MemoryBIO.reading(pem) { bio in PEM_read_bio_X509(bio, nil, nil, nil) }
        guard let certificate else { throw OpenSSLErrorQueue.error("not a PEM certificate") }
        return Certificate(taking: certificate)
    }

    /// The certificate as PEM text (`-----BEGIN CERTIFICATE-----`).
    public func pem() throws(EventError) -> [UInt8] {
        guard let text = MemoryBIO.writing({ bio in PEM_write_bio_X509(bio, pointer) == 1 }) else {
            throw OpenSSLErrorQueue.error("cannot write the certificate as PEM")
        }
        return text
    }

    /// The certificate in DER, the binary form (`.cer`, `.der`).
    public func der() throws(EventError) -> [UInt8] {
        let count = i2d_X509(pointer, nil)
        guard count > 0 else { throw OpenSSLErrorQueue.error("cannot encode the certificate") }
        var bytes = [UInt8](repeating: 0, count: Int(count))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_X509(pointer, &cursor)
        }
        guard written == count else { throw OpenSSLErrorQueue.error("cannot encode the certificate") }
        return bytes
    }

    /// The subject in OpenSSL's one-line form (`/O=Orrery/CN=...`); empty for a leaf, which names its hosts only in
    /// the subjectAltName.
    public var subject: String {
        guard let name = X509_get_subject_name(pointer) else { return "" }
        var buffer = [CChar](repeating: 0, count: 512)
        guard X509_NAME_oneline(name, &buffer, Int32(buffer.count)) != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The SHA-256 fingerprint, as colon-separated upper-case hex (what browsers and `openssl x509 -fingerprint`
    /// show).
    public var sha256Fingerprint: String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(pointer, EVP_sha256(), &digest, &length) == 1 else { return "" }
        return digest.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + hex : hex
        }.joined(separator: ":")
    }

    /// Whether the certificate's end of validity has passed.
    var hasExpired: Bool {
        guard let notAfter = X509_get0_notAfter(pointer) else { return true }
        return X509_cmp_current_time(notAfter) < 0
    }
}
