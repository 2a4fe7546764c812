import CLibevent
import Glibc
import OrreryCore

/// The local certificate authority that signs Orrery's HTTPS certificates: an EC P-256 key and a self-signed CA
/// certificate in one folder, made on first need and loaded from then on.
///
/// The folder holds `ca.pem` (the certificate, mode 0644), `ca-key.pem` (the key, mode 0600, never readable by
/// others, not even while it is written) and `ca.lock`. Two Orrerys starting at once take turns on the lock, so
/// the second loads what the first made. A file that is there but unreadable, corrupt, mismatched or expired is
/// an error naming it: it is never replaced, because devices may already trust it.
public final class CertificateAuthority: Sendable {
    /// The folder the CA lives in.
    public let folder: String
    public let certificate: Certificate
    let key: PrivateKey
    /// Whether the CA was made by this call (the folder held none).
    public let wasCreated: Bool

    /// How long a new CA is valid: ten years. (Apple's 825-day limit applies to the server certificates it signs,
    /// not to a root the user trusts.)
    static let lifetimeSeconds = 10 * 365 * 86_400

    private init(folder: String, certificate: Certificate, key: PrivateKey, wasCreated: Bool) {
        self.folder = folder
        self.certificate = certificate
        self.key = key
        self.wasCreated = wasCreated
    }

    /// The path of the CA certificate, the file to give to clients that should trust Orrery.
    public var certificatePath: String { CertificateAuthorityFolder(path: folder).certificatePath }

    /// The path of the CA's private key.
    public var keyPath: String { CertificateAuthorityFolder(path: folder).keyPath }

    /// Loads the CA in `folder`, or makes one there (creating the folder) when the folder holds none.
    public static func loadOrCreate(in folder: String) throws(EventError) -> CertificateAuthority {
        let files = CertificateAuthorityFolder(path: folder)
        try files.create()
        return try files.withLock { () throws(EventError) -> CertificateAuthority in
            let hasCertificate = try files.exists(files.certificatePath)
            let hasKey = try files.exists(files.keyPath)
            switch (hasCertificate, hasKey) {
            case (true, true):
                return try load(files)
            case (false, false):
                return try create(files)
            case (true, false):
                throw EventError(
                    "\(files.keyPath) is missing but \(files.certificatePath) is there: restore the key, or remove "
                        + "the certificate to make a new CA (clients must then trust the new one)")
            case (false, true):
                throw EventError(
                    "\(files.certificatePath) is missing but \(files.keyPath) is there: restore the certificate, or "
                        + "remove the key to make a new CA (clients must then trust the new one)")
            }
        }
    }

    /// `$XDG_DATA_HOME/orrery/ca` when that is set to an absolute path, else `~/.local/share/orrery/ca`.
    public static func defaultFolder() throws(EventError) -> String {
        let dataHome = getenv("XDG_DATA_HOME").map { String(cString: $0) }
        let home = getenv("HOME").map { String(cString: $0) } ?? homeFromPasswordDatabase()
        guard let folder = defaultFolder(dataHome: dataHome, home: home) else {
            throw EventError("neither XDG_DATA_HOME nor HOME is set: give the CA's folder with --ca-dir")
        }
        return folder
    }

    /// The XDG rule: a data home that is empty or relative is ignored.
    static func defaultFolder(dataHome: String?, home: String?) -> String? {
        if let dataHome, dataHome.hasPrefix("/") { return dataHome + "/orrery/ca" }
        guard let home, home.hasPrefix("/") else { return nil }
        return (home == "/" ? "" : home) + "/.local/share/orrery/ca"
    }

    private static func homeFromPasswordDatabase() -> String? {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        return String(cString: directory)
    }

    // MARK: - Loading

