import Foundation

// Evaluating a compiled XPath over an XMLTree, with XPath 1.0's four types and its comparison rules.
extension XPath {
    /// A value of XPath 1.0: node-sets are indices into the tree, in document order.
    public enum Value: Sendable, Equatable {
        case nodes([Int])
        case string(String)
        case number(Double)
        case boolean(Bool)
    }

    /// What the expression gives for the document.
    public func evaluate(in tree: XMLTree) -> Value {
        var evaluator = Evaluator(tree: tree)
        return evaluator.evaluate(expression, context: Context(node: 0, position: 1, size: 1))
    }

    /// The expression's value as a boolean (a non-empty node-set, text or number is true), as Hoverfly's
    /// `xpath` matcher reads it.
    public func holds(in tree: XMLTree) -> Bool {
        Evaluator(tree: tree).boolean(evaluate(in: tree))
    }

    /// The texts the expression selects: each node's string value, or the one text of a string, number or boolean.
    public func texts(in tree: XMLTree) -> [String] {
        let evaluator = Evaluator(tree: tree)
        switch evaluate(in: tree) {
        case .nodes(let nodes): return nodes.map { tree.stringValue($0) }
        case let value: return [evaluator.string(value)]
        }
    }

    struct Context {
        var node: Int
        var position: Int
        var size: Int
    }

    struct Evaluator {
        let tree: XMLTree

        mutating func evaluate(_ expression: Expression, context: Context) -> Value {
            switch expression {
            case .literal(let text): return .string(text)
            case .number(let number): return .number(number)
            case .negate(let inner): return .number(-number(evaluate(inner, context: context)))
            case .path(let isAbsolute, let steps):
                return .nodes(walk(steps, from: [isAbsolute ? 0 : context.node]))
            case .filtered(let primary, let predicates, let steps):
                guard case .nodes(var nodes) = evaluate(primary, context: context) else { return .nodes([]) }
                for predicate in predicates { nodes = filter(nodes, predicate, isReverse: false) }
                return .nodes(walk(steps, from: nodes))
            case .call(let name, let arguments): return call(name, arguments, context: context)
            case .binary(let op, let left, let right):
                switch op {
                case "or": return .boolean(boolean(evaluate(left, context: context)) || boolean(evaluate(right, context: context)))
                case "and": return .boolean(boolean(evaluate(left, context: context)) && boolean(evaluate(right, context: context)))
                case "|":
                    guard case .nodes(let a) = evaluate(left, context: context), case .nodes(let b) = evaluate(right, context: context) else {
                        return .nodes([])
                    }
                    return .nodes(Array(Set(a + b)).sorted())
                case "=", "!=", "<", "<=", ">", ">=":
                    return .boolean(compare(op, evaluate(left, context: context), evaluate(right, context: context)))
                default:
                    let a = number(evaluate(left, context: context)), b = number(evaluate(right, context: context))
                    switch op {
                    case "+": return .number(a + b)
                    case "-": return .number(a - b)
                    case "*": return .number(a * b)
                    case "div": return .number(a / b)
                    default: return .number(a.truncatingRemainder(dividingBy: b))
                    }
                }
            }
        }

        // MARK: Paths

        mutating func walk(_ steps: [Step], from start: [Int]) -> [Int] {
            var current = start
            for step in steps {
                var seen = Set<Int>()
                var next: [Int] = []
                for node in current {
                    var selected = axis(step.axis, of: node).filter { test(step.test, $0, axis: step.axis) }
                    let isReverse = [.ancestor, .ancestorOrSelf, .preceding, .precedingSibling, .parent].contains(step.axis)
                    for predicate in step.predicates { selected = filter(selected, predicate, isReverse: isReverse) }
                    for index in selected where seen.insert(index).inserted { next.append(index) }
                }
                current = next.sorted()
            }
            return current
        }

