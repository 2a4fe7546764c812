import ArgumentParser
import Foundation
import OrreryCore
import OrreryEvent
import OrreryServer

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn traffic captured elsewhere into stub files.",
        subcommands: [
            ImportHAR.self, ImportWireMock.self, ImportHoverfly.self, ImportPostman.self, ImportMockServer.self,
            ImportOpenAPI.self,
        ]
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

struct ImportWireMock: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wiremock",
        abstract: "Turn a WireMock root (mappings/, __files/) into native stub files.",
        discussion: """
            Writes one YAML file per mapping file, at the same path under the folder, with each mapping's name and \
            id kept, and copies __files to bodies/. The stubs answer as 'orrery serve --wiremock-root DIR' does, \
            except that a body file gets a Content-Type guessed from its extension when the mapping gives none. \
            Mappings Orrery cannot honour are reported with file, line, JSON path and reason, and left out.
            """
    )

    @Argument(help: ArgumentHelp("The WireMock root.", valueName: "dir"))
    var root: String

    @Option(help: ArgumentHelp("Folder to write the stub files to (made if missing).", valueName: "folder"))
    var out: String

    @Flag(help: "Replace stub files that exist instead of refusing.")
    var overwrite = false

    func run() throws {
        let converted: (files: [WireMockLoader.ConvertedFile], stubs: [Stub], issues: [WireMockIssue])
        do {
            converted = try WireMockLoader(roots: [root]).convertAndDecode()
        } catch {
            for problem in error.errors { Console.error(problem.description) }
            throw ExitCode(1)
        }
        for issue in converted.issues { Console.error(issue.description) }
        let fileManager = FileManager.default
        let outURL = URL(fileURLWithPath: out)
        var written = 0
        var stubs = 0
        var inlineBodies: [WireMockImport.BodyFile] = []
        do {
            for file in converted.files where !file.mappings.isEmpty {
                let yamlRelative = (file.relative as NSString).deletingPathExtension + ".yaml"
                let target = outURL.appendingPathComponent(yamlRelative)
                if !overwrite, fileManager.fileExists(atPath: target.path) {
                    Console.error("orrery: \(target.path) exists; give --overwrite to replace it")
                    throw ExitCode(1)
                }
                let depth = yamlRelative.split(separator: "/").count - 1
                let bodies = String(repeating: "../", count: depth) + "bodies/"
                let origin = "mappings/" + file.relative
                let stem = (yamlRelative as NSString).deletingPathExtension.replacingOccurrences(of: "/", with: "-")
                let (text, bodyFiles) = WireMockImport.yaml(for: file, bodies: bodies, origin: origin, stem: stem)
                try fileManager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: target, options: .atomic)
                inlineBodies += bodyFiles
                written += 1
                stubs += file.mappings.count
            }
            let files = URL(fileURLWithPath: root).appendingPathComponent("__files")
            var isFolder: ObjCBool = false
            if fileManager.fileExists(atPath: files.path, isDirectory: &isFolder), isFolder.boolValue {
                let bodies = outURL.appendingPathComponent("bodies")
                if fileManager.fileExists(atPath: bodies.path) {
                    guard overwrite else {
                        Console.error("orrery: \(bodies.path) exists; give --overwrite to replace it")
                        throw ExitCode(1)
                    }
                    try fileManager.removeItem(at: bodies)
                }
                try fileManager.createDirectory(at: outURL, withIntermediateDirectories: true)
                try fileManager.copyItem(at: files, to: bodies)
            }
            for body in inlineBodies {
                let target = outURL.appendingPathComponent("bodies").appendingPathComponent(body.path)
                try fileManager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(body.bytes).write(to: target, options: .atomic)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Console.error("orrery: cannot write under \(out): \(error.localizedDescription)")
            throw ExitCode(1)
        }
        let left = Set(converted.issues.filter { $0.effect == .skipped }.map { "\($0.file)#\($0.mappingPath)" }).count
        Console.out("Imported \(stubs) of \(stubs + left) mapping(s) into \(written) file(s) under \(out).")
        // As every importer: a failure only when nothing could be imported.
        if stubs == 0, left > 0 { throw ExitCode(1) }
    }
}
