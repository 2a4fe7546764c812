import OrreryCore
import Synchronization

/// The WireMock roots served next to the stub files (`--wiremock-root`), read again on every reload; the issues
/// of the last read are kept for the daemon to report.
public final class WireMockRoots: Sendable {
    public let loader: WireMockLoader
    private let lastIssues = Mutex<[WireMockIssue]>([])

    public init(roots: [String]) {
        loader = WireMockLoader(roots: roots)
    }

    /// What the last load found that is not served as WireMock would serve it.
    public var issues: [WireMockIssue] { lastIssues.withLock { $0 } }

    /// Every root's stubs and the number of mapping files; throws when a file is not JSON or a root is missing.
    func load() throws(SourceErrors) -> (stubs: [Stub], files: Int) {
        let loaded = try loader.load()
        lastIssues.withLock { $0 = loaded.issues }
        return (loaded.stubs, loaded.files)
    }

    /// The folders whose changes call for a reload.
    var folders: [String] { loader.roots }
}
