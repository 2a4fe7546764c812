import ArgumentParser
import Foundation
import OrreryCore

struct ImportHoverfly: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hoverfly",
        abstract: "Turn a Hoverfly simulation (schema v1 to v5) into stub files.",
        discussion: """
            Writes one YAML file for the simulation, one stub per pair, bodies over 4 KB in bodies/ files. \
            Matchers, templated responses, state and delays are converted as docs/importing.md describes; each \
            pair that cannot be converted is named on standard error with the reason. A response's bodyFile is \
            read relative to the simulation's folder.
            """
    )

    @Argument(help: ArgumentHelp("The simulation (JSON).", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("Folder to write the stub files to (made if missing).", valueName: "folder"))
    var out: String

    @Flag(help: "Replace stub files of the same name in the folder.")
    var overwrite = false

    func run() throws {
        let document = try ImportOutput.json(file, format: "Hoverfly simulation")
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let result: StubImport
        do {
            result = try HoverflyImport.stubs(from: document, name: name) { path in
                FileManager.default.contents(atPath: folder.appendingPathComponent(path).path).map { Array($0) }
            }
        } catch {
            Console.error("\(file): \(error)")
            throw ExitCode(1)
        }
        try ImportOutput.finish(result, input: file, out: out, isOverwriting: overwrite)
    }
}