    private static func load(_ files: CertificateAuthorityFolder) throws(EventError) -> CertificateAuthority {
        let keyMode = try files.mode(of: files.keyPath)
        guard keyMode & 0o077 == 0 else {
            throw EventError(
                "\(files.keyPath) is readable by other users (mode \(String(keyMode, radix: 8))): whoever reads it can "
                    + "impersonate any HTTPS site to clients that trust this CA; run chmod 600 \(files.keyPath)")
        }
        let key: PrivateKey
        do {
            key = try PrivateKey.read(pem: files.read(files.keyPath))
        } catch {
            throw EventError("the CA key \(files.keyPath) cannot be used: \(error)")
        }
        let certificate: Certificate
        do {
            certificate = try Certificate.read(pem: files.read(files.certificatePath))
        } catch {
            throw EventError("the CA certificate \(files.certificatePath) cannot be used: \(error)")
        }
        guard X509_check_ca(certificate.pointer) == 1 else {
            throw EventError("\(files.certificatePath) is not a CA certificate (it lacks basicConstraints CA:TRUE)")
        }
        guard X509_check_private_key(certificate.pointer, key.pointer) == 1 else {
            _ = OpenSSLErrorQueue.take()
            throw EventError("\(files.keyPath) is not the key of the certificate \(files.certificatePath)")
        }
        guard !certificate.hasExpired else {
            throw EventError(
                "the CA certificate \(files.certificatePath) has expired: remove \(files.path) to make a new CA "
                    + "(clients must then trust the new one)")
        }
        return CertificateAuthority(folder: files.path, certificate: certificate, key: key, wasCreated: false)
    }

    // MARK: - Creating

    private static func create(_ files: CertificateAuthorityFolder) throws(EventError) -> CertificateAuthority {
        let key = try PrivateKey.generateP256()
        let builder = CertificateBuilder(
            subject: [("O", "Orrery"), ("CN", commonName(host: hostName(), date: today()))],
            extensions: [
                (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
                (NID_key_usage, "critical,keyCertSign,cRLSign"),
            ],
            lifetimeSeconds: lifetimeSeconds,
            isCertificateAuthority: true
        )
        let certificate = try builder.sign(publicKey: key, issuer: nil)
        // The key first: a folder with a certificate is a CA, and its key must be there by then.
        try files.writeNew(files.keyPath, key.pem(), mode: 0o600)
        try files.writeNew(files.certificatePath, certificate.pem(), mode: 0o644)
        files.sync()
        return CertificateAuthority(folder: files.path, certificate: certificate, key: key, wasCreated: true)
    }

    /// `Orrery local CA (HOST, YYYY-MM-DD)`, within the 64 characters X.509 allows a common name: the host name
    /// is cut to fit. Which machine and day made it tells apart the CAs a device has come to trust.
    static func commonName(host: String, date: String) -> String {
        let fixed = "Orrery local CA (, \(date))".count
        let safeHost = host.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
        let shortHost = String(safeHost.prefix(max(0, 64 - fixed)))
        return shortHost.isEmpty ? "Orrery local CA (\(date))" : "Orrery local CA (\(shortHost), \(date))"
    }

    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Today's date in UTC, as `YYYY-MM-DD`.
    private static func today() -> String {
        var now = time(nil)
        var parts = tm()
        guard gmtime_r(&now, &parts) != nil else { return "" }
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(twoDigits(parts.tm_mon + 1))-\(twoDigits(parts.tm_mday))"
    }

    // MARK: - Signing

    /// How long a server certificate is valid: a year. Apple's platforms refuse server certificates valid for more
    /// than 825 days even under a root the user trusts.
    static let leafLifetimeSeconds = 365 * 86_400

    /// A server certificate for `names`, for `key`, signed by this CA: empty subject, critical subjectAltName,
    /// serverAuth, valid for a year (never beyond the CA) unless `lifetimeSeconds` says less.
    func issueServerCertificate(
        for names: [CertificateName], key leafKey: PrivateKey,
        lifetimeSeconds: Int = CertificateAuthority.leafLifetimeSeconds
    ) throws(EventError) -> Certificate {
        guard !names.isEmpty else { throw EventError("a server certificate needs at least one name") }
        let builder = CertificateBuilder(
            extensions: [
                (NID_basic_constraints, "critical,CA:FALSE"),
                (NID_key_usage, "critical,digitalSignature"),
                (NID_ext_key_usage, "serverAuth"),
                // Names are validated (CertificateName), so no comma or prefix can add an entry here.
                (NID_subject_alt_name, "critical," + names.map(\.subjectAltNameEntry).joined(separator: ",")),
            ],
            lifetimeSeconds: lifetimeSeconds
        )
        return try builder.sign(publicKey: leafKey, issuer: (certificate, key))
    }
}
