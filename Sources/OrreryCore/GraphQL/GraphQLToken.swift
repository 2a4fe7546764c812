/// One lexical token of a GraphQL document (the spec's "Lexical Tokens"); ignored tokens never become one.
struct GraphQLToken: Equatable {
    enum Kind: Equatable {
        /// `! $ & ( ) ... : = @ [ ] { | }`, by their text.
        case punctuator(String)
        case name(String)
        /// The text as written: the canonical form keeps `1.0` and `1.00` apart, as the spec's AST does.
        case int(String)
        case float(String)
        /// The string's value, escapes decoded and a block string's indentation removed.
        case string(String, isBlock: Bool)
        case end
    }

    var kind: Kind
    var line: Int
    var column: Int
}
