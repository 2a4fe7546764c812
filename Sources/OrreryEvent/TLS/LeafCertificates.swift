import OrreryCore

/// Server certificates for one name each, made on first request and kept, at most `capacity` of them: past that,
/// the one used least recently goes.
///
/// Every certificate shares one EC P-256 key, so a new one costs a signature, under 1 ms, on whichever loop thread
/// asks first. With a `store`, the key and the certificates are kept beside the CA and used again after a restart
/// (same certificate, same serial); without one the key is made at start-up. Safe from any thread: the cache sits behind a pthread mutex (ThreadSanitizer
/// understands it, where it reports false races inside `Synchronization.Mutex` on Linux). Certificates are made
/// under the lock, so each name gets exactly one.
final class LeafCertificates: @unchecked Sendable {
    // @unchecked: `entries` and `clock` are read and written only while `lock` is held.
    private struct Entry {
        let leaf: LeafCertificate
        var lastUse: UInt64
    }

    let authority: CertificateAuthority
    let key: PrivateKey
    let capacity: Int
    let store: LeafCertificateStore?
    private let lock = PthreadMutex()
    private var entries: [CertificateName: Entry] = [:]
    private var clock: UInt64 = 0

    init(authority: CertificateAuthority, capacity: Int = 1000, store: LeafCertificateStore? = nil) throws(EventError) {
        self.authority = authority
        self.capacity = max(1, capacity)
        self.store = store
        if let store {
            key = try store.loadOrCreateKey()
        } else {
            key = try PrivateKey.generateP256()
        }
    }

    /// The certificate for `name`, made now if it is not cached.
    func leaf(for name: CertificateName) throws(EventError) -> LeafCertificate {
        try lock.withLock { () throws(EventError) -> LeafCertificate in
            clock += 1
            if let known = entries[name] {
                entries[name]?.lastUse = clock
                return known.leaf
            }
            let leaf: LeafCertificate
            if let store, !name.isWildcard {
                if let stored = store.load(name, authority: authority, key: key) {
                    leaf = LeafCertificate(certificate: stored, key: key, names: [name])
                } else {
                    leaf = try makeLeaf(for: [name])
                    store.store(leaf.certificate, for: name)
                }
            } else {
                leaf = try makeLeaf(for: [name])
            }
            if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                entries[oldest.key] = nil
            }
            entries[name] = Entry(leaf: leaf, lastUse: clock)
            return leaf
        }
    }

    /// A certificate for several names at once, not cached (the TLS port's, made once).
    func makeLeaf(for names: [CertificateName]) throws(EventError) -> LeafCertificate {
        let certificate = try authority.issueServerCertificate(for: names, key: key)
        return LeafCertificate(certificate: certificate, key: key, names: names)
    }

    /// How many names are cached.
    var count: Int { lock.withLock { () -> Int in entries.count } }
}
