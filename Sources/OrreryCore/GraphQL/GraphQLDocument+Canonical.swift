// The canonical form: what decides whether two documents are the same operation for a stub.
extension GraphQLDocument {
    /// The document printed without what does not change its meaning to a server: whitespace, commas, comments,
    /// the order of the items of a selection set and the order of fragment definitions. Aliases, arguments (in
    /// their order), directives, variables and values stay; strings print by value, so `"a"` and `"""a"""` agree.
    public var canonical: String {
        var out = ""
        for (position, operation) in operations.enumerated() {
            if position > 0 { out += " " }
            Self.print(operation, into: &out)
        }
        for fragment in fragments.sorted(by: { $0.name < $1.name }) {
            out += " fragment \(fragment.name) on \(fragment.typeCondition)"
            Self.print(fragment.directives, into: &out)
            Self.print(fragment.selections, into: &out)
        }
        return out
    }

    private static func print(_ operation: Operation, into out: inout String) {
        out += operation.type
        if let name = operation.name { out += " " + name }
        if !operation.variables.isEmpty {
            out += "("
            for (position, variable) in operation.variables.enumerated() {
                if position > 0 { out += "," }
                out += "$\(variable.name):"
                print(variable.type, into: &out)
                if let value = variable.defaultValue {
                    out += "="
                    print(value, into: &out)
                }
                print(variable.directives, into: &out)
            }
            out += ")"
        }
        print(operation.directives, into: &out)
        print(operation.selections, into: &out)
    }

    private static func print(_ type: TypeReference, into out: inout String) {
        switch type {
        case .named(let name): out += name
        case .list(let item):
            out += "["
            print(item, into: &out)
            out += "]"
        case .nonNull(let inner):
            print(inner, into: &out)
            out += "!"
        }
    }

    /// `{a b c}` with the items sorted by their own canonical text: the order a client lists fields in is free.
    private static func print(_ selections: [Selection], into out: inout String) {
        let printed = selections.map { selection -> String in
            var text = ""
            print(selection, into: &text)
            return text
        }
        out += "{" + printed.sorted().joined(separator: " ") + "}"
    }

    private static func print(_ selection: Selection, into out: inout String) {
        switch selection {
        case .field(let alias, let name, let arguments, let directives, let selections):
            if let alias { out += alias + ":" }
            out += name
            print(arguments, into: &out)
            print(directives, into: &out)
            if !selections.isEmpty { print(selections, into: &out) }
        case .fragmentSpread(let name, let directives):
            out += "..." + name
            print(directives, into: &out)
        case .inlineFragment(let typeCondition, let directives, let selections):
            out += "..."
            if let typeCondition { out += "on " + typeCondition }
            print(directives, into: &out)
            print(selections, into: &out)
        }
    }

    private static func print(_ directives: [Directive], into out: inout String) {
        for directive in directives {
            out += "@" + directive.name
            print(directive.arguments, into: &out)
        }
    }

    private static func print(_ arguments: [Argument], into out: inout String) {
        guard !arguments.isEmpty else { return }
        out += "("
        for (position, argument) in arguments.enumerated() {
            if position > 0 { out += "," }
            out += argument.name + ":"
            print(argument.value, into: &out)
        }
        out += ")"
    }

    private static func print(_ value: Value, into out: inout String) {
        switch value {
        case .variable(let name): out += "$" + name
        case .int(let text), .float(let text): out += text
        case .string(let text):
            var bytes: [UInt8] = []
            JSONValue.encodeString(text, into: &bytes)
            out += String(decoding: bytes, as: UTF8.self)
        case .bool(let flag): out += flag ? "true" : "false"
        case .null: out += "null"
        case .enumValue(let name): out += name
        case .list(let items):
            out += "["
            for (position, item) in items.enumerated() {
                if position > 0 { out += "," }
                print(item, into: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (position, field) in fields.enumerated() {
                if position > 0 { out += "," }
                out += field.name + ":"
                print(field.value, into: &out)
            }
            out += "}"
        }
    }
}
