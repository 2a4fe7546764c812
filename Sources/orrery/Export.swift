import ArgumentParser
import Foundation
import OrreryCore
import OrreryServer
import OrreryEvent

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export what a running Orrery has seen, or its stubs.",
        subcommands: [ExportHAR.self, ExportHoverfly.self, ExportWireMock.self]
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
        let data = Data(try RunningDaemon(url: url, adminToken: adminToken).get("/__admin/requests.har"))
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

struct ExportWireMock: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wiremock",
        abstract: "Write stubs as a WireMock root (mappings/, __files/): a stubs folder's, or a running daemon's.",
        discussion: """
            With --stubs, the stub files of that folder; with --url, the stubs a running daemon serves \
            (GET /__admin/stubs; stubs with body files are read from the folder the daemon runs in). A stub that \
            WireMock cannot express (a host, form fields, a template, a sequence, paginate) is named on standard \
            error and left out. Orrery's regexes match anywhere, WireMock's the whole text: they are written so.
            """
    )

    @Option(help: ArgumentHelp("The WireMock root to write (made if missing; its mappings/ and __files/ are replaced).", valueName: "dir"))
    var out: String

    @Option(help: ArgumentHelp("A stubs folder to export.", valueName: "folder"))
    var stubs: String?

    @Option(help: ArgumentHelp("A running daemon's base URL.", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("The daemon's admin token, if it has one (default: $ORRERY_ADMIN_TOKEN).", valueName: "token"))
    var adminToken: String?

    func validate() throws {
        guard (stubs == nil) != (url == nil) else { throw ValidationError("Give one of --stubs and --url.") }
    }

    func run() throws {
        let loaded: [Stub]
        if let stubs {
            do {
                loaded = try StubLoader(root: stubs).load()
            } catch {
                for problem in error.errors { Console.error(problem.description) }
                throw ExitCode(1)
            }
        } else {
            loaded = try RunningDaemon(url: url ?? "", adminToken: adminToken).stubs()
        }
        let (files, skipped) = WireMockExport.root(from: loaded)
        for line in skipped { Console.error("orrery: not exported: \(line)") }
        let root = URL(fileURLWithPath: out)
        do {
            for folder in ["mappings", "__files"] {
                let url = root.appendingPathComponent(folder)
                if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
            }
            for file in files {
                let target = root.appendingPathComponent(file.path)
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(file.bytes).write(to: target, options: .atomic)
            }
        } catch {
            Console.error("orrery: cannot write \(out): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        let mappings = files.filter { $0.path.hasPrefix("mappings/") }.count
        Console.out("Exported \(mappings) of \(loaded.count) stub(s) as WireMock mappings under \(out).")
    }
}
