import ArgumentParser
import Foundation
import OrreryCore
import OrreryOpenAPI

struct ImportOpenAPI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi",
        abstract: "Turn an OpenAPI document (3.0, 3.1, Swagger 2.0) into stub files to edit.",
        discussion: """
            Writes one YAML file named after the document's title, one stub per operation: its method and path \
            (base path included, parameters as {name}), answered as 'serve --openapi' answers it: the first 2xx \
            response's example, or a body generated from its schema (bodies over 4 KB in bodies/ files).
            """
    )

    @Argument(help: ArgumentHelp("The OpenAPI document (YAML or JSON).", valueName: "spec"))
    var spec: String

    @Option(help: ArgumentHelp("Folder to write the stub files to (made if missing).", valueName: "folder"))
    var out: String

    @Flag(help: "Replace stub files of the same name in the folder.")
    var overwrite = false

    func run() throws {
        let loaded: OpenAPISpec
        do {
            loaded = try OpenAPISpecLoader.load(path: spec)
        } catch {
            Console.error(error.description)
            throw ExitCode(1)
        }
        let mock = OpenAPIMock(specs: [loaded])
        let result = OpenAPIImport.stubs(title: loaded.title, source: spec, answers: mock.primaryAnswers.first ?? [])
        try ImportOutput.finish(result, input: spec, out: out, isOverwriting: overwrite)
    }
}
