import Foundation
import Testing
@testable import OrreryCore

@Suite("HAR import: methods")
struct HARImportMethodTests {
    @Test("A method that is not an HTTP token is skipped with its entry number and why; the rest is imported")
    func badMethods() throws {
        let methods = ["GET POST", "", "G\\u0000T", "GÉT", "(GET)", "*", "any", "GET"]
        let result = try HARImport.exchanges(
            from: HARImportTests.har(methods.map { HARImportTests.entry(method: $0) }.joined(separator: ",")),
            redactor: Redactor())
        #expect(result.exchanges.map(\.method) == ["GET"])
        #expect(result.skipped == [
            #"entry 1: the method "GET POST" is not an HTTP method (RFC 9110: letters, digits and !#$%&'*+-.^_`|~)"#,
            #"entry 2: the method "" is not an HTTP method (RFC 9110: letters, digits and !#$%&'*+-.^_`|~)"#,
            #"entry 3: the method "G\0T" is not an HTTP method (RFC 9110: letters, digits and !#$%&'*+-.^_`|~)"#,
            #"entry 4: the method "GÉT" is not an HTTP method (RFC 9110: letters, digits and !#$%&'*+-.^_`|~)"#,
            #"entry 5: the method "(GET)" is not an HTTP method (RFC 9110: letters, digits and !#$%&'*+-.^_`|~)"#,
            "entry 6: the method '*' would match every method in a stub file",
            "entry 7: the method 'any' would match every method in a stub file",
        ])
    }

    @Test("Every token a HAR may hold as its method is written to a fixture that loads and answers that method",
        arguments: ["PROPFIND", "M-SEARCH", "x+y", "A#B", "it's", "a|b", "^~`!$%&*._"])
    func tokensLoad(method: String) throws {
        let result = try HARImport.exchanges(
            from: HARImportTests.har(HARImportTests.entry(method: method)), pinsHost: false, redactor: Redactor())
        let exchange = try #require(result.exchanges.first)
        var file = FixtureFile(
            relativePath: FixtureLayout.routeFile(folder: "api.example.com", method: method, path: "/a"), comment: "test")
        file.add(exchange)
        let (folder, index) = try FixtureFileTests.load([file])
        defer { try? FileManager.default.removeItem(at: folder) }
        let request = HTTPRequest(method: method.uppercased(), target: "/a?x=1")
        #expect(index.lookup(request) != nil, "\(method)")
    }
}
