import ArgumentParser
import Foundation
import OrreryCore

struct ImportMockServer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mockserver",
        abstract: "Turn MockServer expectations (initializerJson.json) into stub files.",
        discussion: """
            Writes one YAML file, one stub per expectation (one per answer for a limited 'times'), in MockServer's \
            order of priority and creation. httpRequest, httpResponse, times, httpError and delay are converted as \
            docs/importing.md describes; forwards and callbacks are named on standard error and left out.
            """
    )

    @Argument(help: ArgumentHelp("The expectations (JSON: a list, or one expectation).", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("Folder to write the stub files to (made if missing).", valueName: "folder"))
    var out: String

    @Flag(help: "Replace stub files of the same name in the folder.")
    var overwrite = false

    func run() throws {
        let document = try ImportOutput.json(file, format: "MockServer expectations")
        let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let result: StubImport
        do {
            result = try MockServerImport.stubs(from: document, name: name)
        } catch {
            Console.error("\(file): \(error)")
            throw ExitCode(1)
        }
        try ImportOutput.finish(result, input: file, out: out, isOverwriting: overwrite)
    }
}
