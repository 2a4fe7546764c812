/// A recursive-descent parser of GraphQL executable documents (the spec's "Executable Definitions"); a type
/// system definition is refused, as a GraphQL server refuses it in a request.
struct GraphQLParser {
    private var lexer: GraphQLLexer
    private var token: GraphQLToken
    private var depth = 0
    /// Selection sets, lists and objects nested deeper than this are refused instead of exhausting the stack.
    static let maximumDepth = 128

    init(_ bytes: [UInt8]) {
        lexer = GraphQLLexer(bytes)
        token = GraphQLToken(kind: .end, line: 1, column: 1)
    }

    private func error(_ message: String) -> GraphQLSyntaxError {
        GraphQLSyntaxError(line: token.line, column: token.column, message: message)
    }

    private var found: String {
        switch token.kind {
        case .punctuator(let text): "'\(text)'"
        case .name(let name): "'\(name)'"
        case .int(let text), .float(let text): "the number \(text)"
        case .string: "a string"
        case .end: "the end of the document"
        }
    }

    private mutating func advance() throws(GraphQLSyntaxError) {
        token = try lexer.next()
    }

    private func isPunctuator(_ text: String) -> Bool {
        token.kind == .punctuator(text)
    }

    private mutating func skip(_ text: String) throws(GraphQLSyntaxError) -> Bool {
        guard isPunctuator(text) else { return false }
        try advance()
        return true
    }

    private mutating func expect(_ text: String, _ context: String) throws(GraphQLSyntaxError) {
        guard isPunctuator(text) else { throw error("expected '\(text)' \(context), found \(found)") }
        try advance()
    }

    private mutating func name(_ what: String) throws(GraphQLSyntaxError) -> String {
        guard case .name(let name) = token.kind else { throw error("expected \(what), found \(found)") }
        try advance()
        return name
    }

    private mutating func enter() throws(GraphQLSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested more than \(Self.maximumDepth) levels deep") }
    }

    mutating func document() throws(GraphQLSyntaxError) -> GraphQLDocument {
        try advance()
        var operations: [GraphQLDocument.Operation] = []
        var fragments: [GraphQLDocument.Fragment] = []
        guard token.kind != .end else { throw error("the document is empty: it needs an operation") }
        while token.kind != .end {
            if isPunctuator("{") {
                operations.append(
                    GraphQLDocument.Operation(
                        type: "query", name: nil, variables: [], directives: [], selections: try selectionSet()))
                continue
            }
            guard case .name(let keyword) = token.kind else {
                throw error("expected an operation or a fragment, found \(found)")
            }
            switch keyword {
            case "query", "mutation", "subscription": operations.append(try operation())
            case "fragment": fragments.append(try fragment())
            case "schema", "scalar", "type", "interface", "union", "enum", "input", "directive", "extend":
                throw error("'\(keyword)' starts a type system definition, which a request may not hold")
            default:
                let hint = Suggestion.hint(for: keyword, in: ["query", "mutation", "subscription", "fragment"])
                throw error("expected an operation or a fragment, found '\(keyword)'\(hint)")
            }
        }
        return GraphQLDocument(operations: operations, fragments: fragments)
    }

    private mutating func operation() throws(GraphQLSyntaxError) -> GraphQLDocument.Operation {
        let type = try name("an operation type")
        var operationName: String?
        if case .name(let name) = token.kind {
            operationName = name
            try advance()
        }
        var variables: [GraphQLDocument.VariableDefinition] = []
        if try skip("(") {
            repeat {
                variables.append(try variableDefinition())
            } while !(try skip(")"))
        }
        let directives = try self.directives(isConst: false)
        return GraphQLDocument.Operation(
            type: type, name: operationName, variables: variables, directives: directives,
            selections: try selectionSet())
    }

    private mutating func variableDefinition() throws(GraphQLSyntaxError) -> GraphQLDocument.VariableDefinition {
        try expect("$", "before a variable's name")
        let variable = try name("a variable name")
        try expect(":", "after $\(variable)")
        let type = try typeReference()
        var defaultValue: GraphQLDocument.Value?
        if try skip("=") { defaultValue = try value(isConst: true) }
        return GraphQLDocument.VariableDefinition(
            name: variable, type: type, defaultValue: defaultValue, directives: try directives(isConst: true))
    }

