import Foundation
import OrreryCore
import Testing

/// Spec answers beside stubs, `--validate-against` and the drift report, `validate --openapi` and
/// `import openapi`, through the real binary.
@Suite("OpenAPI: stubs first, drift report, validate and import")
struct OpenAPIContractTests {
    static let petstore = OrreryProcess.packageRoot.appendingPathComponent("Tests/Fixtures/openapi/petstore-3.0.yaml")
        .path

    static let stubs = """
        - name: my pet
          request: { method: GET, path: "/v1/pets/1" }
          response:
            status: 200
            headers: { Content-Type: application/json }
            body: '{"id": 1, "name": "Rex"}'
        - name: wrong pet
          request: { method: GET, path: "/v1/pets/2" }
          response:
            status: 200
            headers: { Content-Type: application/json }
            body: '{"id": "two"}'
        - name: teapot
          request: { method: GET, path: "/v1/pets/3" }
          response: { status: 418 }
        - name: elsewhere
          request: { method: GET, path: "/health" }
          response: { status: 200, body: ok }
        """

    static func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    @Test("Stubs win over the spec; spec answers name their operation in the journal; Prefer picks the answer")
    func stubsFirst() throws {
        let scratch = try Scratch(["stubs/pets.yaml": Self.stubs])
        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--offline", "--openapi", Self.petstore,
        ])
        let base = try orrery.waitUntilListening()
        #expect(
            orrery.standardError.contains("petstore-3.0.yaml: Swagger Petstore (OpenAPI 3.0.0), 3 operations under /v1")
        )
        #expect(try Curl.run(["\(base)/v1/pets/1"]) == #"{"id": 1, "name": "Rex"}"#)
        #expect(try Curl.run(["\(base)/v1/pets/9"]) == #"{"id":0,"name":"string","tag":"string"}"#)
        #expect(
            try Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "-H", "Prefer: code=500", "\(base)/v1/pets/9"])
                == "500")
        let dynamic = try Curl.run(["-H", "Prefer: dynamic=true", "\(base)/v1/pets/9"])
        #expect(
            dynamic == (try Curl.run(["-H", "Prefer: dynamic=true", "\(base)/v1/pets/9"])),
            "the same request, the same body")
        let journal = try Self.json(Curl.run(["\(base)/__admin/requests?limit=10"]))
        guard case .array(let entries)? = journal["requests"] else { throw CancellationError() }
        let spec = entries.first { $0["request"]?["path"]?.stringValue == "/v1/pets/9" }
        #expect(spec?["openapi"]?["operationId"]?.stringValue == "showPetById")
        #expect(spec?["openapi"]?["source"]?.stringValue == Self.petstore)
        let stub = entries.first { $0["request"]?["path"]?.stringValue == "/v1/pets/1" }
        #expect(stub?["stub"]?["name"]?.stringValue == "my pet")
        #expect(orrery.stop() == 0)
    }

    @Test("report mode answers a broken request and journals its violations")
    func reportMode() throws {
        let scratch = try Scratch([:])
        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--offline", "--openapi", Self.petstore,
            "--openapi-validate", "report",
        ])
        let base = try orrery.waitUntilListening()
        #expect(try Curl.run(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/v1/pets?limit=500"]) == "200")
        let journal = try Self.json(Curl.run(["\(base)/__admin/requests?limit=1"]))
        guard case .array(let entries)? = journal["requests"], let entry = entries.first else {
            throw CancellationError()
        }
        guard case .array(let violations)? = entry["contractViolations"] else {
            Issue.record("no contractViolations in \(entry.encoded)")
            return
        }
        #expect(violations.first?["location"]?.stringValue == "query")
        #expect(violations.first?["pointer"]?.stringValue == "/limit")
        #expect(orrery.stop() == 0)
    }

    @Test("--validate-against: stubbed exchanges checked, answers unchanged, GET /__admin/contract reports the drift")
    func driftReport() throws {
        let scratch = try Scratch(["stubs/pets.yaml": Self.stubs])
        let orrery = try OrreryProcess([
            "serve", "--port", "0", "--stubs", scratch.path("stubs"), "--offline", "--validate-against", Self.petstore,
        ])
        let base = try orrery.waitUntilListening()
        #expect(try Curl.run(["\(base)/v1/pets/2"]) == #"{"id": "two"}"#)
        _ = try Curl.run(["\(base)/v1/pets/1"])
        _ = try Curl.run(["\(base)/v1/pets/3"])
        _ = try Curl.run(["\(base)/health"])
        let journal = try Self.json(Curl.run(["\(base)/__admin/requests?limit=10"]))
        guard case .array(let entries)? = journal["requests"] else { throw CancellationError() }
        let wrong = entries.first { $0["request"]?["path"]?.stringValue == "/v1/pets/2" }
        guard case .array(let violations)? = wrong?["contractViolations"] else {
            Issue.record("no contractViolations")
            return
        }
        #expect(
            violations.contains {
                $0["location"]?.stringValue == "response.body" && $0["pointer"]?.stringValue == "/id"
            })
        let good = entries.first { $0["request"]?["path"]?.stringValue == "/v1/pets/1" }
        #expect(good?["contractViolations"] == .array([]))

        let report = try Self.json(Curl.run(["\(base)/__admin/contract"]))
        guard case .array(let operations)? = report["operations"] else { throw CancellationError() }
        let show = operations.first { $0["operationId"]?.stringValue == "showPetById" }
        #expect(show?["calls"] == .int(3))
        guard case .array(let drift)? = show?["violations"] else { throw CancellationError() }
        #expect(drift.contains { $0["pointer"]?.stringValue == "/id" && $0["count"] == .int(1) })
        // petstore's showPetById documents `default`: every status is documented.
        #expect(show?["undocumentedStatuses"] == .array([]))
        #expect(report["neverCalled"] == .array([.string("listPets"), .string("createPets")]))
        guard case .array(let paths)? = report["undocumentedPaths"] else { throw CancellationError() }
        #expect(paths.first?["path"]?.stringValue == "/health")
        #expect(orrery.stop() == 0)
    }

    @Test(
        "validate --openapi names file, line and schema pointer; import openapi writes stubs that serve the spec's answers"
    )
    func validateAndImport() throws {
        let scratch = try Scratch(["stubs/pets.yaml": Self.stubs])
        let validated = try OrreryProcess.run([
            "validate", "--stubs", scratch.path("stubs"), "--openapi", Self.petstore,
        ])
        #expect(validated.status == 1)
        #expect(validated.errors.contains("pets.yaml:7: stub 'wrong pet': body /id: must be integer, not a string ["))
        #expect(validated.errors.contains("#/components/schemas/Pet/properties/id/type]"))
        #expect(
            validated.errors.contains(
                "pets.yaml:16: stub 'elsewhere': path: no operation of the spec has the path /health"))

        let imported = try OrreryProcess.run(["import", "openapi", Self.petstore, "--out", scratch.path("imported")])
        #expect(imported.status == 0, "\(imported.errors)")
        #expect(imported.output.contains("Imported 3 of 3 operations into 1 file"))
        let clean = try OrreryProcess.run(["validate", "--stubs", scratch.path("imported"), "--openapi", Self.petstore])
        #expect(clean.status == 0, "\(clean.errors)")
        let orrery = try OrreryProcess(["serve", "--port", "0", "--stubs", scratch.path("imported"), "--offline"])
        let base = try orrery.waitUntilListening()
        #expect(try Curl.run(["\(base)/v1/pets/5"]) == #"{"id":0,"name":"string","tag":"string"}"#)
        #expect(orrery.stop() == 0)

        // The response headers a spec declares are written with the values the spec's answer sends.
        let headersSpec = OrreryProcess.packageRoot.appendingPathComponent("Tests/Fixtures/openapi/headers-3.0.yaml")
            .path
        let withHeaders = try OrreryProcess.run(["import", "openapi", headersSpec, "--out", scratch.path("headers")])
        #expect(withHeaders.status == 0, "\(withHeaders.errors)")
        let fromSpec = try OrreryProcess(["serve", "--port", "0", "--openapi", headersSpec, "--offline"])
        let specHead = try Curl.run(["-s", "-D", "-", "-o", "/dev/null", "\(try fromSpec.waitUntilListening())/items"])
        #expect(fromSpec.stop() == 0)
        let fromStubs = try OrreryProcess(["serve", "--port", "0", "--stubs", scratch.path("headers"), "--offline"])
        let stubHead = try Curl.run(["-s", "-D", "-", "-o", "/dev/null", "\(try fromStubs.waitUntilListening())/items"])
        #expect(fromStubs.stop() == 0)
        for name in ["X-Rate-Limit", "X-Request-Id", "X-Tags", "X-Next", "Content-Type"] {
            let line = { (head: String) in
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }.map(
                    String.init)
            }
            #expect(line(specHead) != nil && line(stubHead) == line(specHead), "\(name): \(specHead) / \(stubHead)")
        }
    }
}
