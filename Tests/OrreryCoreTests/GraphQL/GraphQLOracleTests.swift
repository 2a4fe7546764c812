import Foundation
import Testing

@testable import OrreryCore

/// Orrery's GraphQL parser beside graphql-core's (Python, through Tests/Fixtures/graphql_oracle.py): documents written
/// against public APIs (Tests/Fixtures/graphql, see its SOURCES.md), each paired with variants of itself, reformatted,
/// reordered, changed in one place or broken. Both must agree on whether each text parses and on whether the two are
/// the same operation.
@Suite("GraphQL: the same operation as graphql-core has it")
struct GraphQLOracleTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The oracle's pairs and verdicts, made from a fixed seed.
    static func pairs(seed: Int) throws -> [JSONValue] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", fixtures.appendingPathComponent("graphql_oracle.py").path, String(seed)]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "graphql_oracle.py: \(String(decoding: errorData, as: UTF8.self))")
        guard case .array(let pairs) = try JSONValue.parse(outputData) else { return [] }
        return pairs
    }

    static func canonical(_ text: String) -> String? {
        try? GraphQLDocument(parsing: text).canonical
    }

    @Test("Every pair gets the same verdicts from both parsers", arguments: [27, 4242])
    func sameVerdicts(seed: Int) throws {
        let pairs = try Self.pairs(seed: seed)
        #expect(pairs.count > 300)
        var disagreements: [String] = []
        var kinds: [String: Int] = [:]
        for pair in pairs {
            guard let first = pair["a"]?.stringValue, let second = pair["b"]?.stringValue else { continue }
            let (a, b) = (Self.canonical(first), Self.canonical(second))
            let ours = (a != nil, b != nil, a != nil && a == b)
            let theirs = (pair["aParses"] == .bool(true), pair["bParses"] == .bool(true), pair["same"] == .bool(true))
            kinds[pair["kind"]?.stringValue ?? "", default: 0] += 1
            if ours != theirs {
                let file = pair["file"]?.stringValue ?? ""
                disagreements.append(
                    "\(file) (\(pair["kind"]?.stringValue ?? "")): ours \(ours), graphql-core \(theirs)\n\(second)")
            }
        }
        #expect(
            disagreements.isEmpty,
            "\(disagreements.count) disagreements:\n\(disagreements.prefix(5).joined(separator: "\n---\n"))")
        // Each kind of variant was judged, so an empty list of disagreements means something.
        #expect(
            ["itself", "reformatted", "shuffled", "changed", "broken"].allSatisfy { (kinds[$0] ?? 0) > 0 }, "\(kinds)")
    }

    @Test("The canonical form of every document parses back to itself")
    func canonicalIsStable() throws {
        let folder = Self.fixtures.appendingPathComponent("graphql/queries")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".graphql") }
        #expect(files.count > 10)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            guard let canonical = Self.canonical(text) else { continue }
            #expect(Self.canonical(canonical) == canonical, "\(file)")
        }
    }
}
