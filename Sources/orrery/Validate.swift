import ArgumentParser
import Foundation
import OrreryCore

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the stub files and the host map without serving.",
        discussion: "Prints every problem as FILE:LINE: message and exits 1 if there is any; exits 0 when all is well."
    )

    @OptionGroup var sources: SourceOptions

    @Argument(help: ArgumentHelp("Stub files or folders to check (default: the --stubs folder, which may be a file too).", valueName: "path"))
    var paths: [String] = []

    func run() throws {
        var errors: [SourceError] = []
        var stubCount = 0
        var fileCount = 0
        for path in paths.isEmpty ? [sources.stubs] : paths {
            do {
                let loaded = try StubLoader.loadPath(path, maximumBodyFileBytes: sources.maxBodyFile)
                stubCount += loaded.stubs.count
                fileCount += loaded.files
            } catch {
                errors += error.errors
            }
        }
        var hostMapNote = "no host map"
        do {
            if let map = try HostMapDecoder.load(path: sources.hostMapPath) {
                hostMapNote = "\(map.configurations.count) host configuration(s) in \(sources.hostMapPath)"
            }
        } catch {
            errors += error.errors
        }
        guard errors.isEmpty else {
            for error in errors { Console.error(error.description) }
            Console.error("\(errors.count) problem(s) found.")
            throw ExitCode(1)
        }
        let checked = paths.isEmpty ? sources.stubs : paths.joined(separator: ", ")
        Console.out("OK: \(stubCount) stub(s) in \(fileCount) file(s) under \(checked); \(hostMapNote).")
    }
}

/// Unbuffered writes to standard output and error (`print` is block-buffered when piped).
enum Console {
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
