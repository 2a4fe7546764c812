/// A Mustache template compiled once, when stubs load, into literal bytes and lookups on the request.
///
/// Rendering walks the compiled nodes and writes into one byte array: no text is parsed per request, and lookups
/// read the request directly instead of going through a dictionary built for it.
public struct Template: Sendable, Equatable {
    /// How looked-up values are written.
    public enum Mode: Sendable, Equatable {
        /// As they are: a text body or a header value (nothing is HTML-escaped).
        case text
        /// JSON-string escaped: every template of a `json:` body stands inside a JSON string.
        case jsonString
    }

    /// The text as written (for a `json:` body, its JSON), which also decides equality.
    public let source: String
    public let mode: Mode
    let nodes: [TemplateNode]
    /// The nodes flattened, when they are only literals and request text (`TemplatePlan`): rendered from it.
    let plan: TemplatePlan?
    /// Bytes of literal text, the starting capacity of the output.
    let literalSize: Int

    init(source: String, mode: Mode, nodes: [TemplateNode]) {
        self.source = source
        self.mode = mode
        self.nodes = TemplateNode.merged(nodes)
        plan = TemplatePlan(self.nodes, mode: mode)
        literalSize = TemplateNode.literalSize(self.nodes)
    }

    /// Whether rendering needs anything from the request at all: a template without tags is plain text.
    public var isConstant: Bool {
        nodes.allSatisfy { if case .literal = $0 { true } else { false } }
    }

    public static func == (lhs: Template, rhs: Template) -> Bool {
        lhs.source == rhs.source && lhs.mode == rhs.mode
    }
}

/// One compiled piece of a template.
indirect enum TemplateNode: Sendable {
    /// Bytes written as they are (already escaped for the template's mode).
    case literal([UInt8])
    case value(TemplateLookup)
    /// `{{#name}}…{{/name}}`, or `{{^name}}…{{/name}}` when inverted.
    case section(TemplateLookup, inverted: Bool, [TemplateNode])
    /// A Handlebars expression (a name or a helper call); with `html`, written HTML-escaped as `{{x}}` is.
    case expression(HelperArgument, html: Bool)
    /// `{{#if x}}…{{else}}…{{/if}}`, `{{#unless x}}` (inverted) and the comparison blocks (`{{#eq a b}}`).
    case conditional(HelperArgument, inverted: Bool, then: [TemplateNode], otherwise: [TemplateNode])
    /// `{{#each x}}…{{else}}…{{/each}}`: the nodes once per item of a list (or value of an object).
    case each(HelperArgument, [TemplateNode], otherwise: [TemplateNode])

    /// Adjacent literals joined, so rendering appends fewer, longer runs.
    static func merged(_ nodes: [TemplateNode]) -> [TemplateNode] {
        var result: [TemplateNode] = []
        result.reserveCapacity(nodes.count)
        for node in nodes {
            switch node {
            case .literal(let bytes):
                if bytes.isEmpty { continue }
                if case .literal(let previous) = result.last {
                    result[result.count - 1] = .literal(previous + bytes)
                } else {
                    result.append(node)
                }
            case .section(let lookup, let inverted, let children):
                result.append(.section(lookup, inverted: inverted, merged(children)))
            case .value, .expression:
                result.append(node)
            case .conditional(let argument, let inverted, let then, let otherwise):
                result.append(
                    .conditional(argument, inverted: inverted, then: merged(then), otherwise: merged(otherwise)))
            case .each(let argument, let children, let otherwise):
                result.append(.each(argument, merged(children), otherwise: merged(otherwise)))
            }
        }
        return result
    }

    static func literalSize(_ nodes: [TemplateNode]) -> Int {
        nodes.reduce(0) { total, node in
            switch node {
            case .literal(let bytes): total + bytes.count
            case .value, .expression: total
            case .section(_, _, let children), .each(_, let children, _): total + literalSize(children)
            case .conditional(_, _, let then, _): total + literalSize(then)
            }
        }
    }
}

/// A template that does not compile: what is wrong, and the line within the template text (from 1).
public struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String

    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { message }
}
