import Foundation
import OrreryCore
import Testing

/// The `graphql` body operator end to end: a real daemon, and GraphQL sent as Apollo clients send it, through
/// URLSession, curl and Python's http.client: a JSON POST, `application/graphql`, a GET with the operation in the URL,
/// and batches.
@Suite("GraphQL over HTTP")
struct GraphQLLiveTests {
    static let stubs = """
        base:
          path: /graphql
        stubs:
          - name: user by id
            request:
              method: POST
              body:
                graphql:
                  operationName: GetUser
                  variables: { id: { matches: "^u-[0-9]+$" } }
            response:
              template: true
              json: { data: { user: { id: "{{graphql.variables.id}}", via: "{{graphql.operationName}}" } } }
          - name: user list
            request:
              method: ANY
              body:
                graphql:
                  query: |
                    # the order of fields, commas and comments do not matter
                    query ListUsers($first: Int = 10) { users(first: $first) { id, name } }
            response:
              json: { data: { users: [{ id: u-1, name: Ada }] } }
          - name: rename
            request:
              method: POST
              body:
                graphql:
                  operationName: Rename
                  variables: { id: u-1, input: { name: Grace, tags: [a, b] } }
            response:
              status: 201
              json: { data: { rename: { ok: true } } }
        """

    static let listUsers = "query ListUsers($first: Int = 10) {\n  users(first: $first) {\n    name\n    id\n  }\n}"

