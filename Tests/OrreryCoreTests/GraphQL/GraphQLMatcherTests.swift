import Foundation
import Testing

@testable import OrreryCore

@Suite("GraphQL: the graphql body operator")
struct GraphQLMatcherTests {
    static let query = "query GetUser($id: ID!) { user(id: $id) { id name } }"

    func post(_ json: String, contentType: String = "application/json") -> HTTPRequest {
        .make(method: "POST", target: "/graphql", headers: ["Content-Type": contentType], body: json)
    }

    func pattern(_ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> RequestPattern {
        try StubText.decodeOne(
            "request:\n  path: /graphql\n  body:\n    graphql:\n\(yaml)\nresponse: {}", sourceLocation: sourceLocation
        ).request
    }

    @Test("operationName, query and variables; each alone is enough")
    func matching() throws {
        let request = post(
            #"{"operationName":"GetUser","query":"query GetUser($id: ID!) {user(id: $id) {name, id}}","variables":{"id":"u-42"}}"#
        )
        #expect(try pattern("      operationName: GetUser").matches(request))
        #expect(try !pattern("      operationName: GetUsers").matches(request))
        #expect(
            try pattern(
                "      query: |\n        query GetUser($id: ID!) {\n          user(id: $id) { id name }\n        }"
            ).matches(request))
        #expect(try !pattern("      query: 'query GetUser($id: ID!) { user(id: $id) { id } }'").matches(request))
        #expect(try pattern("      operationName: GetUser\n      variables: {id: u-42}").matches(request))
        #expect(try !pattern("      operationName: GetUser\n      variables: {id: u-43}").matches(request))
        #expect(try pattern("      operationName: GetUser\n      variables: {id: {matches: '^u-'}}").matches(request))
        #expect(try !pattern("      operationName: GetUser\n      variables: {id: {matches: '^x-'}}").matches(request))
        // The request's variables are all of the stub's: one more is a difference.
        #expect(try !pattern("      operationName: GetUser\n      variables: {}").matches(request))
        #expect(
            try pattern("      operationName: GetUser\n      variables: {id: u-42, after: {absent: true}}").matches(
                request))
    }

    @Test("Variables compare as JSON: key order free, numbers by value, nested objects whole")
    func variablesAsJSON() throws {
        let request = post(
            #"{"query":"mutation Save($input: In!) { save(input: $input) { ok } }","variables":{"input":{"b":[1,2],"a":1.0}}}"#
        )
        #expect(try pattern("      operationName: Save\n      variables: {input: {a: 1, b: [1, 2]}}").matches(request))
        #expect(try !pattern("      operationName: Save\n      variables: {input: {a: 1, b: [2, 1]}}").matches(request))
        // A nested mapping with a key that is no operator is a value, not an operator.
        #expect(try !pattern("      operationName: Save\n      variables: {input: {a: 1}}").matches(request))
    }

    @Test("The ways a client sends an operation: JSON POST, application/graphql, GET")
    func transports() throws {
        let matcher = try pattern(
            "      operationName: GetUser\n      query: \(Self.query.debugDescription)\n      variables: {id: '7'}")
        #expect(
            matcher.matches(
                post(#"{"query":"query GetUser($id: ID!) { user(id: $id) { name id } }","variables":{"id":"7"}}"#)))
        let graphQLBody = HTTPRequest.make(
            method: "POST", target: "/graphql?variables=%7B%22id%22%3A%227%22%7D",
            headers: ["Content-Type": "application/graphql; charset=utf-8"], body: Self.query)
        #expect(matcher.matches(graphQLBody))
        let encoded = try #require(Self.query.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let get = HTTPRequest.make(
            target: "/graphql?operationName=GetUser&query=\(encoded)&variables=%7B%22id%22%3A%227%22%7D")
        #expect(matcher.matches(get))
        #expect(!matcher.matches(.make(target: "/graphql?query=\(encoded)&variables=%7B%22id%22%3A8%7D")))
        let unparsed = try pattern("      operationName: GetUser\n      variables: {}")
        #expect(unparsed.matches(.make(target: "/graphql?operationName=GetUser&variables=%7B%7D")))
        #expect(!unparsed.matches(.make(target: "/graphql?operationName=GetUser&variables=%7Bnot-json")))
        // A body that is not GraphQL, and a batch, are not one operation.
        #expect(!matcher.matches(post(#"{"id":"7"}"#)))
        #expect(
            !matcher.matches(
                post(#"[{"query":"query GetUser($id: ID!) { user(id: $id) { name id } }","variables":{"id":"7"}}]"#)))
    }

    @Test("A near miss names the part of the operator that differed")
    func explanation() throws {
        let request = post(
            #"{"operationName":"GetUser","query":"query GetUser($id: ID!) { user(id: $id) { id } }","variables":{"id":"u-1"}}"#
        )
        func difference(_ yaml: String) throws -> Mismatch? {
            try pattern(yaml).mismatches(request).first
        }
        #expect(try difference("      operationName: ListUsers")?.expected == #"GraphQL operationName "ListUsers""#)
        #expect(try difference("      operationName: ListUsers")?.actual == #""GetUser""#)
        let query = try difference("      query: 'query GetUser($id: ID!) { user(id: $id) { id name } }'")
        #expect(query?.expected.hasPrefix("GraphQL query query GetUser") == true)
        #expect(query?.actual == "query GetUser($id:ID!){user(id:$id){id}}")
        let variable = try difference("      operationName: GetUser\n      variables: {id: {matches: '^x-'}}")
        #expect(variable?.expected == "GraphQL variables.id matching /^x-/" && variable?.actual == #""u-1""#)
        let broken = post(#"{"query":"query { user( }"}"#)
        let unparsed = try pattern("      query: '{ user }'").mismatches(broken).first
        #expect(unparsed?.actual?.contains("does not parse (line 1, column 15") == true)
        #expect(
            try pattern("      query: '{ user }'").mismatches(post("[1]")).first?.actual?.contains(
                "no GraphQL operation") == true)
    }

    @Test("A bad operator is reported with its file, line and a did-you-mean")
    func loadErrors() {
        func errors(_ yaml: String) -> [String] {
            StubText.errors("request:\n  body:\n    graphql:\n\(yaml)\nresponse: {}", as: .yaml).map(\.description)
        }
        #expect(
            errors("      query: |\n        query Q {\n          user(id: ) { id }\n        }") == [
                "stubs/example.yaml:6: graphql query: line 2, column 12: expected a value, found ')'"
            ])
        #expect(
            errors("      query: '{ a'") == [
                "stubs/example.yaml:4: graphql query: line 1, column 4: expected a field, found the end of the document"
            ])
        #expect(
            errors("      operationname: Q") == [
                "stubs/example.yaml:4: unknown key 'operationname' in 'graphql'; did you mean 'operationName'?",
                "stubs/example.yaml:4: 'graphql' needs an operationName or a query (or both)",
            ])
        #expect(
            errors("      operationName: Q\n      variables: [1]") == [
                "stubs/example.yaml:5: 'variables' must be a mapping of variable names to values, not a list"
            ])
        #expect(errors("      operationName: Q\n      variables: {id: {matches: '('}}").count == 1)
    }

    @Test("Templates read graphql.operationName, graphql.query and graphql.variables")
    func templates() throws {
        let yaml = """
            request: {path: /graphql}
            response:
              template: true
              body: '{{graphql.operationName}} {{graphql.variables.id}} {{graphql.variables.page.size}} [{{graphql.query}}]'
            """
        let request = post(#"{"operationName":"GetUser","query":"{ a }","variables":{"id":"u-1","page":{"size":3}}}"#)
        #expect(String(decoding: try renderStub(yaml, request).body, as: UTF8.self) == "GetUser u-1 3 [{ a }]")
        let unnamed = post(#"{"query":"query Named { a }"}"#)
        let json = """
            request: {path: /graphql}
            response:
              template: true
              json: {name: '{{graphql.operationName}}', variables: '{{graphql.variables}}'}
            """
        #expect(
            String(decoding: try renderStub(json, unnamed).body, as: UTF8.self) == #"{"name":"Named","variables":"{}"}"#
        )
        let errors = StubText.errors(
            "request: {path: /}\nresponse:\n  template: true\n  body: '{{graphql.operatonName}}'", as: .yaml)
        #expect(errors.first?.message.contains("did you mean 'graphql.operationName'?") == true, "\(errors)")
    }

    @Test("A lookup reads the request's GraphQL once, and the index picks the stub of the operation")
    func index() throws {
        let stubs = try StubText.decode(
            """
            - request: {method: POST, path: /graphql, body: {graphql: {operationName: GetUser}}}
              response: {body: user}
            - request: {method: POST, path: /graphql, body: {graphql: {operationName: ListUsers}}}
              response: {body: list}
            """, as: .yaml)
        let index = StubIndex(stubs)
        #expect(
            index.lookup(post(#"{"operationName":"ListUsers","query":"query ListUsers { users { id } }"}"#))?.stub
                .response.body == Array("list".utf8))
        #expect(
            index.lookup(post(#"{"query":"query GetUser { user { id } }"}"#))?.stub.response.body == Array("user".utf8))
        #expect(index.lookup(post(#"{"operationName":"Other"}"#)) == nil)
        let misses = index.nearMisses(post(#"{"operationName":"Other"}"#))
        #expect(misses.first?.mismatches.first?.expected.hasPrefix("GraphQL operationName") == true)
    }

    @Test("The journal names the operation; a batch's names joined")
    func journal() {
        func name(_ request: HTTPRequest) -> String? {
            JournalEntry(
                startedAt: Date(), durationMicroseconds: 1, request: request, requestBodySize: request.body.count,
                clientAddress: "127.0.0.1",
                response: CapturedResponse(status: 200, headers: HTTPHeaders(), body: Payload([UInt8]()), bodySize: 0),
                outcome: .rejected(reason: "test")
            ).graphQLOperationName
        }
        #expect(name(post(#"{"operationName":"GetUser","query":"{ a }"}"#)) == "GetUser")
        #expect(name(post(#"[{"query":"query A { a }"},{"query":"{ b }"}]"#)) == "A, ?")
        #expect(name(.make(target: "/graphql?query=query%20Q%20%7B%20a%20%7D")) == "Q")
        #expect(name(post("query Plain { a }", contentType: "application/graphql")) == "Plain")
        #expect(name(post(#"{"id":1}"#)) == nil)
        #expect(name(.make(target: "/users?page=2")) == nil)
    }
}
