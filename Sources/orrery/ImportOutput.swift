import ArgumentParser
import Foundation
import OrreryCore

/// Reads an input, reports what a converter made of it and writes the stub files whole or not at all: into a
/// temporary folder beside the output folder, moved into place only when everything is written.
enum ImportOutput {
    /// Reads `file` as JSON, naming the line of a syntax error.
    static func json(_ file: String, format: String) throws -> JSONValue {
        guard let data = FileManager.default.contents(atPath: file) else {
            Console.error("orrery: cannot read \(file)")
            throw ExitCode(1)
        }
        do {
            return try JSONValue.parse(Array(data))
        } catch {
            Console.error("\(file):\(error.line): not a \(format) file: \(error.message)")
            throw ExitCode(1)
        }
    }

    /// Prints the problems and the summary, writes the files; exits non-zero when nothing was imported.
    static func finish(_ result: StubImport, input: String, out: String, isOverwriting: Bool) throws {
        for problem in result.skipped { Console.error("\(input): \(problem); skipped") }
        for problem in result.warnings { Console.error("\(input): \(problem)") }
        guard result.importedCount > 0 else {
            Console.error("orrery: nothing imported from \(input) (\(result.entryCount) \(result.unit)); \(out) left as it was")
            throw ExitCode(1)
        }
        do {
            try write(result.files, to: out, isOverwriting: isOverwriting)
        } catch {
            Console.error("orrery: \(error); \(out) left as it was")
            throw ExitCode(1)
        }
        let fileCount = result.files.count
        Console.out(
            "Imported \(result.importedCount) of \(result.entryCount) \(result.unit) into \(fileCount) file\(fileCount == 1 ? "" : "s") under \(out).")
    }

    struct WriteError: Error, CustomStringConvertible {
        var description: String
    }

    static func write(_ files: [ImportedFile], to out: String, isOverwriting: Bool) throws {
        let manager = FileManager.default
        let target = URL(fileURLWithPath: out).standardizedFileURL
        let parent = target.deletingLastPathComponent()
        try manager.createDirectory(at: parent, withIntermediateDirectories: true)
        // Hidden and ending in .tmp: a daemon watching a stubs folder above it never loads it.
        let staging = parent.appendingPathComponent(".\(target.lastPathComponent).import-\(getpid()).tmp")
        try? manager.removeItem(at: staging)
        defer { try? manager.removeItem(at: staging) }
        var paths: [String] = []
        for file in files {
            paths.append(file.path)
            try put(Data(file.text.utf8), at: file.path, under: staging)
            for body in file.bodyFiles {
                paths.append(body.path)
                try put(Data(body.bytes), at: body.path, under: staging)
            }
        }
        var isFolder: ObjCBool = false
        guard manager.fileExists(atPath: target.path, isDirectory: &isFolder) else {
            try manager.moveItem(at: staging, to: target)
            return
        }
        guard isFolder.boolValue else { throw WriteError(description: "\(out) is a file, not a folder") }
        let existing = paths.filter { manager.fileExists(atPath: target.appendingPathComponent($0).path) }
        if !existing.isEmpty && !isOverwriting {
            let names = existing.prefix(3).joined(separator: ", ") + (existing.count > 3 ? " and \(existing.count - 3) more" : "")
            throw WriteError(description: "\(out) already has \(names) (--overwrite replaces them)")
        }
        for path in paths {
            let destination = target.appendingPathComponent(path)
            try manager.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            // rename(2) replaces an existing file in one step: a reader sees the old file or the new one.
            guard rename(staging.appendingPathComponent(path).path, destination.path) == 0 else {
                throw WriteError(description: "cannot move \(path) into \(out): \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func put(_ data: Data, at path: String, under folder: URL) throws {
        let url = folder.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }
}
