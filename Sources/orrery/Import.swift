import ArgumentParser
import Foundation
import OrreryCore
import OrreryEvent
import OrreryServer

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn traffic captured elsewhere into stub files.",
        subcommands: [ImportHAR.self, ImportHoverfly.self, ImportPostman.self, ImportMockServer.self]
    )
}

struct ImportHAR: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "har",
        abstract: "Turn a HAR file (from a browser, Charles, mitmproxy or Orrery) into fixture files.",
        discussion: """
            Writes the same files a recording does: one YAML file per route under the folder, named after it, \
            repeated requests with new answers as sequences, large or binary bodies in bodies/ files, secrets \
            redacted. Fixtures match the method, host, url (query in any order) and body. Route files that \
            exist are appended to unless --overwrite is given. Serve them with 'orrery serve --stubs FOLDER'.
            """
    )

    @Argument(help: ArgumentHelp("The HAR file.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("Folder to write the fixtures to (made if missing).", valueName: "folder"))
    var out: String

    @Option(
        name: .customLong("match-header"),
        help: ArgumentHelp("A request header the fixtures must match (repeatable).", valueName: "name"))
    var matchHeaders: [String] = []

    @Flag(help: "Let the fixtures answer whatever the request's host (by default they require the host of each URL).")
    var anyHost = false

    @Flag(help: "Write route files anew instead of appending to those that exist.")
    var overwrite = false

    @OptionGroup var redaction: RedactionOptions

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            Console.error("orrery: cannot read \(file)")
            throw ExitCode(1)
        }
        let har: JSONValue
        do {
            har = try JSONValue.parse(Array(data))
        } catch {
            Console.error("\(file):\(error.line): \(error.message)")
            throw ExitCode(1)
        }
        let result: HARImport.Result
        do {
            result = try HARImport.exchanges(
                from: har, matchHeaders: matchHeaders, pinsHost: !anyHost, redactor: redaction.redactor,
                decompress: { Zlib.decompress($0, $1) })
        } catch {
            Console.error("\(file): \(error)")
            throw ExitCode(1)
        }
        for skipped in result.skipped { Console.error("\(file): \(skipped); skipped") }
        var writer = FixtureWriter(
            folder: out, isReplacing: overwrite, matchHeaders: matchHeaders, origin: (file as NSString).lastPathComponent)
        var files = Set<String>()
        do {
            for exchange in result.exchanges {
                if let written = try writer.write(exchange) { files.insert(written) }
            }
        } catch {
            Console.error("orrery: \(error)")
            throw ExitCode(1)
        }
        Console.out("Imported \(result.exchanges.count) of \(result.exchanges.count + result.skipped.count) entries into \(files.count) file(s) under \(out).")
    }
}
