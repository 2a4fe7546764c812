import ArgumentParser
import Foundation
import OrreryCore
import OrreryEvent

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export what a running Orrery has seen.",
        subcommands: [ExportHAR.self, ExportHoverfly.self]
    )
}

struct ExportHAR: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "har",
        abstract: "Save a running daemon's journal as a HAR 1.2 file (GET /__admin/requests.har).",
        discussion: "Secrets are already redacted in the journal. Exits 1 when the daemon cannot be reached."
    )

    @Option(help: ArgumentHelp("The daemon's base URL.", valueName: "url"))
    var url = "http://127.0.0.1:8080"

    @Option(help: ArgumentHelp("File to write (written whole or not at all); standard output when left out.", valueName: "file"))
    var out: String?

    @Option(help: ArgumentHelp("The daemon's admin token, if it has one (default: $ORRERY_ADMIN_TOKEN).", valueName: "token"))
    var adminToken: String?

    func run() throws {
        let trimmed = url.hasSuffix("/") ? String(url.dropLast()) : url
        guard let endpoint = URL(string: trimmed + "/__admin/requests.har"), let scheme = endpoint.scheme,
            scheme == "http" || scheme == "https", let host = endpoint.host
        else {
            throw ValidationError("--url must be an http:// URL such as http://127.0.0.1:8080, not '\(url)'.")
        }
        let name = host.contains(":") ? "[\(host)]" : host
        let upstream = Upstream(
            scheme: scheme, hostAndPort: endpoint.port.map { "\(name):\($0)" } ?? name, environmentKey: nil,
            canonicalHost: nil)
        var headers: HTTPHeaders = ["Host": upstream.hostHeader, "Accept": "application/json"]
        if let token = adminToken ?? ProcessInfo.processInfo.environment["ORRERY_ADMIN_TOKEN"] {
            headers.add("X-Orrery-Admin-Token", token)
        }
        let data: Data
        switch BlockingFetch.send(UpstreamRequest(upstream: upstream, method: "GET", target: endpoint.path, headers: headers, body: [])) {
        case .failure(let failure):
            Console.error("orrery: cannot reach \(trimmed): \(failure.message)")
            throw ExitCode(1)
        case .success(let response) where response.status != 200:
            Console.error("orrery: \(endpoint) answered \(response.status): \(response.body.text)")
            throw ExitCode(1)
        case .success(let response):
            data = Data(response.body.bytes)
        }
        guard let out else {
            FileHandle.standardOutput.write(data)
            return
        }
        do {
            try data.write(to: URL(fileURLWithPath: out), options: .atomic)
        } catch {
            Console.error("orrery: cannot write \(out): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        Console.error("wrote \(out)")
    }
}
