import ArgumentParser
import Foundation
import OrreryCore
import OrreryEvent
import OrreryServer

/// A running daemon's admin API, as the export commands read it (`--url`): one GET at a time, blocking.
struct RunningDaemon {
    /// The daemon's URL without a trailing `/`.
    let base: String
    let adminToken: String?

    init(url: String, adminToken: String?) {
        base = url.hasSuffix("/") ? String(url.dropLast()) : url
        self.adminToken = adminToken ?? ProcessInfo.processInfo.environment["ORRERY_ADMIN_TOKEN"]
    }

    /// The body of a 200 answer to `GET path`; anything else is said on standard error and ends the command.
    func get(_ path: String) throws -> [UInt8] {
        guard let endpoint = URL(string: base + path), let scheme = endpoint.scheme,
            scheme == "http" || scheme == "https", let host = endpoint.host
        else {
            throw ValidationError("--url must be an http:// URL such as http://127.0.0.1:8080, not '\(base)'.")
        }
        let name = host.contains(":") ? "[\(host)]" : host
        let upstream = Upstream(
            scheme: scheme, hostAndPort: endpoint.port.map { "\(name):\($0)" } ?? name, environmentKey: nil,
            canonicalHost: nil)
        var headers: HTTPHeaders = ["Host": upstream.hostHeader, "Accept": "application/json"]
        if let adminToken { headers.add("X-Orrery-Admin-Token", adminToken) }
        let request = UpstreamRequest(
            upstream: upstream, method: "GET", target: endpoint.path, headers: headers, body: [])
        switch BlockingFetch.send(request) {
        case .failure(let failure):
            Console.error("orrery: cannot reach \(base): \(failure.message)")
            throw ExitCode(1)
        case .success(let response) where response.status != 200:
            Console.error("orrery: \(endpoint) answered \(response.status): \(response.body.text)")
            throw ExitCode(1)
        case .success(let response):
            return response.body.bytes
        }
    }

    /// The stubs the daemon serves, decoded again from the definitions `GET /__admin/stubs` lists: a stub written
    /// under a file's `base` is decoded as that file would decode it, and a `bodyFile` is read relative to the file
    /// the stub came from. A stub that does not decode is named on standard error and left out.
    func stubs() throws -> [Stub] {
        let bytes = try get("/__admin/stubs")
        guard let listing = try? JSONValue.parse(bytes), case .array(let entries)? = listing["stubs"] else {
            Console.error("orrery: \(base)/__admin/stubs did not answer a JSON 'stubs' list")
            throw ExitCode(1)
        }
        var stubs: [Stub] = []
        for entry in entries {
            guard let definition = entry["stub"], let id = entry["id"]?.stringValue else { continue }
            let label = entry["name"]?.stringValue ?? id
            let source = entry["source"]?.stringValue ?? ""
            let file = source.split(separator: ":").first.map(String.init) ?? ""
            let folder = URL(fileURLWithPath: file.isEmpty || source == "admin API" ? "." : file)
                .deletingLastPathComponent()
            do throws(JSONSyntaxError) {
                var node = try StubLoader.parse(definition.encodedBytes, isJSON: true)
                if let base = definition["base"], case .object(let members) = definition {
                    let rest = JSONValue.object(members.filter { $0.0 != "base" })
                    node = try StubLoader.parse(
                        JSONValue.object([("base", base), ("stubs", .array([rest]))]).encodedBytes, isJSON: true)
                }
                var decoder = StubDecoder(
                    displayPath: source.isEmpty ? label : source, directory: folder,
                    stubsRoot: URL(fileURLWithPath: "/"),
                    makeID: { _ in id })
                let decoded = decoder.decodeFile(node)
                guard decoder.errors.isEmpty, var stub = decoded.first else {
                    Console.error(
                        "orrery: left out: \(label): \(decoder.errors.map(\.message).joined(separator: "; "))")
                    continue
                }
                stub.id = id
                stub.name = entry["name"]?.stringValue ?? stub.name
                if case .number(let priority, _)? = entry["priority"] { stub.priority = Int(priority) }
                stubs.append(stub)
            } catch {
                Console.error("orrery: left out: \(label): \(error.message)")
            }
        }
        return stubs
    }
}
