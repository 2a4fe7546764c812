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
            loaded = try RunningDaemon(url: url ?? "http://127.0.0.1:8080", adminToken: adminToken).stubs()
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
}
