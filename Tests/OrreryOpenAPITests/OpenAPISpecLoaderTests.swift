import Foundation
import OrreryCore
import OrreryOpenAPI
import Testing

/// Real documents from public repositories (Tests/Fixtures/openapi, sources in its SOURCES.md), loaded into
/// operations with compiled schemas, and their schemas applied to bodies and parameters.
@Suite("OpenAPI documents")
struct OpenAPISpecLoaderTests {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/openapi")

    static func load(_ name: String) throws -> OpenAPISpec {
        try OpenAPISpecLoader.load(path: fixtures.appendingPathComponent(name).path)
    }

    static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    /// Violations as `pointer: message`, for short expectations.
    static func summary(_ violations: [SchemaViolation]) -> [String] {
        violations.map { "\($0.instancePointer): \($0.message)" }
    }

    @Test("Each document loads with its version, base path and every operation", arguments: [
        ("petstore-3.0.yaml", "3.0.0", "/v1", 3),
        ("petstore-expanded-3.0.yaml", "3.0.0", "/v2", 4),
        ("uspto-3.0.yaml", "3.0.1", "/ds-api", 3),
        ("swagger-petstore-3.0.yaml", "3.0.4", "/api/v3", 19),
        ("swagger-petstore-3.1.yaml", "3.1.0", "/api/v31", 3),
        ("museum-3.1.yaml", "3.1.0", "/_mock/docs/openapi/museum-api", 8),
        ("webhook-example-3.1.yaml", "3.1.0", "", 0),
        ("petstore-2.0.json", "2.0", "/v1", 3),
        ("uber-2.0.yaml", "2.0", "/v1", 5),
        ("petstore-separate/spec/swagger.json", "2.0", "/api", 4),
    ])
    func loads(file: String, version: String, basePath: String, operations: Int) throws {
        let spec = try Self.load(file)
        #expect(spec.version == version)
        #expect(spec.basePath == basePath)
        #expect(spec.operations.count == operations)
        #expect(spec.unsupportedKeywords.isEmpty)
        // Every schema the document gives an operation is compiled.
        for operation in spec.operations {
            for parameter in operation.parameters { #expect(parameter.schema != nil, "\(operation.method) \(operation.pathTemplate) \(parameter.name)") }
        }
    }

    @Test("Petstore 3.0: parameters with their styles; bodies and responses checked, every violation by pointer")
    func petstore30() throws {
        let spec = try Self.load("petstore-3.0.yaml")
        let list = try #require(spec.operation("GET", "/pets"))
        #expect(list.operationId == "listPets")
        let limit = try #require(list.parameters.first)
        #expect((limit.name, limit.location, limit.style, limit.explode, limit.isRequired) == ("limit", .query, "form", true, false))
        let limitSchema = try #require(limit.schema)
        #expect(limitSchema.isValid(.int(100)))
        #expect(Self.summary(limitSchema.validate(.int(101))) == [": must be at most 100"])
        #expect(Self.summary(limitSchema.validate(try Self.json("2147483648"))).contains(": is not a valid int32"))

        let show = try #require(spec.operation("get", "/pets/{petId}"))
        #expect(show.parameters.map(\.location) == [.path])
        #expect(show.parameters.first?.isRequired == true)

        let ok = try #require(list.responses.first { $0.status == "200" }?.content.first?.schema)
        #expect(ok.isValid(try Self.json(#"[{"id": 1, "name": "Rex"}]"#), direction: .response))
        let violations = ok.validate(try Self.json(#"[{"id": "1"}, {"id": 2, "name": 3}]"#), direction: .response)
        #expect(Set(Self.summary(violations)) == [
            "/0/id: must be integer, not a string", "/0: is missing the required property 'name'",
            "/1/name: must be string, not an integer",
        ])
        #expect(violations.first { $0.instancePointer == "/0" }?.schemaPointer.hasSuffix("petstore-3.0.yaml#/components/schemas/Pet/required") == true)
        #expect(list.responses.map(\.status) == ["200", "default"])
    }

    @Test("Swagger 2.0 across files: a body parameter becomes the request body, csv arrays form without explode")
    func swaggerAcrossFiles() throws {
        let spec = try Self.load("petstore-separate/spec/swagger.json")
        let find = try #require(spec.operation("GET", "/pets"))
        let tags = try #require(find.parameters.first { $0.name == "tags" })
        #expect((tags.location, tags.style, tags.explode) == (.query, "form", false))
        #expect(tags.schema?.isValid(try Self.json(#"["a", "b"]"#)) == true)
        #expect(tags.schema?.isValid(try Self.json("[1]")) == false)

        let add = try #require(spec.operation("POST", "/pets"))
        let body = try #require(add.requestBody)
        #expect(body.isRequired)
        #expect(body.content.map(\.contentType) == ["application/json"])
        let schema = try #require(body.content.first?.schema)
        // NewPet.json is Pet.json (another file) with `name` required again and `description` an int64.
        #expect(schema.isValid(try Self.json(#"{"id": 1, "name": "Rex"}"#), direction: .request))
        #expect(Set(Self.summary(schema.validate(try Self.json(#"{"name": 3, "description": "x"}"#), direction: .request))) == [
            ": is missing the required property 'id'", "/name: must be string, not an integer",
            "/description: must be integer, not a string",
        ])
        let error = try #require(find.responses.first { $0.status == "default" }?.content.first?.schema)
        // A violation names the keyword in the file that holds it.
        #expect(error.validate(.object([])).first?.schemaPointer.hasSuffix("petstore-separate/common/Error.json#/required") == true)
    }

    @Test("Petstore 3.1: $id and $anchor references inside components, and numeric exclusive bounds")
    func petstore31() throws {
        let spec = try Self.load("swagger-petstore-3.1.yaml")
        let update = try #require(spec.operation("PUT", "/pet"))
        let schema = try #require(update.requestBody?.content.first { $0.contentType == "application/json" }?.schema)
        #expect(schema.isValid(try Self.json(#"{"id": 1, "name": "doggie", "photoUrls": []}"#), direction: .request))
        let violations = schema.validate(
            try Self.json(#"{"name": "doggie", "photoUrls": [], "availableInstances": 10, "petDetailsId": "x", "petDetails": {"id": "y"}}"#),
            direction: .request)
        #expect(Set(Self.summary(violations)) == [
            ": is missing the required property 'id'", "/availableInstances: must be less than 10",
            "/petDetailsId: must be integer, not a string", "/petDetails/id: must be integer, not a string",
        ])
    }

    @Test("readOnly properties are refused in requests and not required there; writeOnly the other way")
    func directions() throws {
        let spec = try Self.load("keywords-3.0.yaml")
        let create = try #require(spec.operation("POST", "/items"))
        let request = try #require(create.requestBody?.content.first?.schema)
        let response = try #require(create.responses.first?.content.first?.schema)
        #expect(request.isValid(try Self.json(#"{"name": "Saw", "price": 5, "secret": "12345678"}"#), direction: .request))
        #expect(Self.summary(request.validate(try Self.json(#"{"id": 1, "name": "Saw", "price": 5, "secret": "12345678"}"#), direction: .request))
            == ["/id: is read-only: it belongs in responses, not in a request"])
        #expect(response.isValid(try Self.json(#"{"id": 1, "name": "Saw", "price": 5}"#), direction: .response))
        #expect(Self.summary(response.validate(try Self.json(#"{"id": 1, "name": "Saw", "price": 5, "secret": "12345678"}"#), direction: .response))
            == ["/secret: is write-only: it belongs in requests, not in a response"])
    }

    @Test("A discriminator picks the one schema to check, and names the values it knows")
    func discriminator() throws {
        let pet = try Self.load("keywords-3.0.yaml").schema(at: "/components/schemas/Pet")
        #expect(pet.isValid(try Self.json(#"{"petType": "Cat", "lives": 3}"#)))
        #expect(Self.summary(pet.validate(try Self.json(#"{"petType": "Cat", "lives": 10}"#))) == ["/lives: must be at most 9"])
        #expect(Self.summary(pet.validate(try Self.json(#"{"petType": "Bird"}"#)))
            == [": has 'petType' = 'Bird', which is none of 'Cat', 'Dog'"])
        #expect(Self.summary(pet.validate(try Self.json(#"{"lives": 3}"#)))
            == [": is missing the discriminator property 'petType' (a string)"])
    }

    @Test("What OpenAPIKit refuses in a valid 3.1 document is a warning; the document is still read")
    func openAPIKitWarnings() throws {
        let spec = try Self.load("keywords-3.1.yaml")
        #expect(spec.warnings.contains { $0.contains("OpenAPIKit cannot read the document") && $0.contains("items") })
        let item = try spec.schema(at: "/components/schemas/Item")
        #expect(item.isValid(try Self.json(#"{"name": "pen", "price": 1, "point": [1, 2]}"#)))
        #expect(Self.summary(item.validate(try Self.json(#"{"name": "pen", "price": 1, "point": [1, 2, 3]}"#)))
            == ["/point/2: no value is allowed here"])
    }

    /// Writes a document (and other files) to a fresh folder; the main one's path.
    static func write(_ files: [String: String]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("orrery-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return folder.appendingPathComponent("openapi.yaml").path
    }

    @Test("Keywords the validator does not check are reported where the document uses them")
    func unsupportedKeywords() throws {
        let path = try Self.write(["openapi.yaml": """
            openapi: 3.1.0
            info: {title: T, version: "1"}
            paths:
              /a:
                post:
                  requestBody:
                    content:
                      application/json:
                        schema:
                          type: object
                          unevaluatedProperties: false
                          dependentSchemas: {a: {required: [b]}}
                  responses:
                    '204': {description: none}
            """])
        let spec = try OpenAPISpecLoader.load(path: path)
        #expect(spec.unsupportedKeywords.map(\.keyword).sorted() == ["dependentSchemas", "unevaluatedProperties"])
        #expect(spec.unsupportedKeywords.first?.location.hasSuffix("openapi.yaml#/paths/~1a/post/requestBody/content/application~1json/schema/unevaluatedProperties") == true)
    }

    @Test("References across files go both ways, cycles included")
    func crossFileCycle() throws {
        let path = try Self.write([
            "openapi.yaml": """
                openapi: 3.0.3
                info: {title: T, version: "1"}
                paths:
                  /nodes:
                    get:
                      responses:
                        '200':
                          description: ok
                          content:
                            application/json:
                              schema: {$ref: 'schemas.yaml#/Node'}
                components:
                  schemas:
                    Label: {type: string, maxLength: 3}
                """,
            "schemas.yaml": """
                Node:
                  type: object
                  properties:
                    label: {$ref: 'openapi.yaml#/components/schemas/Label'}
                    next: {$ref: '#/Node'}
                """,
        ])
        let spec = try OpenAPISpecLoader.load(path: path)
        let schema = try #require(spec.operations.first?.responses.first?.content.first?.schema)
        #expect(schema.isValid(try Self.json(#"{"label": "a", "next": {"next": {"label": "abc"}}}"#)))
        #expect(Self.summary(schema.validate(try Self.json(#"{"next": {"next": {"label": "abcd"}}}"#)))
            == ["/next/next/label: must be at most 3 characters long"])
    }

    @Test("Errors name the file and what is wrong", arguments: [
        ("openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: 'missing.yaml#/A'}\n",
         "missing.yaml: cannot read the file"),
        ("openapi: 4.0.0\n", "unsupported openapi version 4.0.0"),
        ("info: {title: T}\n", "not an OpenAPI document"),
        ("openapi: 3.0.3\npaths: [\n", "openapi.yaml: line "),
        ("openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    A: {pattern: '(?<=a)b'}\n", ""),
    ])
    func errors(document: String, expected: String) throws {
        let path = try Self.write(["openapi.yaml": document])
        if expected.isEmpty {
            // A schema no operation uses compiles only when asked for, and its error names its place.
            let spec = try OpenAPISpecLoader.load(path: path)
            #expect(throws: OpenAPILoadError.self) { try spec.schema(at: "/components/schemas/A") }
            do {
                _ = try spec.schema(at: "/components/schemas/A")
            } catch {
                #expect(error.message.contains("#/components/schemas/A/pattern"))
            }
            return
        }
        #expect {
            try OpenAPISpecLoader.load(path: path)
        } throws: { error in
            String(describing: error).contains(expected)
        }
    }
}
