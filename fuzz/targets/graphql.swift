// libFuzzer target: the GraphQL lexer, parser and canonical form (Sources/OrreryCore/GraphQL), and the `graphql`
// body operator against fuzzed requests.
//
// Input: a document, then a request after a 0x01 byte (`METHOD TARGET`, header lines and a body, as the other
// targets write one). Nothing may crash; a document gives the same answer twice; a document that parses has a
// canonical form that parses again to the same canonical form, and the same tokens laid out with other whitespace,
// commas and comments have that canonical form too; an error points at a line and column inside the text. The
// document as a stub's query, matched against the request: `matches` is true exactly when no difference is listed.

import Foundation

@testable import OrreryCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let pieces = parts(Array(UnsafeBufferPointer(start: data, count: size))[...])
    let source = Array(pieces[0])
    let first = Result { () throws(GraphQLSyntaxError) in try GraphQLDocument(parsing: source) }
    let second = Result { () throws(GraphQLSyntaxError) in try GraphQLDocument(parsing: source) }
    switch (first, second) {
    case (.success(let document), .success(let again)):
        require(document == again, "the same document parsed differently twice")
        let canonical = document.canonical
        let reparsed = try? GraphQLDocument(parsing: canonical)
        require(reparsed?.canonical == canonical, "the canonical form does not parse to itself: \(canonical)")
        if let tokens = tokens(source) {
            let relaid = tokens.enumerated().map { $1 + [" ", ",", "\n", "\t,#c\n", "\r\n"][$0 % 5] }.joined()
            require(
                (try? GraphQLDocument(parsing: relaid))?.canonical == canonical, "laid out again, it differs: \(relaid)"
            )
        }
        if pieces.count > 1 {
            let matcher = GraphQLMatcher(
                operationName: document.operations.first?.name, query: (text(pieces[0]), canonical), variables: nil)
            var body = RequestBody(request(from: pieces[1]))
            let matches = BodyMatcher.graphQL(matcher).matches(&body)
            if case .single(let operation)? = body.graphQL() {
                require(matches == matcher.differences(operation).isEmpty, "matches and differences disagree")
            }
        }
    case (.failure(let error), .failure(let again)):
        require(error == again, "the same document failed differently twice")
        let lines =
            source.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
            + source.filter { $0 == UInt8(ascii: "\r") }.count
        require(error.line >= 1 && error.line <= lines && error.column >= 1, "an error outside the text: \(error)")
    default:
        require(false, "the same document parsed once and failed once")
    }
    return 0
}

/// The source text of each token, or nil when the lexer refuses the text.
func tokens(_ bytes: [UInt8]) -> [String]? {
    var lexer = GraphQLLexer(bytes)
    var found: [String] = []
    while let token = try? lexer.next() {
        switch token.kind {
        case .end: return found
        case .punctuator(let text), .name(let text), .int(let text), .float(let text): found.append(text)
        case .string(let value, _):
            var out: [UInt8] = []
            JSONValue.encodeString(value, into: &out)
            found.append(String(decoding: out, as: UTF8.self))
        }
    }
    return nil
}
