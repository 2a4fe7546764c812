/// A template made only of literal text and names of request text (method, path, a path segment or parameter, a
/// query parameter, a header, a cookie, the URL), flattened when it compiles into steps that hold no references:
/// what most response templates are (`{"id":"{{request.path.[1]}}","agent":"{{request.headers.User-Agent}}"}`).
///
/// The tree's nodes are boxed (an indirect enum): rendering copied each one out with its lookup, retaining what they
/// hold and releasing it again, and went through two levels of dispatch per name. A plan's steps are plain values,
/// and each name is resolved directly. It writes exactly what the tree writes, with the same budget steps (one per
/// node): every other template (sections, helpers, the body, JSON, `now`, `uuid`) renders as a tree.
///
/// A reference, with the mode it renders in: an answer's render reaches it through its stub's
/// `ResponseTemplate` with one retain, where copying the plan (or the `Template` around it) out retained each of
/// its arrays.
final class TemplatePlan: Sendable {
    struct Step: Sendable {
        /// A literal (`count` bytes of `literalBytes` from `index`) or a name (`lookups[index]`).
        let isLiteral: Bool
        /// Handlebars' `{{x}}`: written HTML-escaped.
        let isHTML: Bool
        let index: Int
        let count: Int
    }

    let steps: [Step]
    /// Every literal's bytes, one after the other: lent once per literal without retaining anything, where an array
    /// per literal was retained and released at each.
    let literalBytes: [UInt8]
    let lookups: [RootLookup]
    let mode: Template.Mode

    /// Nil when a node is anything but a literal or request text.
    init?(_ nodes: [TemplateNode], mode: Template.Mode) {
        var steps: [Step] = []
        var literalBytes: [UInt8] = []
        var lookups: [RootLookup] = []
        for node in nodes {
            let lookup: RootLookup
            var isHTML = false
            switch node {
            case .literal(let bytes):
                steps.append(Step(isLiteral: true, isHTML: false, index: literalBytes.count, count: bytes.count))
                literalBytes.append(contentsOf: bytes)
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
            steps.append(Step(isLiteral: false, isHTML: isHTML, index: lookups.count, count: 0))
            lookups.append(lookup)
        }
        self.steps = steps
        self.literalBytes = literalBytes
        self.lookups = lookups
        self.mode = mode
    }

    /// Renders straight into a payload's buffer (`PayloadWriter`), with the same budget as `Template.render`.
    func renderPayload<Generator>(_ context: inout TemplateContext<Generator>) -> Payload {
        // Room for the values too, as `Template.render` reserves.
        var writer = PayloadWriter(capacity: literalBytes.count + 256)
        TemplateRenderer.render(self, into: &writer, context: &context)
        // The last step may have passed the bound without another step after it to notice.
        _ = context.spend(0, outputBytes: writer.count)
        return writer.payload()
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
        _ plan: TemplatePlan, into out: inout Out, context: inout TemplateContext<Generator>
    ) {
        let escape = plan.mode == .jsonString
        for index in plan.steps.indices {
            guard context.spend(1, outputBytes: out.count) else { return }
            let step = plan.steps[index]
            if step.isLiteral {
                plan.literalBytes.withUnsafeBufferPointer { bytes in
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[step.index..<step.index + step.count]))
                }
                continue
            }
            appendRequestText(plan.lookups[step.index], html: step.isHTML, escape: escape, context: context, into: &out)
        }
    }
}
