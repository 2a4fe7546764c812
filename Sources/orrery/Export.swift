import ArgumentParser
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export what a running Orrery has seen.",
        subcommands: [ExportHAR.self]
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
        guard let endpoint = URL(string: trimmed + "/__admin/requests.har"), endpoint.scheme?.hasPrefix("http") == true else {
            throw ValidationError("--url must be an http:// URL such as http://127.0.0.1:8080, not '\(url)'.")
        }
        var request = URLRequest(url: endpoint, timeoutInterval: 30)
        if let token = adminToken ?? ProcessInfo.processInfo.environment["ORRERY_ADMIN_TOKEN"] {
            request.setValue(token, forHTTPHeaderField: "X-Orrery-Admin-Token")
        }
        let fetched = Self.fetch(request)
        let data: Data
        switch fetched {
        case .failure(let error):
            Console.error("orrery: cannot reach \(trimmed): \(error.localizedDescription)")
            throw ExitCode(1)
        case .success(let (status, body)) where status != 200:
            Console.error("orrery: \(endpoint) answered \(status): \(String(decoding: body, as: UTF8.self))")
            throw ExitCode(1)
        case .success(let (_, body)):
            data = body
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

    /// One request, waited for: the command has nothing else to do meanwhile.
    private static func fetch(_ request: URLRequest) -> Result<(Int, Data), any Error> {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<(Int, Data), any Error> = .failure(URLError(.unknown))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = [:]
        URLSession(configuration: configuration).dataTask(with: request) { data, response, error in
            if let error {
                result = .failure(error)
            } else {
                result = .success(((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data()))
            }
            done.signal()
        }.resume()
        done.wait()
        return result
    }
}
