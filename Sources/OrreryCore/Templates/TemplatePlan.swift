/// A template made only of literal text and names of request text (method, path, a path segment or parameter, a
/// query parameter, a header, a cookie, the URL), flattened when it compiles into steps that hold no references:
/// what most response templates are (`{"id":"{{request.path.[1]}}","agent":"{{request.headers.User-Agent}}"}`).
///
/// The tree's nodes are boxed (an indirect enum): rendering copied each one out with its lookup, retaining what they
/// hold and releasing it again, and went through two levels of dispatch per name. A plan's steps are plain values,
/// and each name is resolved directly. It writes exactly what the tree writes, with the same budget steps (one per
/// node): every other template (sections, helpers, the body, JSON, `now`, `uuid`) renders as a tree.
struct TemplatePlan: Sendable {
    struct Step: Sendable {
        /// A literal (its index in `literals`) or a name (in `lookups`).
        let isLiteral: Bool
        /// Handlebars' `{{x}}`: written HTML-escaped.
        let isHTML: Bool
        let index: Int
    }

    let steps: [Step]
    let literals: [[UInt8]]
    let lookups: [RootLookup]

    /// Nil when a node is anything but a literal or request text.
    init?(_ nodes: [TemplateNode]) {
        var steps: [Step] = []
        var literals: [[UInt8]] = []
        var lookups: [RootLookup] = []
        for node in nodes {
            let lookup: RootLookup
            var isHTML = false
            switch node {
            case .literal(let bytes):
                steps.append(Step(isLiteral: true, isHTML: false, index: literals.count))
                literals.append(bytes)
                continue
            case .value(.root(let root)):
                lookup = root
            case .expression(.lookup(.root(let root)), let html):
                lookup = root
                isHTML = html
            default:
                return nil
            }
            guard Self.isRequestText(lookup) else { return nil }
            steps.append(Step(isLiteral: false, isHTML: isHTML, index: lookups.count))
            lookups.append(lookup)
        }
        self.steps = steps
        self.literals = literals
        self.lookups = lookups
    }

    /// The names that resolve to a slice of the request's text, or to nothing: written the same way as a value and
    /// as an expression, and nothing when missing.
    private static func isRequestText(_ lookup: RootLookup) -> Bool {
        switch lookup {
        case .method, .path, .pathSegment, .query, .header, .queryValue, .headerValue, .cookie, .url, .parameter:
            true
        case .pathSegments, .baseUrl, .body, .json, .graphQL, .now, .uuid:
            false
        }
    }
}

extension TemplateRenderer {
    static func render<Generator, Out: RenderOutput>(
        _ plan: TemplatePlan, mode: Template.Mode, into out: inout Out, context: inout TemplateContext<Generator>
    ) {
        let escape = mode == .jsonString
        for index in plan.steps.indices {
            guard context.spend(1, outputBytes: out.count) else { return }
            let step = plan.steps[index]
            if step.isLiteral {
                plan.literals[step.index].withUnsafeBufferPointer { out.append(contentsOf: $0) }
                continue
            }
            appendRequestText(plan.lookups[step.index], html: step.isHTML, escape: escape, context: context, into: &out)
        }
    }
}
