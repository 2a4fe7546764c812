import ArgumentParser
import Foundation
import OrreryCore
import OrreryOpenAPI
import OrreryServer

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the stub files and the host map without serving.",
        discussion: "Prints every problem as FILE:LINE: message and exits 1 if there is any; exits 0 when all is well."
    )

    @OptionGroup var sources: SourceOptions

    @Argument(help: ArgumentHelp("Stub files or folders to check (default: the --stubs folder, which may be a file too).", valueName: "path"))
    var paths: [String] = []

    @Option(
        name: .customLong("openapi"),
        help: ArgumentHelp(
            "Also check every stub against an OpenAPI document: its route, and its status, headers and body (repeatable).",
            valueName: "spec"))
    var openAPISpecs: [String] = []

    func run() throws {
        var errors: [SourceError] = []
        var stubCount = 0
        var fileCount = 0
        var stubs: [Stub] = []
        // With only WireMock roots named, the default stubs folder need not exist.
        let readsStubs = !paths.isEmpty || sources.isStubsFolderGiven || sources.wiremockRoots.isEmpty
            || FileManager.default.fileExists(atPath: sources.stubs)
        for path in readsStubs ? (paths.isEmpty ? [sources.stubs] : paths) : [] {
            do {
                let loaded = try StubLoader.loadPath(path, maximumBodyFileBytes: sources.maxBodyFile)
                stubCount += loaded.stubs.count
                fileCount += loaded.files
                stubs += loaded.stubs
            } catch {
                errors += error.errors
            }
        }
        var wireMockNote = ""
        var issueCount = 0
        if !sources.wiremockRoots.isEmpty {
            do {
                let loaded = try WireMockLoader(roots: sources.wiremockRoots).load()
                for issue in loaded.issues { Console.error(issue.description) }
                // A difference is told; a mapping that is not served is a problem.
                issueCount = loaded.issues.filter { $0.effect == .skipped }.count
                let skipped = Set(loaded.issues.filter { $0.effect == .skipped }.map { "\($0.file)#\($0.mappingPath)" }).count
                wireMockNote = "; \(loaded.stubs.count) WireMock mapping(s) served from \(loaded.files) file(s), \(skipped) not served"
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
        var contractNote = ""
        if !openAPISpecs.isEmpty {
            let (problems, note) = try checkContract(stubs)
            for problem in problems { Console.error(problem) }
            issueCount += problems.count
            contractNote = note
        }
        guard errors.isEmpty, issueCount == 0 else {
            for error in errors { Console.error(error.description) }
            Console.error("\(errors.count + issueCount) problem(s) found.")
            throw ExitCode(1)
        }
        let checked = paths.isEmpty ? sources.stubs : paths.joined(separator: ", ")
        Console.out(
            "OK: \(stubCount) stub(s) in \(fileCount) file(s) under \(checked)\(wireMockNote); \(hostMapNote)\(contractNote)."
        )
    }

    /// `--openapi`: each stub's route and answer against the specs, as `file:line: stub: problem [schema pointer]`.
    private func checkContract(_ stubs: [Stub]) throws -> (problems: [String], note: String) {
        var specs: [OpenAPISpec] = []
        for path in openAPISpecs {
            do {
                specs.append(try OpenAPISpecLoader.load(path: path))
            } catch {
                Console.error(error.description)
                throw ExitCode(1)
            }
        }
        let mock = OpenAPIMock(specs: specs, validation: .report)
        var problems: [String] = []
        var checked = 0
        for stub in stubs {
            guard let path = stub.request.url.exactPath ?? stub.request.url.pathTemplate?.description else { continue }
            checked += 1
            let response = stub.response
            // A rendered or faulty answer is not known before a request: only its route and status are checked.
            let body = response.isDynamic || response.fault != nil ? nil : response.body
            let violations = mock.checkStub(
                method: stub.request.method ?? "GET", path: path, status: response.status, headers: response.headers,
                body: body)
            for violation in violations {
                var line = "\(stub.location?.description ?? "admin API"): stub '\(stub.name ?? stub.id)': "
                line +=
                    violation.location + (violation.pointer.isEmpty ? "" : " " + violation.pointer) + ": "
                    + violation.message
                if let schema = violation.schemaPointer { line += " [\(schema)]" }
                problems.append(line)
            }
        }
        return (problems, "; \(checked) stub route(s) checked against \(openAPISpecs.joined(separator: ", "))")
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
