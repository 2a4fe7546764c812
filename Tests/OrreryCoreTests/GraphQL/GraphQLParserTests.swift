import Foundation
import Testing

@testable import OrreryCore

@Suite("GraphQL: the parser and its canonical form")
struct GraphQLParserTests {
    func canonical(_ text: String) throws -> String {
        try GraphQLDocument(parsing: text).canonical
    }

    func error(_ text: String) -> GraphQLSyntaxError? {
        do {
            _ = try GraphQLDocument(parsing: text)
            return nil
        } catch {
            return error
        }
    }

    @Test("A document read whole: operations, variables, directives, fragments, every kind of value")
    func wholeDocument() throws {
        let document = try GraphQLDocument(
            parsing: """
                # Apollo-style
                query Hero($episode: Episode = JEDI, $ids: [ID!]! @deprecated, $first: Int = 10) @cached(ttl: 60) {
                  hero(episode: $episode) {
                    name
                    ...HeroDetails @include(if: true)
                    ... on Droid { primaryFunction }
                    friends: friendsConnection(first: $first, filter: {tags: ["a", "b"], score: 1.5e3, none: null}) {
                      totalCount
                    }
                  }
                }
                fragment HeroDetails on Character { id appearsIn }
                mutation { like(id: "1") }
                """)
        let operation = try #require(document.operations.first)
        #expect(operation.type == "query" && operation.name == "Hero")
        #expect(operation.variables.map(\.name) == ["episode", "ids", "first"])
        #expect(operation.variables[1].type == .nonNull(.list(.nonNull(.named("ID")))))
        #expect(operation.variables[0].defaultValue == .enumValue("JEDI"))
        #expect(operation.variables[1].directives.map(\.name) == ["deprecated"])
        #expect(operation.directives == [.init(name: "cached", arguments: [.init(name: "ttl", value: .int("60"))])])
        #expect(document.operations[1].type == "mutation" && document.operations[1].name == nil)
        #expect(document.fragments.map(\.name) == ["HeroDetails"] && document.fragments[0].typeCondition == "Character")
        guard case .field(nil, "hero", let arguments, [], let selections)? = operation.selections.first else {
            Issue.record("expected the hero field")
            return
        }
        #expect(arguments == [.init(name: "episode", value: .variable("episode"))])
        #expect(selections.count == 4)
        guard case .field("friends", "friendsConnection", let friendArguments, _, _) = selections[3] else {
            Issue.record("expected an aliased field")
            return
        }
        #expect(
            friendArguments[1].value
                == .object([
                    .init(name: "tags", value: .list([.string("a"), .string("b")])),
                    .init(name: "score", value: .float("1.5e3")), .init(name: "none", value: .null),
                ]))
        #expect(document.operation(named: "Hero")?.name == "Hero")
        #expect(document.operation(named: nil) == nil)  // two operations: a name is needed
    }

    @Test("What does not change the operation: whitespace, commas, comments, order of fields and fragments")
    func sameOperation() throws {
        let reference = try canonical(
            "query Q($a: Int) { user(id: 1) { id name posts { title } } } fragment F on User { id }")
        for variant in [
            "query Q($a:Int){user(id:1){id,name,posts{title}}}fragment F on User{id}",
            "# c\nquery Q(\n  $a: Int\n) {\n  user(id: 1) { posts { title } name id } # trailing\n}\n\nfragment F on User { id }",
            "\u{FEFF}query Q($a: Int) { user(id: 1) { name, posts { title }, id } }\r\nfragment F on User { id }",
            ",,query Q($a: Int) { user(id: 1,) { id name posts { title } } } fragment F on User { id },",
        ] {
            #expect(try canonical(variant) == reference, "\(variant)")
        }
        // Strings compare by value, whatever their spelling.
        #expect(
            try canonical(#"{ a(s: "x\ny\u0041\u{1F600}") }"#)
                == canonical("{ a(s: \"\"\"\n    x\n    yA\u{1F600}\n\"\"\") }"))
        #expect(try canonical(#"{ a(s: "\uD83D\uDE00") }"#) == canonical(#"{ a(s: "\u{1F600}") }"#))
        // The shorthand is an anonymous query.
        #expect(try canonical("{ a }") == canonical("query { a }"))
        // Fragment definitions in any order.
        #expect(
            try canonical("{ ...A ...B } fragment B on T { b } fragment A on T { a }")
                == canonical("{ ...B ...A } fragment A on T { a } fragment B on T { b }"))
    }

    @Test(
        "What does: aliases, arguments and their order, directives, values, names, fragments, variables",
        arguments: [
            ("{ user { id } }", "{ u: user { id } }"),
            ("{ user(id: 1) { id } }", "{ user(id: 2) { id } }"),
            ("{ user(id: 1) { id } }", "{ user(id: \"1\") { id } }"),
            ("{ user(a: 1, b: 2) }", "{ user(b: 2, a: 1) }"),
            ("{ a(x: 1.0) }", "{ a(x: 1.00) }"),
            ("{ a(x: ENUM) }", "{ a(x: \"ENUM\") }"),
            ("{ user { id } }", "{ user { id @skip(if: true) } }"),
            ("{ user { id } }", "{ user { id name } }"),
            ("{ user { ...F } } fragment F on User { id }", "{ user { ...F } } fragment F on User { name }"),
            ("{ user { ... on A { id } } }", "{ user { ... on B { id } } }"),
            ("query Q { a }", "query R { a }"),
            ("query Q { a }", "mutation Q { a }"),
            ("query Q($a: Int) { a }", "query Q($a: Int!) { a }"),
            ("query Q($a: Int = 1) { a }", "query Q($a: Int = 2) { a }"),
            ("{ a { b { c } } }", "{ a { b c } }"),
            ("{ a(o: {x: 1, y: 2}) }", "{ a(o: {y: 2, x: 1}) }"),
        ])
    func differentOperation(_ first: String, _ second: String) throws {
        #expect(try canonical(first) != canonical(second))
    }

    @Test(
        "Text outside the grammar is refused with its line and column",
        arguments: [
            ("", 1, 1, "empty"),
            ("{ }", 1, 3, "expected a field"),
            ("query Q(", 1, 9, "expected '$'"),
            ("query Q() { a }", 1, 9, "expected '$'"),
            ("{ a(x: $v) }\nquery Q($v: Int = $w) { a }", 2, 19, "variable may not stand in a constant"),
            ("{\n  a(x: 01) }", 2, 9, "may not start with 0"),
            ("{ a(x: 1.) }", 1, 10, "a fraction needs"),
            ("{ a(x: 1e) }", 1, 10, "an exponent needs"),
            ("{ a(x: 0x1) }", 1, 9, "may not be followed"),
            ("{ a(x: \"abc) }", 1, 15, "not closed"),
            ("{ a(x: \"a\nb\") }", 1, 10, "ends at the end of its line"),
            ("{ a(x: \"\\q\") }", 1, 9, "unknown escape"),
            ("{ a(x: \"\\uD800\") }", 1, 9, "lone surrogate"),
            ("{ a(x: \"\\u{110000}\") }", 1, 9, "beyond U+10FFFF"),
            ("{ a . b }", 1, 5, "did you mean '...'"),
            ("{ a ? }", 1, 5, "unexpected character '?'"),
            ("type Query { a: Int }", 1, 1, "type system definition"),
            ("quer Q { a }", 1, 1, "did you mean 'query'"),
            ("fragment on on T { a }", 1, 10, "may not be named 'on'"),
            ("fragment F T { a }", 1, 12, "expected 'on'"),
            ("{ a } }", 1, 7, "expected an operation"),
            ("{ a(x: [1, 2) }", 1, 13, "expected a value"),
            ("{ a: }", 1, 6, "expected a field after the alias"),
        ])
    func syntaxErrors(_ text: String, _ line: Int, _ column: Int, _ message: String) throws {
        let found = try #require(error(text))
        #expect(found.line == line && found.column == column, "\(found)")
        #expect(found.message.contains(message), "\(found)")
    }

    @Test("Nesting beyond the limit is refused rather than overflowing the stack")
    func deepNesting() throws {
        let depth = GraphQLParser.maximumDepth + 1
        let fields = String(repeating: "{ a ", count: depth) + String(repeating: "}", count: depth)
        #expect(error(fields)?.message.contains("nested more than") == true)
        let lists = "{ a(x: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + ") }"
        #expect(error(lists)?.message.contains("nested more than") == true)
        let fine = String(repeating: "{ a ", count: 100) + String(repeating: "}", count: 100)
        #expect(error(fine) == nil)
    }

    @Test("Block strings: common indentation and blank first and last lines removed, \\\"\"\" kept")
    func blockStrings() throws {
        #expect(
            GraphQLLexer.blockStringValue("\n    Hello,\n      World!\n\n    Yours,\n      GraphQL.\n  ")
                == "Hello,\n  World!\n\nYours,\n  GraphQL.")
        #expect(GraphQLLexer.blockStringValue("  a\r\n  b\r  c") == "  a\nb\nc")
        let document = try GraphQLDocument(parsing: "{ a(s: \"\"\"x \\\"\"\" y\"\"\") }")
        guard case .field(_, _, let arguments, _, _)? = document.operations.first?.selections.first else {
            Issue.record("expected a field")
            return
        }
        #expect(arguments.first?.value == .string("x \"\"\" y"))
    }

    @Test("Every prefix of a valid document is refused or parsed, never a crash, and errors point inside the text")
    func everyPrefix() throws {
        let text = """
            query Q($a: [Int!] = [1], $s: String = "\\u00e9") @d { a: b(c: {d: [$a, "e", 1.5, true, null, E]}) {
              ...F ... on T @x { z } } } fragment F on T { y }
            """
        let bytes = Array(text.utf8)
        for end in 0...bytes.count {
            do {
                _ = try GraphQLDocument(parsing: Array(bytes[..<end]))
            } catch {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
                #expect(error.line >= 1 && error.line <= lines && error.column >= 1, "\(end): \(error)")
            }
        }
    }
}
