import Foundation
import OrreryCore
import OrreryEvent
import Synchronization

/// The daemon's HTTPS side: the local CA (made on first need), the TLS context every loop shares, and which
/// `CONNECT`s are intercepted rather than tunnelled blind.
public final class HTTPS: Sendable {
    private let caFolder: String?
    private let interceptsEveryConnect: Bool
    private let interceptedHosts: [HostPattern]
    private let warn: @Sendable (String) -> Void
    private let state = Mutex<(authority: CertificateAuthority?, context: TLSServerContext?)>((nil, nil))

    init(
        caFolder: String?, interceptsEveryConnect: Bool, interceptedHosts: [HostPattern],
        warn: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.caFolder = caFolder
        self.warn = warn
        self.interceptsEveryConnect = interceptsEveryConnect
        self.interceptedHosts = interceptedHosts
    }

    /// Whether any `CONNECT` may be intercepted.
    var intercepts: Bool { interceptsEveryConnect || !interceptedHosts.isEmpty }

    /// Whether a `CONNECT` to `host` is intercepted.
    func intercepts(_ host: String) -> Bool {
        interceptsEveryConnect || interceptedHosts.contains { $0.matches(host) }
    }

    /// The CA, loaded or made now.
    public func authority() throws(EventError) -> CertificateAuthority {
        try state.withLock { state throws(EventError) in
            if let authority = state.authority { return authority }
            let folder: String
            if let caFolder {
                folder = caFolder
            } else {
                folder = try CertificateAuthority.defaultFolder()
            }
            let authority = try CertificateAuthority.loadOrCreate(in: folder)
            state.authority = authority
            return authority
        }
    }

    /// The TLS context, made with the CA when first needed (before the loops start, when TLS is configured). The
    /// certificates it makes for names are kept in the CA's folder and used again after a restart.
    func context() throws(EventError) -> TLSServerContext {
        let authority = try authority()
        return try state.withLock { state throws(EventError) in
            if let context = state.context { return context }
            let context = try TLSServerContext(authority: authority, keepsCertificates: true, warn: warn)
            state.context = context
            return context
        }
    }
}
