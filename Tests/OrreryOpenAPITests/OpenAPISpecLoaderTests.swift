import Foundation
import OrreryCore
import OrreryOpenAPI
import Testing

/// Real documents from public repositories (Tests/Fixtures/openapi, sources in its SOURCES.md), loaded.
@Suite("OpenAPI documents")
struct OpenAPISpecLoaderTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/openapi")

    static func load(_ name: String) throws -> OpenAPISpec {
        try OpenAPISpecLoader.load(path: fixtures.appendingPathComponent(name).path)
    }

    @Test("Summary", arguments: [
        "petstore-3.0.yaml", "petstore-expanded-3.0.yaml", "uspto-3.0.yaml", "swagger-petstore-3.0.yaml",
        "swagger-petstore-3.1.yaml", "museum-3.1.yaml", "webhook-example-3.1.yaml", "petstore-2.0.json", "uber-2.0.yaml",
        "petstore-separate/spec/swagger.json",
    ])
    func summary(_ name: String) throws {
        let spec = try Self.load(name)
        print("SUMMARY \(name) \(spec.version) '\(spec.title)' base=\(spec.basePath) ops=\(spec.operations.count) schemas=\(spec.operations.reduce(0) { $0 + $1.parameters.count + ($1.requestBody?.content.count ?? 0) + $1.responses.reduce(0) { $0 + $1.content.count } }) unsupported=\(spec.unsupportedKeywords)")
        for op in spec.operations {
            print("  \(op.method) \(op.pathTemplate) \(op.operationId ?? "-") params=\(op.parameters.map { "\($0.name):\($0.location.rawValue):\($0.style):\($0.explode):\($0.schema != nil)" }) body=\(op.requestBody.map { $0.content.map { "\($0.contentType):\($0.schema != nil)" } } ?? []) responses=\(op.responses.map { "\($0.status):\($0.content.map { "\($0.contentType):\($0.schema != nil)" })" })")
        }
    }
}