    static func body(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object)
    }

    @Test("Apollo-style JSON POSTs through URLSession: the operation, its variables, a template reading them")
    func jsonPost() async throws {
        try await LiveServer.with(files: ["stubs/graphql.yaml": Self.stubs]) { (server: LiveServer) async throws in
            let headers = ["Content-Type": "application/json", "X-APOLLO-OPERATION-NAME": "GetUser"]
            let user = try await server.request(
                "POST", "/graphql", headers: headers,
                body: Self.body([
                    "operationName": "GetUser", "query": "query GetUser($id: ID!) { user(id: $id) { id } }",
                    "variables": ["id": "u-42"],
                ]))
            #expect(user.status == 200)
            #expect(user.text == #"{"data":{"user":{"id":"u-42","via":"GetUser"}}}"#)
            let list = try await server.request(
                "POST", "/graphql", headers: ["Content-Type": "application/json"],
                body: Self.body(["query": Self.listUsers, "variables": [String: Any]()]))
            #expect(list.status == 200 && list.text.contains("Ada"), "\(list.text)")
            let rename = try await server.request(
                "POST", "/graphql", headers: ["Content-Type": "application/json"],
                body: Self.body([
                    "operationName": "Rename",
                    "query": "mutation Rename($id: ID!, $input: In!) { rename(id: $id, input: $input) { ok } }",
                    "variables": ["input": ["tags": ["a", "b"], "name": "Grace"], "id": "u-1"],
                ]))
            #expect(rename.status == 201)
            let graphQLBody = try await server.request(
                "POST", "/graphql", headers: ["Content-Type": "application/graphql"], body: Data(Self.listUsers.utf8))
            #expect(graphQLBody.text.contains("Ada"), "\(graphQLBody.text)")
        }
    }

    @Test("A GET with query, variables and operationName in the URL, through curl")
    func getThroughCurl() async throws {
        guard ClientProcess.isInstalled("curl") else { return }
        try await LiveServer.with(files: ["stubs/graphql.yaml": Self.stubs]) { (server: LiveServer) async throws in
            let output = try ClientProcess.run(
                "curl",
                [
                    "-sS", "--max-time", "10", "--get", "--data-urlencode", "query=\(Self.listUsers)",
                    "--data-urlencode", "variables={}", "--data-urlencode", "operationName=ListUsers",
                    "-w", "\n%{http_code}", "\(server.baseURL)/graphql",
                ])
            let text = String(decoding: output, as: UTF8.self)
            #expect(text.hasSuffix("\n200") && text.contains("Ada"), "\(text)")
            let miss = try ClientProcess.run(
                "curl",
                [
                    "-sS", "--max-time", "10", "--get", "--data-urlencode", "query=query ListUsers { users { id } }",
                    "-w", "\n%{http_code}", "\(server.baseURL)/graphql",
                ])
            #expect(String(decoding: miss, as: UTF8.self).hasSuffix("\n404"))
        }
    }

    @Test("A batch through Python: each operation answered by its stub, the answers in order")
    func batch() async throws {
        try await LiveServer.with(files: ["stubs/graphql.yaml": Self.stubs]) { (server: LiveServer) async throws in
            let batch = try Self.body([
                "batch": [
                    [
                        "operationName": "GetUser", "query": "query GetUser($id: ID!) { user(id: $id) { id } }",
                        "variables": ["id": "u-1"],
                    ],
                    ["query": Self.listUsers],
                    [
                        "operationName": "GetUser", "query": "query GetUser($id: ID!) { user(id: $id) { id } }",
                        "variables": ["id": "u-2"],
                    ],
                ]
            ])
            let list = try #require(try JSONSerialization.jsonObject(with: batch) as? [String: Any])["batch"]
            let listBody = try JSONSerialization.data(withJSONObject: try #require(list))
            let answers = try PythonClient.send(
                port: server.port,
                [
                    PythonClient.Request(
                        "POST", "/graphql", headers: [("Content-Type", "application/json")], body: Array(listBody))
                ])
            let answer = try #require(answers.first)
            #expect(answer.status == 200)
            #expect(answer.values("Content-Type") == ["application/json"])
            let items = try #require(try JSONSerialization.jsonObject(with: Data(answer.bytes)) as? [[String: Any]])
            #expect(items.count == 3)
            let ids = items.map { (($0["data"] as? [String: Any])?["user"] as? [String: Any])?["id"] as? String }
            #expect(ids == ["u-1", nil, "u-2"])
            #expect(((items[1]["data"] as? [String: Any])?["users"] as? [Any])?.count == 1)

            // One operation no stub answers: a 404 that explains that operation.
            let missing = try JSONSerialization.data(withJSONObject: [
                ["query": Self.listUsers], ["operationName": "GetUser", "variables": ["id": "x-1"]],
            ])
            let miss = try await server.request(
                "POST", "/graphql", headers: ["Content-Type": "application/json"], body: missing)
            #expect(miss.status == 404)
            let closest = try #require(try miss.json()["closestStubs"] as? [[String: Any]])
            let differences = closest.flatMap { $0["differences"] as? [[String: Any]] ?? [] }
            let expected = differences.compactMap { $0["expected"] as? String }
            #expect(expected.contains("GraphQL variables.id matching /^u-[0-9]+$/"), "\(expected)")

            // The journal names the operations of each exchange.
            let journal = try await server.request("/__admin/requests").json()
            let names = (journal["requests"] as? [[String: Any]] ?? []).compactMap {
                ($0["request"] as? [String: Any])?["graphqlOperation"] as? String
            }
            #expect(names == ["ListUsers, GetUser", "GetUser, ListUsers, GetUser"], "\(names)")
        }
    }

    @Test("A near miss names the part of the operator that differed; the journal names the operation")
    func nearMiss() async throws {
        try await LiveServer.with(files: ["stubs/graphql.yaml": Self.stubs]) { (server: LiveServer) async throws in
            let result = try await server.request(
                "POST", "/graphql", headers: ["Content-Type": "application/json"],
                body: Self.body([
                    "operationName": "Rename", "query": "mutation Rename($id: ID!) { rename(id: $id) { ok } }",
                    "variables": ["id": "u-1", "input": ["name": "Ada", "tags": ["a", "b"]]],
                ]))
            #expect(result.status == 404)
            let json = try result.json()
            let message = json["message"] as? String ?? json["failureReason"] as? String ?? ""
            #expect(message.contains("GraphQL variables.input"), "\(json)")
            let journal = try await server.request("/__admin/requests").json()
            let entry = try #require((journal["requests"] as? [[String: Any]])?.first)
            #expect((entry["request"] as? [String: Any])?["graphqlOperation"] as? String == "Rename")
        }
    }

    @Test("The example of docs/graphql.md answers as the guide says")
    func guideExample() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let guide = try String(contentsOf: root.appendingPathComponent("docs/graphql.md"), encoding: .utf8)
        let start = try #require(guide.range(of: "```yaml\n"))
        let end = try #require(guide.range(of: "```", range: start.upperBound..<guide.endIndex))
        let example = String(guide[start.upperBound..<end.lowerBound])
        try await LiveServer.with(files: ["stubs/graphql.yaml": example]) { (server: LiveServer) async throws in
            let user = try await server.request(
                "POST", "/graphql", headers: ["Content-Type": "application/json"],
                body: Self.body([
                    "operationName": "GetUser", "query": "query GetUser($id: ID!) { user(id: $id) { id name } }",
                    "variables": ["id": "u-7"],
                ]))
            #expect(user.text == #"{"data":{"user":{"id":"u-7","name":"Ada"}}}"#)
            let query = try #require(Self.listUsers.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let list = try await server.request("/graphql?query=\(query)")
            #expect(list.status == 200 && list.text.contains("Ada"), "\(list.text)")
        }
    }
}