        /// The nodes of an axis in document order.
        func axis(_ axis: Axis, of node: Int) -> [Int] {
            let nodes = tree.nodes
            switch axis {
            case .child: return nodes[node].children
            case .attribute: return nodes[node].attributes
            case .self: return [node]
            case .parent: return nodes[node].parent >= 0 ? [nodes[node].parent] : []
            case .ancestor, .ancestorOrSelf:
                var out: [Int] = axis == .ancestorOrSelf ? [node] : []
                var parent = nodes[node].parent
                while parent >= 0 {
                    out.append(parent)
                    parent = nodes[parent].parent
                }
                return out.reversed()
            case .descendant, .descendantOrSelf:
                var out: [Int] = axis == .descendantOrSelf ? [node] : []
                var stack = Array(nodes[node].children.reversed())
                while let next = stack.popLast() {
                    out.append(next)
                    stack += nodes[next].children.reversed()
                }
                return out
            case .followingSibling, .precedingSibling:
                let parent = nodes[node].parent
                guard parent >= 0, nodes[node].kind != .attribute else { return [] }
                let siblings = nodes[parent].children
                guard let place = siblings.firstIndex(of: node) else { return [] }
                return axis == .followingSibling ? Array(siblings[(place + 1)...]) : Array(siblings[..<place])
            case .following:
                // After the node in document order, its own descendants and every attribute left out.
                var last = node
                while let child = nodes[last].children.last { last = child }
                return ((last + 1)..<nodes.count).filter { nodes[$0].kind != .attribute }
            case .preceding:
                let ancestors = Set(self.axis(.ancestor, of: node))
                return (0..<node).filter { nodes[$0].kind != .attribute && $0 != 0 && !ancestors.contains($0) }
            }
        }

        func test(_ test: NodeTest, _ index: Int, axis: Axis) -> Bool {
            let node = tree.nodes[index]
            // The principal node type: attributes on the attribute axis, elements on the others.
            let principal: XMLTree.Kind = axis == .attribute ? .attribute : .element
            switch test {
            case .node: return true
            case .text: return node.kind == .text
            case .any: return node.kind == principal
            case .name(let name):
                guard node.kind == principal else { return false }
                if node.name == name { return true }
                return name.contains(":") && XMLTree.localName(node.name) == XMLTree.localName(name)
            }
        }

        mutating func filter(_ nodes: [Int], _ predicate: Expression, isReverse: Bool) -> [Int] {
            let ordered = isReverse ? nodes.reversed() : nodes
            var kept: [Int] = []
            for (offset, node) in ordered.enumerated() {
                let value = evaluate(predicate, context: Context(node: node, position: offset + 1, size: nodes.count))
                let isKept: Bool
                if case .number(let position) = value { isKept = position == Double(offset + 1) } else { isKept = boolean(value) }
                if isKept { kept.append(node) }
            }
            return isReverse ? kept.reversed() : kept
        }

        // MARK: Functions

