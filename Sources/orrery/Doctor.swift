import ArgumentParser
import Foundation
import OrreryCore
import OrreryEvent
import OrreryServer

/// `orrery doctor`: checks a setup before it is served, with `serve`'s options, and says how to fix each problem.
struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a setup: the port, the CA and where it is trusted, proxy variables, the host map, the stubs.",
        discussion: """
            Prints a line per check: 'ok:', 'note:' (worth knowing, not wrong), or 'problem:' with its fix. Exits 1 \
            when it found a problem, 0 otherwise. Takes serve's options, so the same command line checks the same \
            setup. Each host of the host map is resolved and connected to (a 2-second deadline each); nothing is sent.
            """
    )

    @Option(help: "Address serve would listen on.")
    var host = "127.0.0.1"

    @Option(name: [.short, .long], help: "Port serve would listen on.")
    var port = 8080

    @OptionGroup var sources: SourceOptions

    @OptionGroup var ca: CAOptions

    @Option(help: ArgumentHelp("Deadline of each connect to a host map host, in milliseconds.", valueName: "ms"))
    var connectTimeout = 2_000

    func run() throws {
        var report = DoctorReport()
        checkPort(&report)
        checkCA(&report)
        checkProxyVariables(&report)
        checkHostMap(&report)
        checkStubs(&report)
        if report.problems == 0 {
            Console.out("no problems found.")
        } else {
            Console.out("\(report.problems) problem(s) found.")
            throw ExitCode(1)
        }
    }

    // MARK: - Checks

    private func checkPort(_ report: inout DoctorReport) {
        guard port != 0 else {
            report.ok("--port 0: serve picks a free port")
            return
        }
        switch DoctorProbe.bindFailure(host: host, port: port) {
        case nil:
            report.ok("\(host):\(port) is free")
        case let code? where code == EADDRINUSE:
            report.problem(
                "\(host):\(port) is in use by another program (an Orrery already running?)",
                fix:
                    "stop it (ss -ltnp 'sport = :\(port)' names it), or serve on another port: --port 0 picks a free one"
            )
        case let code? where code == EACCES:
            report.problem(
                "\(host):\(port) needs privileges to listen on", fix: "use a port above 1023, such as --port 8080")
        case let code?:
            report.problem(
                "cannot listen on \(host):\(port): \(String(cString: strerror(code)))",
                fix: "--host must be an address of this machine (127.0.0.1, 0.0.0.0, ::1)")
        }
    }

    private func checkCA(_ report: inout DoctorReport) {
        let folder: String
        do {
            folder = try ca.caDir ?? CertificateAuthority.defaultFolder()
        } catch {
            report.problem("the CA's folder cannot be found: \(error)", fix: "pass --ca-dir DIR")
            return
        }
        let certificate = folder + "/ca.pem"
        let key = folder + "/ca-key.pem"
        let files = FileManager.default
        switch (files.fileExists(atPath: certificate), files.fileExists(atPath: key)) {
        case (false, false):
            report.note("no local CA yet in \(folder): it is made on first need (--tls-port, --mitm, orrery ca export)")
            return
        case (true, false), (false, true):
            report.problem(
                "the CA in \(folder) is half there (\(files.fileExists(atPath: key) ? "ca.pem" : "ca-key.pem") is missing)",
                fix: "remove \(folder) to have a new CA made (then trust it again), or restore the missing file")
            return
        case (true, true):
            break
        }
        let authority: CertificateAuthority
        do {
            authority = try CertificateAuthority.loadOrCreate(in: folder)
        } catch {
            report.problem(
                "the CA in \(folder) cannot be used: \(error)",
                fix: "remove \(folder) to have a new one made, then trust it again")
            return
        }
        report.ok("the CA in \(folder) loads (SHA-256 \(authority.certificate.sha256Fingerprint.prefix(23))...)")
        let pem = (try? String(contentsOfFile: certificate, encoding: .utf8)) ?? ""
        let trusted = DoctorProbe.placesTrusting(pem: pem, systemFolder: CAInstall.debianFolder)
        if trusted.isEmpty {
            report.note(
                "the CA is trusted nowhere this machine shows; HTTPS clients refuse --tls-port and --mitm until it is: orrery ca install --system, or --simulator booted (on a Mac), or point SSL_CERT_FILE / NODE_EXTRA_CA_CERTS at \(certificate)"
            )
        } else {
            report.ok("the CA is trusted by " + trusted.joined(separator: ", "))
        }
    }

    private func checkProxyVariables(_ report: inout DoctorReport) {
        let environment = ProcessInfo.processInfo.environment
        let exempt = ["no_proxy", "NO_PROXY"].compactMap { environment[$0] }.joined(separator: ",")
        let proxies = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
            .filter { !(environment[$0] ?? "").isEmpty }
        guard !proxies.isEmpty else {
            report.ok("no proxy variables set")
            return
        }
        let target = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        for name in proxies where !DoctorProbe.noProxyCovers(exempt, host: target) {
            report.problem(
                "\(name) is set (\(environment[name] ?? "")) and no_proxy does not cover \(target): curl, URLSession on Linux and most clients send requests for Orrery to that proxy",
                fix: "export no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost")
        }
        if DoctorProbe.noProxyCovers(exempt, host: target) {
            report.ok("\(proxies.joined(separator: ", ")) set, and no_proxy covers \(target)")
        }
    }

    private func checkHostMap(_ report: inout DoctorReport) {
        let map: HostMap
        do {
            guard let loaded = try HostMapDecoder.load(path: sources.hostMapPath) else {
                report.ok("no host map (\(sources.hostMapPath)): misses are 404s, nothing is forwarded")
                return
            }
            map = loaded
        } catch {
            for error in error.errors {
                report.problem(error.description, fix: "correct \(sources.hostMapPath) (orrery validate checks it)")
            }
            return
        }
        for configuration in map.configurations {
            for entry in configuration.hosts {
                guard let authority = entry.host else { continue }  // USER: set at run time
                let scheme = entry.protocol ?? configuration.canonicalProtocol
                let label = "\(entry.key) of \(configuration.canonicalHost) (\(scheme)://\(authority))"
                switch DoctorProbe.connect(
                    authority: authority, defaultPort: scheme == "http" ? 80 : 443, timeoutMilliseconds: connectTimeout)
                {
                case .connected(let address):
                    report.ok("\(label) resolves and accepts connections (\(address))")
                case .unresolved(let reason):
                    report.problem(
                        "\(label) does not resolve: \(reason)",
                        fix: "check the name in \(sources.hostMapPath), your DNS or VPN; or --dns-server")
                case .refused(let address, let reason):
                    report.problem(
                        "\(label) resolves to \(address) but a connection fails: \(reason)",
                        fix: "check that the upstream runs and its port; a firewall or VPN may be in the way")
                }
            }
        }
    }

    private func checkStubs(_ report: inout DoctorReport) {
        guard FileManager.default.fileExists(atPath: sources.stubs) else {
            if sources.isStubsFolderGiven {
                report.problem(
                    "the stubs folder \(sources.stubs) does not exist", fix: "create it, or point --stubs at yours")
            } else {
                report.note("no stubs folder '\(sources.stubs)' here: serve would answer no stub until it exists")
            }
            return
        }
        do {
            let loaded = try StubLoader.loadPath(sources.stubs, maximumBodyFileBytes: sources.maxBodyFile)
            report.ok("\(loaded.stubs.count) stub(s) in \(loaded.files) file(s) under \(sources.stubs) load")
        } catch {
            for error in error.errors {
                report.problem(error.description, fix: "correct the stub file (orrery validate lists every problem)")
            }
        }
    }
}

/// The lines `doctor` prints, and how many were problems.
struct DoctorReport {
    var problems = 0

    func ok(_ text: String) { Console.out("ok: " + text) }

    func note(_ text: String) { Console.out("note: " + text) }

    mutating func problem(_ text: String, fix: String) {
        problems += 1
        Console.out("problem: \(text)\n  fix: \(fix)")
    }
}