    private mutating func typeReference() throws(GraphQLSyntaxError) -> GraphQLDocument.TypeReference {
        var type: GraphQLDocument.TypeReference
        if try skip("[") {
            try enter()
            type = .list(try typeReference())
            depth -= 1
            try expect("]", "to close a list type")
        } else {
            type = .named(try name("a type"))
        }
        if try skip("!") { type = .nonNull(type) }
        return type
    }

    private mutating func fragment() throws(GraphQLSyntaxError) -> GraphQLDocument.Fragment {
        try advance()
        guard token.kind != .name("on") else { throw error("a fragment may not be named 'on'") }
        let fragmentName = try name("a fragment name")
        guard case .name("on") = token.kind else {
            throw error("expected 'on' and a type after fragment \(fragmentName)")
        }
        try advance()
        let type = try name("a type after 'on'")
        let directives = try self.directives(isConst: false)
        return GraphQLDocument.Fragment(
            name: fragmentName, typeCondition: type, directives: directives, selections: try selectionSet())
    }

    private mutating func selectionSet() throws(GraphQLSyntaxError) -> [GraphQLDocument.Selection] {
        try expect("{", "to open a selection set")
        try enter()
        var selections: [GraphQLDocument.Selection] = []
        repeat {
            selections.append(try selection())
        } while !(try skip("}"))
        depth -= 1
        return selections
    }

    private mutating func selection() throws(GraphQLSyntaxError) -> GraphQLDocument.Selection {
        if try skip("...") {
            if case .name(let name) = token.kind, name != "on" {
                try advance()
                return .fragmentSpread(name: name, directives: try directives(isConst: false))
            }
            var typeCondition: String?
            if case .name("on") = token.kind {
                try advance()
                typeCondition = try self.name("a type after 'on'")
            }
            let directives = try self.directives(isConst: false)
            return .inlineFragment(typeCondition: typeCondition, directives: directives, selections: try selectionSet())
        }
        var fieldName = try name("a field")
        var alias: String?
        if try skip(":") {
            alias = fieldName
            fieldName = try name("a field after the alias \(fieldName)")
        }
        let arguments = try self.arguments(isConst: false)
        let directives = try self.directives(isConst: false)
        let selections = isPunctuator("{") ? try selectionSet() : []
        return .field(
            alias: alias, name: fieldName, arguments: arguments, directives: directives, selections: selections)
    }

    private mutating func arguments(isConst: Bool) throws(GraphQLSyntaxError) -> [GraphQLDocument.Argument] {
        guard try skip("(") else { return [] }
        var arguments: [GraphQLDocument.Argument] = []
        repeat {
            let argument = try name("an argument name")
            try expect(":", "after the argument \(argument)")
            arguments.append(GraphQLDocument.Argument(name: argument, value: try value(isConst: isConst)))
        } while !(try skip(")"))
        return arguments
    }

    private mutating func directives(isConst: Bool) throws(GraphQLSyntaxError) -> [GraphQLDocument.Directive] {
        var directives: [GraphQLDocument.Directive] = []
        while try skip("@") {
            let directive = try name("a directive name after '@'")
            directives.append(GraphQLDocument.Directive(name: directive, arguments: try arguments(isConst: isConst)))
        }
        return directives
    }

    private mutating func value(isConst: Bool) throws(GraphQLSyntaxError) -> GraphQLDocument.Value {
        switch token.kind {
        case .punctuator("$"):
            guard !isConst else {
                throw error("a variable may not stand in a constant value (a default or a directive of one)")
            }
            try advance()
            return .variable(try name("a variable name"))
        case .int(let text):
            try advance()
            return .int(text)
        case .float(let text):
            try advance()
            return .float(text)
        case .string(let text, _):
            try advance()
            return .string(text)
        case .name(let name):
            try advance()
            switch name {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null": return .null
            default: return .enumValue(name)
            }
        case .punctuator("["):
            try advance()
            try enter()
            var items: [GraphQLDocument.Value] = []
            while !(try skip("]")) { items.append(try value(isConst: isConst)) }
            depth -= 1
            return .list(items)
        case .punctuator("{"):
            try advance()
            try enter()
            var fields: [GraphQLDocument.Argument] = []
            while !(try skip("}")) {
                let field = try name("a field name of an input object")
                try expect(":", "after the input field \(field)")
                fields.append(GraphQLDocument.Argument(name: field, value: try value(isConst: isConst)))
            }
            depth -= 1
            return .object(fields)
        default:
            throw error("expected a value, found \(found)")
        }
    }
}
