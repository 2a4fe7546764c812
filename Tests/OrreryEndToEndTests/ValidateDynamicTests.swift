import Foundation
import Testing

@Suite("orrery validate: dynamic response keys")
struct ValidateDynamicTests {
    @Test("templates, faults, delays, pagination and matchers are checked with file and line")
    func reportsProblems() throws {
        let scratch = try Scratch([
            "stubs/templates.yaml": """
                - request: { path: "/users/{id}" }
                  response:
                    template: true
                    json: { id: "{{params.idd}}", path: "{{reqest.path}}" }
                - request: { path: /flaky }
                  response: { fault: connectionRest }
                """,
            "stubs/more.json": """
                {
                  "request": { "path": "/a", "body": { "jsonPath": "$..x" } },
                  "response": {
                    "delay": { "uniform": [300, 100] },
                    "paginate": { "items": [], "perPage": 2 },
                    "body": "x"
                  }
                }
                """,
            "stubs/good.yaml": """
                - request: { path: "/orgs/{org}/repos" }
                  response:
                    template: true
                    headers: { X-Org: "{{params.org}}" }
                    body: "{{#request.json.items}}{{name}}{{/request.json.items}}"
                - request: { path: /search }
                  response: { paginate: { items: [a, b], collectionKeyPath: items }, delay: { lognormal: { median: 50, sigma: 0.3 } } }
                """,
        ])
        let result = try OrreryProcess.run(["validate", "--stubs", scratch.path("stubs")])
        #expect(result.status == 1)
        #expect(result.errors.contains("templates.yaml:4: template: unknown path parameter 'params.idd'; did you mean 'params.id'? (the path has {id})"))
        #expect(result.errors.contains("templates.yaml:6: unknown fault 'connectionRest'; did you mean 'connectionReset'?"))
        // Recursive descent is a JSONPath Orrery reads.
        #expect(!result.errors.contains("more.json:2:"))
        #expect(result.errors.contains("more.json:4: 'uniform' [300, 100]: the minimum must not be above the maximum"))
        #expect(result.errors.contains("more.json:6: 'paginate' makes the body from its items; leave out 'body'"))
        #expect(!result.errors.contains("good.yaml"))
    }
}
