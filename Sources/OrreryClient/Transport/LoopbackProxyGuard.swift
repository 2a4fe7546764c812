import Foundation

/// Keeps the proxy named in the environment away from the daemon's address.
///
/// On Linux, URLSession (libcurl) sends requests through `http_proxy` or `all_proxy` even to 127.0.0.1, and ignores
/// `connectionProxyDictionary`; only `no_proxy` keeps a host direct. So before its first request the client adds the
/// loopback names and its own host to `no_proxy` in the process's environment (libcurl reads it for every request).
/// The entries already there stay. `setenv` is not safe while another thread reads the environment, which is why
/// this happens once per host, when a client is made: make clients before starting threads of your own that read
/// the environment, or set `no_proxy=127.0.0.1,localhost` for the test run yourself.
/// On Apple platforms URLSession does not read these variables, so nothing is changed there.
enum LoopbackProxyGuard {
    /// Names that always go direct: the daemon and its sessions listen on loopback unless told otherwise, and the
    /// app under test may call either name.
    static let loopbackHosts = ["127.0.0.1", "localhost"]

    /// Hosts already added in this process.
    private static let exempted = LockedValue<Set<String>>([])

    /// Makes sure requests to `host` (and loopback) bypass any proxy set in the environment. Nothing is written
    /// when `no_proxy` has them already (as `scripts/test.sh` sets it).
    static func exempt(host: String?) {
        #if canImport(FoundationNetworking)
            let hosts = loopbackHosts + (host.map { [$0] } ?? [])
            exempted.withLock { done in
                guard !hosts.allSatisfy(done.contains) else { return }
                let environment = ProcessInfo.processInfo.environment
                if let value = noProxyValue(environment: environment, adding: hosts) {
                    setenv("no_proxy", value, 1)
                }
                done.formUnion(hosts)
            }
        #endif
    }

    /// The `no_proxy` value that adds `hosts` to what `environment` has, or nil when they are all there already.
    ///
    /// libcurl reads `no_proxy`, and `NO_PROXY` only when that is not set; so the value starts from whichever it
    /// reads, and goes into the lower-case variable. A `*` already exempts every host.
    static func noProxyValue(environment: [String: String], adding hosts: [String]) -> String? {
        let current = environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        var entries = current.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        guard !entries.contains("*") else { return nil }
        var isChanged = false
        for host in hosts {
            let name = Self.bare(host)
            guard !name.isEmpty, !entries.contains(where: { $0.lowercased() == name }) else { continue }
            entries.append(name)
            isChanged = true
        }
        return isChanged ? entries.joined(separator: ",") : nil
    }

    /// A host as no_proxy compares it: lower case, without IPv6 brackets.
    private static func bare(_ host: String) -> String {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        return name
    }
}
