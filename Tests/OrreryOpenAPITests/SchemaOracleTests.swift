import Foundation
import OrreryCore
import OrreryOpenAPI
import Testing

/// Orrery's validator and a second one, openapi-schema-validator (Python, through Tests/Fixtures/schema_oracle.py),
/// judge the same instances against the same schemas of real and keyword-covering documents
/// (Tests/Fixtures/openapi/oracle-cases.json); every verdict must agree, bar the cases marked `oracleDiffers`
/// (with the reason, checked to still differ).
@Suite("Schema verdicts beside openapi-schema-validator")
struct SchemaOracleTests {
    static let fixtures = OpenAPISpecLoaderTests.fixtures

    struct Group {
        var spec: String
        var pointer: String
        var direction: SchemaDirection?
        var instances: [JSONValue]
        var differs: [Int: String]
    }

    static func groups() throws -> [Group] {
        let data = try #require(FileManager.default.contents(atPath: fixtures.appendingPathComponent("oracle-cases.json").path))
        guard case .array(let items) = try JSONValue.parse(data) else { return [] }
        return items.compactMap { item in
            guard let spec = item["spec"]?.stringValue, let pointer = item["pointer"]?.stringValue,
                case .array(let instances)? = item["instances"]
            else { return nil }
            let direction: SchemaDirection? = switch item["direction"]?.stringValue {
            case "request": .request
            case "response": .response
            default: nil
            }
            var differs: [Int: String] = [:]
            for (index, reason) in item["oracleDiffers"]?.objectMembers ?? [] {
                if let index = Int(index), let reason = reason.stringValue { differs[index] = reason }
            }
            return Group(spec: spec, pointer: pointer, direction: direction, instances: instances, differs: differs)
        }
    }

    /// Runs the Python oracle over one document's cases; its verdicts in order.
    static func oracle(document: JSONValue, dialect: JSONSchemaDialect, cases: [(String, SchemaDirection?, JSONValue)]) throws -> [Bool] {
        let request = JSONValue.object([
            ("dialect", .string(dialect == .openAPI30 ? "3.0" : "3.1")),
            ("document", document),
            ("cases", .array(cases.map { pointer, direction, instance in
                .object([
                    ("pointer", .string(pointer)),
                    ("direction", direction == .request ? .string("request") : direction == .response ? .string("response") : .null),
                    ("instance", instance),
                ])
            })),
        ])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", fixtures.deletingLastPathComponent().appendingPathComponent("schema_oracle.py").path]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(request.encodedBytes))
        try input.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "schema_oracle.py: \(String(decoding: errorData, as: UTF8.self))")
        guard case .array(let verdicts) = try JSONValue.parse(outputData) else { return [] }
        return verdicts.map { $0 == .bool(true) }
    }

    @Test("Every instance gets the same verdict from both validators")
    func sameVerdicts() throws {
        let groups = try Self.groups()
        var compared = 0
        var disagreements: [String] = []
        for spec in Set(groups.map(\.spec)).sorted() {
            let loaded = try OpenAPISpecLoader.load(path: Self.fixtures.appendingPathComponent(spec).path)
            let mine = groups.filter { $0.spec == spec }
            var cases: [(String, SchemaDirection?, JSONValue)] = []
            for group in mine { for instance in group.instances { cases.append((group.pointer, group.direction, instance)) } }
            let theirs = try Self.oracle(document: loaded.document, dialect: loaded.dialect, cases: cases)
            try #require(theirs.count == cases.count)
            var index = 0
            for group in mine {
                let validator = try loaded.schema(at: group.pointer)
                for (position, instance) in group.instances.enumerated() {
                    defer { index += 1 }
                    let violations = validator.validate(instance, direction: group.direction)
                    let isValid = violations.isEmpty
                    compared += 1
                    let label = "\(spec)#\(group.pointer) [\(position)] \(instance.encoded.prefix(120))"
                    if let reason = group.differs[position] {
                        if isValid == theirs[index] { disagreements.append("\(label): marked as differing (\(reason)) but both agree") }
                    } else if isValid != theirs[index] {
                        disagreements.append("\(label): Orrery says \(isValid ? "valid" : "invalid \(violations)"), openapi-schema-validator \(theirs[index] ? "valid" : "invalid")")
                    }
                }
            }
        }
        #expect(compared > 100)
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(compared) verdicts differ:\n\(disagreements.joined(separator: "\n"))")
    }
}
