import Yams

/// Turns YAML text into `SourceNode`s, keeping libyaml's line marks.
enum YAMLSourceParser {
    static func parse(_ text: String) throws(JSONSyntaxError) -> SourceNode {
        let root: Node?
        do {
            // `.basic`: no resolution by Yams (see YAMLImplicitTag); every untagged scalar comes back as text.
            root = try Yams.compose(yaml: text, .basic)
        } catch let error as YamlError {
            throw describe(error)
        } catch {
            throw JSONSyntaxError(line: 0, message: "YAML: \(error)")
        }
        guard let root else { return SourceNode(.null, line: 1) }
        var budget = Budget(nodes: maximumNodes, bytes: maximumBytes(forFileOf: text.utf8.count))
        return try convert(root, in: SourceLines(text), budget: &budget)
    }

    /// Yams expands aliases into shared copies, so a few lines of nested aliases can stand for billions of nodes;
    /// conversion stops at this many.
    static let maximumNodes = 1_000_000

    /// Bytes of text the document may expand to, whatever its aliases: a file without aliases holds at most its own
    /// size, so only an alias bomb reaches the bound (a 98 KB file of aliases to a 100 KB text is 10 GB).
    static let maximumExpandedBytes = 64 * 1024 * 1024

    /// The smaller of `maximumExpandedBytes` and 100 times the file's size.
    static func maximumBytes(forFileOf size: Int) -> Int {
        min(maximumExpandedBytes, max(size, 1) * 100)
    }

    /// What is left of the values and bytes the document may expand to.
    struct Budget {
        var nodes: Int
        var bytes: Int
        let maximumBytes: Int

        init(nodes: Int, bytes: Int) {
            self.nodes = nodes
            self.bytes = bytes
            maximumBytes = bytes
        }

        mutating func spend(_ count: Int, line: Int) throws(JSONSyntaxError) {
            bytes -= count
            guard bytes >= 0 else {
                throw JSONSyntaxError(
                    line: line,
                    message: "the document's aliases expand to more than \(maximumBytes) bytes (at most 64 MiB, and 100 times the file's size)")
            }
        }
    }

    /// - Parameter parentLine: the line of the key or list that holds the node: an alias's node carries its
    ///   anchor's line, and an error in what it expands to is reported where the alias is used, near enough.
    private static func convert(
        _ node: Node, in source: SourceLines, budget: inout Budget, parentLine: Int = 0
    ) throws(JSONSyntaxError) -> SourceNode {
        let line = node.mark?.line ?? 0
        budget.nodes -= 1
        guard budget.nodes >= 0 else {
            throw JSONSyntaxError(line: line, message: "the document expands to more than \(maximumNodes) values (nested aliases?)")
        }
        switch node {
        case .scalar(let scalar):
            try budget.spend(scalar.string.utf8.count, line: max(line, parentLine))
            var tag = Tag.Name(rawValue: node.tag.rawValue)
            if tag == .str, scalar.style == .plain {
                let implicit = YAMLImplicitTag.of(scalar.string)
                if implicit != .str, !source.isExplicitlyTagged(at: node.mark) { tag = implicit }
            }
            switch tag {
            case .null: return SourceNode(.null, line: line)
            case .bool:
                // YAML 1.1 reads yes/no/on/off as booleans; in a header value `yes` means the text "yes".
                switch scalar.string.lowercased() {
                case "true": return SourceNode(.bool(true), line: line)
                case "false": return SourceNode(.bool(false), line: line)
                default: return SourceNode(.string(scalar.string), line: line)
                }
            case .int, .float:
                // YAML spells numbers in ways JSON does not (012, 1_000, 0x1F, .5); keep the JSON spelling.
                if JSONSourceParser.isJSONNumber(scalar.string), let number = Double(scalar.string) {
                    return SourceNode(.number(number, text: scalar.string), line: line)
                }
                if scalar.string.contains(":") {
                    // Yams' own base-60 arithmetic traps on overflow (`-8888888888888888813:1:3`), so it is done here.
                    if tag == .int, let integer = sexagesimalInteger(scalar.string) {
                        return SourceNode(.number(Double(integer), text: String(integer)), line: line)
                    }
                } else if let integer = node.int {
                    return SourceNode(.number(Double(integer), text: String(integer)), line: line)
                }
                if let number = node.float, number.isFinite {
                    return SourceNode(.number(number, text: "\(number)"), line: line)
                }
                return SourceNode(.string(scalar.string), line: line)
            default: return SourceNode(.string(scalar.string), line: line)
            }
        case .sequence(let sequence):
            var items: [SourceNode] = []
            for item in sequence {
                items.append(try convert(item, in: source, budget: &budget, parentLine: max(line, parentLine)))
            }
            return SourceNode(.array(items), line: line)
        case .mapping(let mapping):
            var members: [(key: String, keyLine: Int, value: SourceNode)] = []
            for (key, value) in mapping {
                let keyLine = key.mark?.line ?? line
                guard case .scalar(let keyScalar) = key else {
                    throw JSONSyntaxError(line: keyLine, message: "a mapping key must be a plain value")
                }
                try budget.spend(keyScalar.string.utf8.count, line: keyLine)
                if members.contains(where: { $0.key == keyScalar.string }) {
                    throw JSONSyntaxError(line: keyLine, message: "duplicate key '\(keyScalar.string)'")
                }
                members.append(
                    (keyScalar.string, keyLine, try convert(value, in: source, budget: &budget, parentLine: keyLine)))
            }
            return SourceNode(.object(members), line: line)
        case .alias:
            // Yams resolves aliases while composing; an unresolved one is refused rather than guessed at.
            throw JSONSyntaxError(line: line, message: "YAML aliases are not supported in stub files")
        }
    }

