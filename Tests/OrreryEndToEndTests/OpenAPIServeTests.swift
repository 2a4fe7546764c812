import Foundation
import OrreryCore
import Testing

@testable import OrreryOpenAPI

/// `serve --openapi` over real specs: for each operation a valid and a broken request, sent by Python to a running
/// daemon, the answers and the problem details checked, and each verdict compared with openapi-core's.
@Suite("OpenAPI: serve from a spec, validate requests")
struct OpenAPIServeTests {
    static let fixtures = OrreryProcess.packageRoot.appendingPathComponent("Tests/Fixtures")

    struct Outcome: Decodable {
        var status: Int
        var contentType: String
        var body: String
        var oracleValid: Bool?
        var oracleError: String?
    }

    /// Runs a Python script; its standard output.
    static func python(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    /// Verdicts openapi-core gives differently, and why: `label` to reason.
    static let knownDisagreements: [String: String] = [
        "GET /pet/findByStatus (broken)": "openapi-core checks no oauth2 credential (it has no provider for oauth2)",
        "GET /pet/findByTags (broken)": "the same",
    ]

    @Test(
        "Every operation: a valid request is answered from the spec, a broken one gets its problem; openapi-core agrees",
        arguments: [
            "petstore-3.0.yaml", "petstore-expanded-3.0.yaml", "uspto-3.0.yaml", "swagger-petstore-3.0.yaml",
            "swagger-petstore-3.1.yaml", "museum-3.1.yaml", "petstore-2.0.json", "uber-2.0.yaml",
            "petstore-separate/spec/swagger.json",
        ])
    func operations(file: String) throws {
        let path = Self.fixtures.appendingPathComponent("openapi/" + file).path
        let spec = try OpenAPISpecLoader.load(path: path)
        let cases = SpecRequests(spec).all
        #expect(
            cases.count >= spec.operations.count,
            "\(file): \(cases.count) requests for \(spec.operations.count) operations")
        let scratch = try Scratch([:])
        let casesPath = scratch.path("cases.json")
        try JSONEncoder().encode(cases).write(to: URL(fileURLWithPath: casesPath))
        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--offline", "--openapi", path,
        ])
        let base = try orrery.waitUntilListening() + spec.basePath
        let output = try Self.python([
            Self.fixtures.appendingPathComponent("openapi_contract_oracle.py").path, path, base, casesPath,
        ])
        let outcomes = try JSONDecoder().decode([Outcome].self, from: output)
        try #require(outcomes.count == cases.count)
        var broken = 0
        for (request, outcome) in zip(cases, outcomes) {
            let isProblem = outcome.contentType.hasPrefix("application/problem+json")
            if let expected = request.expectedStatus {
                broken += 1
                #expect(outcome.status == expected, "\(file) \(request.label): \(outcome.status) \(outcome.body)")
                #expect(isProblem, "\(file) \(request.label)")
                let problem = try JSONValue.parse(outcome.body)
                #expect(problem["status"] == .int(expected))
                #expect(problem["type"]?.stringValue != nil && problem["title"]?.stringValue != nil)
                var errors: [JSONValue] = []
                if case .array(let list)? = problem["errors"] { errors = list }
                let listed = errors.contains { (error: JSONValue) in
                    error["location"]?.stringValue == request.expectedLocation
                        && error["pointer"]?.stringValue == request.expectedPointer
                }
                #expect(listed, "\(file) \(request.label): \(outcome.body)")
                if expected == 401 { #expect(problem["detail"] != nil) }
            } else {
                #expect(!isProblem, "\(file) \(request.label): \(outcome.status) \(outcome.body)")
            }
            if let oracle = outcome.oracleValid, Self.knownDisagreements[request.label] == nil {
                #expect(
                    oracle == !isProblem,
                    "\(file) \(request.label): Orrery \(isProblem ? "refuses" : "accepts"), openapi-core \(oracle ? "accepts" : "refuses"): \(outcome.oracleError ?? "")"
                )
            }
        }
        #expect(broken > 0, "\(file): no broken request")
        #expect(orrery.stop() == 0)
    }
}
