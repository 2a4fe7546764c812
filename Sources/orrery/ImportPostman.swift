import ArgumentParser
import Foundation
import OrreryCore

struct ImportPostman: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postman",
        abstract: "Turn the saved example responses of a Postman collection (v2.0 or v2.1) into stub files.",
        discussion: """
            Writes one YAML file for the collection's top-level requests and one for each folder, one stub per \
            example: its method, path and query, answered with the example's status, headers and body (bodies over \
            4 KB in bodies/ files). {{variables}} are resolved from the collection's variables; others, and :name \
            path variables, become path parameters.
            """
    )

    @Argument(help: ArgumentHelp("The collection (JSON, exported from Postman).", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("Folder to write the stub files to (made if missing).", valueName: "folder"))
    var out: String

    @Flag(help: "Replace stub files of the same name in the folder.")
    var overwrite = false

    func run() throws {
        let document = try ImportOutput.json(file, format: "Postman collection")
        let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let result: StubImport
        do {
            result = try PostmanImport.stubs(from: document, name: name)
        } catch {
            Console.error("\(file): \(error)")
            throw ExitCode(1)
        }
        try ImportOutput.finish(result, input: file, out: out, isOverwriting: overwrite)
    }
}