        mutating func call(_ name: String, _ arguments: [Expression], context: Context) -> Value {
            func text(_ at: Int) -> String { string(evaluate(arguments[at], context: context)) }
            func contextOrArgument() -> Value { arguments.isEmpty ? .nodes([context.node]) : evaluate(arguments[0], context: context) }
            switch name {
            case "last": return .number(Double(context.size))
            case "position": return .number(Double(context.position))
            case "count":
                guard case .nodes(let nodes) = evaluate(arguments[0], context: context) else { return .number(.nan) }
                return .number(Double(nodes.count))
            case "sum":
                guard case .nodes(let nodes) = evaluate(arguments[0], context: context) else { return .number(.nan) }
                return .number(nodes.reduce(0) { $0 + Self.number(tree.stringValue($1)) })
            case "string": return .string(string(contextOrArgument()))
            case "concat": return .string(arguments.indices.map(text).joined())
            case "contains":
                let needle = text(1)
                return .boolean(needle.isEmpty || text(0).contains(needle))
            case "starts-with": return .boolean(text(0).hasPrefix(text(1)))
            case "ends-with": return .boolean(text(0).hasSuffix(text(1)))
            case "substring-before":
                let haystack = text(0), needle = text(1)
                guard let range = haystack.range(of: needle) else { return .string("") }
                return .string(String(haystack[..<range.lowerBound]))
            case "substring-after":
                let haystack = text(0), needle = text(1)
                guard let range = haystack.range(of: needle) else { return .string("") }
                return .string(String(haystack[range.upperBound...]))
            case "string-length": return .number(Double(string(contextOrArgument()).count))
            case "normalize-space":
                let words = string(contextOrArgument()).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
                return .string(words.joined(separator: " "))
            case "not": return .boolean(!boolean(evaluate(arguments[0], context: context)))
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            case "boolean": return .boolean(boolean(evaluate(arguments[0], context: context)))
            case "number": return .number(number(contextOrArgument()))
            default:
                // name() and local-name(): of the first node of the set.
                guard case .nodes(let nodes) = contextOrArgument(), let first = nodes.first else { return .string("") }
                let qualified = tree.nodes[first].name
                return .string(name == "name" ? qualified : String(XMLTree.localName(qualified)))
            }
        }

        // MARK: Conversions and comparisons

        func boolean(_ value: Value) -> Bool {
            switch value {
            case .nodes(let nodes): return !nodes.isEmpty
            case .string(let text): return !text.isEmpty
            case .number(let number): return number != 0 && !number.isNaN
            case .boolean(let flag): return flag
            }
        }

        func string(_ value: Value) -> String {
            switch value {
            case .nodes(let nodes): return nodes.first.map { tree.stringValue($0) } ?? ""
            case .string(let text): return text
            case .boolean(let flag): return flag ? "true" : "false"
            case .number(let number):
                if number.isNaN { return "NaN" }
                if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
                if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
                return String(number)
            }
        }

        func number(_ value: Value) -> Double {
            switch value {
            case .number(let number): return number
            case .boolean(let flag): return flag ? 1 : 0
            case .string(let text): return Self.number(text)
            case .nodes: return Self.number(string(value))
            }
        }

        static func number(_ text: String) -> Double {
            let trimmed = text.trimmedXMLSpace
            guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-") }),
                let value = Double(trimmed)
            else { return .nan }
            return value
        }

        /// XPath 1.0's comparison: a node-set compares by each of its nodes' string values, and holds when one does.
        func compare(_ op: String, _ left: Value, _ right: Value) -> Bool {
            switch (left, right) {
            case (.nodes(let a), .nodes(let b)):
                let texts = b.map { tree.stringValue($0) }
                return a.contains { node in texts.contains { atom(op, .string(tree.stringValue(node)), .string($0)) } }
            case (.nodes(let nodes), let other):
                if case .boolean = other { return atom(op, .boolean(boolean(left)), other) }
                return nodes.contains { atom(op, .string(tree.stringValue($0)), other) }
            case (let other, .nodes(let nodes)):
                if case .boolean = other { return atom(op, other, .boolean(boolean(right))) }
                return nodes.contains { atom(op, other, .string(tree.stringValue($0))) }
            default:
                return atom(op, left, right)
            }
        }

        private func atom(_ op: String, _ left: Value, _ right: Value) -> Bool {
            if op == "=" || op == "!=" {
                let isEqual: Bool
                switch (left, right) {
                case (.boolean, _), (_, .boolean): isEqual = boolean(left) == boolean(right)
                case (.number, _), (_, .number): isEqual = number(left) == number(right)
                default: isEqual = string(left) == string(right)
                }
                return op == "=" ? isEqual : !isEqual
            }
            let a = number(left), b = number(right)
            switch op {
            case "<": return a < b
            case "<=": return a <= b
            case ">": return a > b
            default: return a >= b
            }
        }
    }
}