    /// YAML 1.1's base-60 integers (`1:30` is 90, `-1_0:00` is -600); nil when the value does not fit in an `Int`.
    static func sexagesimalInteger(_ text: String) -> Int? {
        var digits = Substring(text)
        let isNegative = digits.first == "-"
        if digits.first == "-" || digits.first == "+" { digits.removeFirst() }
        var value = 0
        for part in digits.split(separator: ":", omittingEmptySubsequences: false) {
            guard let place = Int(part.filter { $0 != "_" }) else { return nil }
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 60)
            let (sum, overflowedAgain) = shifted.addingReportingOverflow(place)
            guard !overflowed, !overflowedAgain else { return nil }
            value = sum
        }
        return isNegative ? -value : value
    }

    private static func describe(_ error: YamlError) -> JSONSyntaxError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let prefix = context.map { "\($0.text) " } ?? ""
            return JSONSyntaxError(line: mark.line, message: "YAML: \(prefix)\(problem)".trimmingSpaces)
        case .reader(let problem, _, _, _):
            return JSONSyntaxError(line: 0, message: "YAML: \(problem)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return JSONSyntaxError(
                line: context.mark.line, message: "duplicate key '\(duplicates.joined(separator: "', '"))'")
        default:
            return JSONSyntaxError(line: 0, message: "YAML: \(error)")
        }
    }
}

/// The text a document was parsed from, by line, to look at how a node was written.
private final class SourceLines {
    private let text: String
    private lazy var lines: [Substring] = text.split(separator: "\n", omittingEmptySubsequences: false)

    init(_ text: String) { self.text = text }

    /// Whether the node at `mark` carries a tag of its own (`!!str 123`), perhaps after an anchor: Yams reports its
    /// tag resolved, the same as an untagged node's.
    func isExplicitlyTagged(at mark: Mark?) -> Bool {
        guard let mark, mark.line >= 1, mark.line <= lines.count else { return false }
        // libyaml counts columns in characters (Unicode scalars), from 1.
        var rest = lines[mark.line - 1].unicodeScalars.dropFirst(mark.column - 1)
        if rest.first == "&" {
            rest = rest.drop(while: { $0 != " " && $0 != "\t" }).drop(while: { $0 == " " || $0 == "\t" })
        }
        return rest.first == "!"
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
