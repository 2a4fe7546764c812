import OrreryCore

/// A server certificate signed by the local CA, with its private key: what a TLS server presents for its names.
public final class LeafCertificate: Sendable {
    public let certificate: Certificate
    let key: PrivateKey
    /// The names in its subjectAltName, in order.
    public let names: [CertificateName]

    init(certificate: Certificate, key: PrivateKey, names: [CertificateName]) {
        self.certificate = certificate
        self.key = key
        self.names = names
    }
}
