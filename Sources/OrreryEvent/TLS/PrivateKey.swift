import CLibevent

/// An OpenSSL private key (`EVP_PKEY`), freed with its owner.
public final class PrivateKey: @unchecked Sendable {
    // @unchecked: the key is never changed after creation, and OpenSSL reference-counts it atomically, so any thread
    // may sign with it or hand it to an SSL.
    let pointer: OpaquePointer

    /// Takes over one reference to `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// A new EC key on P-256: 0.04 ms to make, where RSA-2048 takes hundreds of milliseconds.
    static func generateP256() throws(EventError) -> PrivateKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw OpenSSLErrorQueue.error("cannot prepare an EC key")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1,
            EVP_PKEY_generate(context, &key) == 1, let key
        else { throw OpenSSLErrorQueue.error("cannot make an EC P-256 key") }
        return PrivateKey(taking: key)
    }

    /// Reads an unencrypted PEM private key (PKCS#8 or the older per-algorithm forms).
    static func read(pem: [UInt8]) throws(EventError) -> PrivateKey {
        let key: OpaquePointer? = MemoryBIO.reading(pem) { bio in
            // An empty passphrase, given as the callback's argument, keeps OpenSSL from prompting on the terminal
            // for an encrypted key; such a key then fails to load instead.
            "".withCString { passphrase in
                PEM_read_bio_PrivateKey(bio, nil, nil, UnsafeMutableRawPointer(mutating: passphrase))
            }
        }
        guard let key else { throw OpenSSLErrorQueue.error("not an unencrypted PEM private key") }
        return PrivateKey(taking: key)
    }

    /// The key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    func pem() throws(EventError) -> [UInt8] {
        let text = MemoryBIO.writing { bio in PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 }
        guard let text else { throw OpenSSLErrorQueue.error("cannot write the private key as PEM") }
        return text
    }
}
