import CLibevent
import Glibc
import OrreryCore

/// Server certificates kept on disk beside the CA, so that a restart presents the same certificate for a name (a
/// client that remembered it sees no change, and no signature is spent again): `leaves/key.pem`, the key every leaf
/// shares (mode 0600), and `leaves/NAME.pem`, one certificate per name (mode 0644).
///
/// A stored certificate is used only when it is one this CA signed, for this key, valid now and for a week more,
/// and for its name. Anything else (unreadable, corrupt, from another CA, expiring) is replaced with a new one and a
/// warning that names the file. A folder that cannot be written leaves the certificates in memory only, with one
/// warning.
struct LeafCertificateStore: Sendable {
    let folder: String
    let warn: @Sendable (String) -> Void

    /// How long a stored certificate must still be valid to be used again.
    static let minimumRemainingSeconds = 7 * 86_400

    /// The store for the CA in `authorityFolder`, its folder created if needed; nil (after a warning) when it cannot
    /// be.
    init?(authorityFolder: String, warn: @escaping @Sendable (String) -> Void) {
        folder = authorityFolder + "/leaves"
        self.warn = warn
        do {
            try CertificateAuthorityFolder(path: folder).create()
        } catch {
            warn("server certificates are kept in memory only: \(error)")
            return nil
        }
    }

    var keyPath: String { folder + "/key.pem" }

    func path(for name: CertificateName) -> String { folder + "/" + name.description + ".pem" }

    /// The key the stored certificates were made for, or a new one, written (under the CA folder's lock, so two
    /// Orrerys starting at once share one).
    func loadOrCreateKey() throws(EventError) -> PrivateKey {
        let files = CertificateAuthorityFolder(path: folder)
        return try files.withLock { () throws(EventError) -> PrivateKey in
            if try files.exists(keyPath) {
                do {
                    guard try files.mode(of: keyPath) & 0o077 == 0 else {
                        throw EventError("it is readable by other users")
                    }
                    return try PrivateKey.read(pem: files.read(keyPath))
                } catch {
                    warn("the server certificates' key \(keyPath) cannot be used (\(error)): a new one replaces it")
                }
            }
            let key = try PrivateKey.generateP256()
            do {
                unlink(keyPath)
                try files.writeNew(keyPath, key.pem(), mode: 0o600)
            } catch {
                warn("cannot keep the server certificates' key: \(error)")
            }
            return key
        }
    }

    /// The stored certificate for `name`, when it is there and usable; a file that is there and unusable is
    /// reported (the caller makes a new one, which `store` writes over it).
    func load(_ name: CertificateName, authority: CertificateAuthority, key: PrivateKey) -> Certificate? {
        let file = path(for: name)
        let files = CertificateAuthorityFolder(path: folder)
        guard (try? files.exists(file)) == true else { return nil }
        do {
            let certificate = try Certificate.read(pem: files.read(file))
            try Self.check(certificate, for: name, authority: authority, key: key)
            return certificate
        } catch {
            _ = OpenSSLErrorQueue.take()
            warn("the stored server certificate \(file) cannot be used (\(error)): a new one replaces it")
            return nil
        }
    }

    /// Why `certificate` cannot be presented for `name` again, if it cannot.
    static func check(
        _ certificate: Certificate, for name: CertificateName, authority: CertificateAuthority, key: PrivateKey
    ) throws(EventError) {
        guard let issuerKey = X509_get0_pubkey(authority.certificate.pointer),
            X509_verify(certificate.pointer, issuerKey) == 1
        else { throw EventError("not signed by the CA \(authority.certificatePath)") }
        guard X509_check_private_key(certificate.pointer, key.pointer) == 1 else {
            throw EventError("not made for the key \(authority.folder)/leaves/key.pem")
        }
        var now = time(nil)
        var later = now + time_t(minimumRemainingSeconds)
        guard let notBefore = X509_get0_notBefore(certificate.pointer), X509_cmp_time(notBefore, &now) < 0 else {
            throw EventError("not valid yet")
        }
        guard let notAfter = X509_get0_notAfter(certificate.pointer), X509_cmp_time(notAfter, &later) > 0 else {
            throw EventError("expired, or expiring within a week")
        }
        let text = name.description
        let covers =
            name.isAddress
            ? X509_check_ip_asc(certificate.pointer, text, 0) == 1
            : X509_check_host(certificate.pointer, text, text.utf8.count, UInt32(X509_CHECK_FLAG_NO_WILDCARDS), nil)
                == 1
        guard covers else { throw EventError("not a certificate for \(text)") }
    }

    /// Writes `certificate` as the one for `name`, replacing what is there (atomically: a reader sees the old file
    /// or the new one).
    func store(_ certificate: Certificate, for name: CertificateName) {
        let file = path(for: name)
        let temporary = file + ".\(getpid()).new"
        let files = CertificateAuthorityFolder(path: folder)
        do {
            unlink(temporary)
            try files.writeNew(temporary, certificate.pem(), mode: 0o644)
            guard rename(temporary, file) == 0 else { throw EventError.system("cannot rename \(temporary)") }
        } catch {
            unlink(temporary)
            warn("cannot keep the server certificate for \(name): \(error)")
        }
    }
}
