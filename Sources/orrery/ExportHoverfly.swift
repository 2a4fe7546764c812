import ArgumentParser
import Foundation
import OrreryCore
import OrreryServer
import OrreryEvent

struct ExportHoverfly: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hoverfly",
        abstract: "Write stubs as a Hoverfly simulation (schema v5): a running daemon's (--url) or a stubs folder's (--stubs).",
        discussion: """
            Stubs with conditions, faults or delays Hoverfly has no equivalent for are named on standard error and \
            left out; exits 1 when none could be written. 'orrery import hoverfly' reads the file back.
            """
    )

    @Option(help: ArgumentHelp("A running daemon's base URL, whose stubs are exported (GET /__admin/stubs).", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("A stubs folder to export instead of a running daemon's.", valueName: "folder"))
    var stubs: String?

    @Option(help: ArgumentHelp("The simulation file to write (written whole or not at all).", valueName: "file"))
    var out: String

    @Option(help: ArgumentHelp("The daemon's admin token, if it has one (default: $ORRERY_ADMIN_TOKEN).", valueName: "token"))
    var adminToken: String?

    func validate() throws {
        if url != nil && stubs != nil { throw ValidationError("Give --url or --stubs, not both.") }
    }

    func run() throws {
        let loaded: [Stub]
        if let stubs {
            do {
                loaded = try StubLoader(root: stubs).load()
            } catch {
                Console.error("\(error)")
                throw ExitCode(1)
            }
        } else {
            loaded = try fetch(url ?? "http://127.0.0.1:8080")
        }
        let result = HoverflyExport.simulation(of: loaded)
        for problem in result.skipped { Console.error("\(problem); left out") }
        for problem in result.warnings { Console.error("\(problem)") }
        guard result.exported > 0 else {
            Console.error("orrery: no stub could be written as Hoverfly pairs (\(loaded.count) stub(s)); \(out) not written")
            throw ExitCode(1)
        }
        do {
            try Data(result.simulation.prettyEncoded.utf8).write(to: URL(fileURLWithPath: out), options: .atomic)
        } catch {
            Console.error("orrery: cannot write \(out): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        Console.out("Exported \(result.exported) of \(loaded.count) stubs to \(out).")
    }

    /// The daemon's stubs as it lists them, decoded again; a bodyFile is read from the file the stub came from.
    private func fetch(_ base: String) throws -> [Stub] {
        let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
        guard let endpoint = URL(string: trimmed + "/__admin/stubs"), let scheme = endpoint.scheme,
            scheme == "http" || scheme == "https", let host = endpoint.host
        else {
            throw ValidationError("--url must be an http:// URL such as http://127.0.0.1:8080, not '\(base)'.")
        }
        let name = host.contains(":") ? "[\(host)]" : host
        let upstream = Upstream(
            scheme: scheme, hostAndPort: endpoint.port.map { "\(name):\($0)" } ?? name, environmentKey: nil, canonicalHost: nil)
        var headers: HTTPHeaders = ["Host": upstream.hostHeader, "Accept": "application/json"]
        if let token = adminToken ?? ProcessInfo.processInfo.environment["ORRERY_ADMIN_TOKEN"] {
            headers.add("X-Orrery-Admin-Token", token)
        }
        let listing: JSONValue
        switch BlockingFetch.send(UpstreamRequest(upstream: upstream, method: "GET", target: endpoint.path, headers: headers, body: [])) {
        case .failure(let failure):
            Console.error("orrery: cannot reach \(trimmed): \(failure.message)")
            throw ExitCode(1)
        case .success(let response) where response.status != 200:
            Console.error("orrery: \(endpoint) answered \(response.status): \(response.body.text)")
            throw ExitCode(1)
        case .success(let response):
            guard let parsed = try? JSONValue.parse(response.body.bytes) else {
                Console.error("orrery: \(endpoint) did not answer JSON")
                throw ExitCode(1)
            }
            listing = parsed
        }
        guard case .array(let entries)? = listing["stubs"] else { return [] }
        var stubs: [Stub] = []
        for entry in entries {
            guard let definition = entry["stub"], let node = try? StubLoader.parse(definition.encodedBytes, isJSON: true) else { continue }
            let source = entry["source"]?.stringValue ?? ""
            let file = source.split(separator: ":").first.map(String.init) ?? ""
            let folder = URL(fileURLWithPath: file.isEmpty || source == "admin API" ? "." : file).deletingLastPathComponent()
            var decoder = StubDecoder(
                displayPath: source, directory: folder, stubsRoot: URL(fileURLWithPath: "/"),
                makeID: { _ in entry["id"]?.stringValue ?? "stub" })
            if var stub = decoder.decodeSingle(node), decoder.errors.isEmpty {
                stub.name = entry["name"]?.stringValue ?? stub.name
                if case .number(let priority, _)? = entry["priority"] { stub.priority = Int(priority) }
                stubs.append(stub)
            } else {
                Console.error("\(source): \(decoder.errors.map(\.message).joined(separator: "; ")); left out")
            }
        }
        return stubs
    }
}
