/// The templated parts of a stub's response (`template: true`): its body and the header values that have tags.
///
/// A reference: every templated answer reads it, and a copy of a value retained and released each of its arrays.
public final class ResponseTemplate: Sendable, Equatable {
    /// The body; nil when the response has none.
    public let body: Template?
    /// Header values that are templates, by their position in the response's headers.
    public let headers: [HeaderTemplate]
    /// The body's plan, read per answer without copying the body's `Template` out of this object to reach it.
    let bodyPlan: TemplatePlan?
    /// Whether the body is rendered from its plan: there is none, or it has a plan.
    let rendersBodyFromPlan: Bool

    public init(body: Template?, headers: [HeaderTemplate] = []) {
        self.body = body
        self.headers = headers
        bodyPlan = body?.plan
        rendersBodyFromPlan = body == nil || bodyPlan != nil
    }

    public static func == (lhs: ResponseTemplate, rhs: ResponseTemplate) -> Bool {
        lhs === rhs || (lhs.body == rhs.body && lhs.headers == rhs.headers)
    }

    /// Whether nothing in it reads the request: such a response is served as a static one.
    public var isConstant: Bool {
        (body?.isConstant ?? true) && headers.allSatisfy(\.value.isConstant)
    }

    /// A header value that is a template.
    public struct HeaderTemplate: Sendable, Equatable {
        /// The position of the header in the response's headers.
        public let index: Int
        public let value: Template

        public init(index: Int, value: Template) {
            self.index = index
            self.value = value
        }
    }

    /// The response's headers with their templates rendered; a line break a value brings in becomes a space, so a
    /// request can never add a header of its own.
    public func renderHeaders<Generator>(_ headers: HTTPHeaders, context: inout TemplateContext<Generator>) -> HTTPHeaders {
        guard !self.headers.isEmpty else { return headers }
        var rendered = headers
        for header in self.headers where header.index < rendered.entries.count {
            var bytes = header.value.render(&context)
            for index in bytes.indices where bytes[index] == UInt8(ascii: "\r") || bytes[index] == UInt8(ascii: "\n") || bytes[index] == 0 {
                bytes[index] = UInt8(ascii: " ")
            }
            rendered.entries[header.index].value = String(decoding: bytes, as: UTF8.self)
        }
        return rendered
    }
}
