import Foundation

/// What a stub's response decides per request, for the server to carry out: a body rendered from a template or a
/// page of a collection, a delay drawn from a distribution, a bandwidth limit, a fault.
///
/// `PreparedResponse.dynamic` holds one when the response has any of these (a reference, so that a prepared
/// response without one stays small); a response without one is sent as prepared. The order to carry it out in: `fault` (only `truncatedBody` sends anything), then the delay
/// (`sampleDelay`), then the answer (`render` when `rendersBody`, else the prepared variant), at `throttle`'s pace.
public final class DynamicResponse: Sendable {
    public let status: Int
    /// The stub's headers as written (template values unrendered).
    public let headers: HTTPHeaders
    public let template: ResponseTemplate?
    public let pagination: Pagination?
    /// When present, replaces `PreparedResponse.delayMilliseconds` (which holds only a fixed delay).
    public let delay: Delay?
    public let throttle: Throttle?
    public let fault: Fault?
    /// The head of a template's answer, encoded once: set when the template leaves the status and header values as
    /// written, so that only `Content-Length` changes from one answer to the next.
    public let preparedHead: HTTP1Encoder.PreparedHead?

    public init(
        status: Int, headers: HTTPHeaders, template: ResponseTemplate? = nil, pagination: Pagination? = nil,
        delay: Delay? = nil, throttle: Throttle? = nil, fault: Fault? = nil
    ) {
        self.status = status
        self.headers = headers
        self.template = template
        self.pagination = pagination
        self.delay = delay
        self.throttle = throttle
        self.fault = fault
        rendersBody = template != nil || pagination != nil
        isPaged = pagination != nil
        preparedHead =
            pagination == nil && template.map { $0.headers.isEmpty } == true
            ? HTTP1Encoder.PreparedHead(status: status, headers: headers) : nil
    }

    /// The answer to send for what `renderAnswer` made: under the prepared head when it is the one written, else
    /// with the rendered fields encoded.
    public func encoded(status renderedStatus: Int, headers: HTTPHeaders, body: Payload) -> EncodedResponse {
        if let preparedHead, renderedStatus == status { return EncodedResponse(preparedHead, body: body) }
        return EncodedResponse(status: renderedStatus, headers: headers, body: body)
    }

    /// Whether the status, headers and body are made per request (`render`); otherwise the prepared (and possibly
    /// compressed) response is what goes out.
    /// Set once: asking `template != nil` per answer copied the template (and the pagination) to look.
    public let rendersBody: Bool
    /// Whether a page is the answer, asked per answer for the same reason.
    let isPaged: Bool

    /// The milliseconds to wait before answering this request (0 for none).
    public func sampleDelay<Generator: RandomNumberGenerator>(using generator: inout Generator) -> Int {
        delay?.sample(using: &generator) ?? 0
    }

    /// The response for one request.
    ///
    /// - Parameters:
    ///   - parameters: the request's path parameters (`IndexedStub.parameters(for:)`).
    ///   - now: what `now` prints.
    ///   - scheme: how the client reached Orrery (`http` or `https`), for the `Link` URLs of a page.
    ///   - generator: where `uuid` comes from.
    ///   - budget: what rendering the templates may cost; over it, the response is a 500 that says so.
    public func render<Generator: RandomNumberGenerator>(
        _ request: HTTPRequest, parameters: PathParameters = PathParameters(), now: Date = Date(),
        scheme: String = "http", using generator: inout Generator, budget: TemplateBudget = TemplateBudget()
    ) -> RenderedResponse {
        // Asked with `!= nil` before it is bound: binding an optional that is nil still copied it to look.
        if pagination != nil {
            return pagination!.page(for: request, scheme: scheme, status: status, headers: headers)
        }
        guard let template else { return RenderedResponse(status: status, headers: headers, body: []) }
        var context = TemplateContext(request: request, parameters: parameters, now: now, generator: generator, budget: budget)
        let headers = template.renderHeaders(headers, context: &context)
        let body = context.exceeded == nil ? template.body?.render(&context) ?? [] : []
        generator = context.generator
        if let exceeded = context.exceeded { return Self.overBudget(exceeded) }
        return RenderedResponse(status: status, headers: headers, body: body)
    }

    /// The answer for one request with its body as a payload, `uuid` from the system's random numbers: a template
    /// plan's body is written straight into it (`TemplatePlan.renderPayload`), anything else rendered and copied in.
    /// The plan's case is `render`'s steps written again: shared through a generic helper, the context was copied.
    public func renderAnswer(
        _ request: HTTPRequest, parameters: PathParameters, scheme: String, budget: TemplateBudget
    ) -> (status: Int, headers: HTTPHeaders, body: Payload) {
        guard !isPaged, let template, template.rendersBodyFromPlan else {
            let rendered = render(request, parameters: parameters, scheme: scheme, budget: budget)
            return (rendered.status, rendered.headers, Payload(rendered.body))
        }
        var context = TemplateContext(request: request, parameters: parameters, budget: budget)
        let headers = template.renderHeaders(headers, context: &context)
        let body = context.exceeded == nil ? template.bodyPlan?.renderPayload(&context) : nil
        if let exceeded = context.exceeded {
            let over = Self.overBudget(exceeded)
            return (over.status, over.headers, Payload(over.body))
        }
        return (status, headers, body ?? Payload.empty)
    }

    /// The response for one request, `uuid` from the system's random numbers.
    public func render(
        _ request: HTTPRequest, parameters: PathParameters = PathParameters(), now: Date = Date(), scheme: String = "http",
        budget: TemplateBudget = TemplateBudget()
    ) -> RenderedResponse {
        var generator = SystemRandomNumberGenerator()
        return render(request, parameters: parameters, now: now, scheme: scheme, using: &generator, budget: budget)
    }

    /// The 500 that replaces a render over budget: the partial output is dropped, never sent.
    static func overBudget(_ exceeded: TemplateBudget.Exceeded) -> RenderedResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        return RenderedResponse(
            status: 500, headers: headers, body: Array("orrery: response template over budget: \(exceeded)\n".utf8))
    }
}

/// A response made for one request: a rendered template or a page.
public struct RenderedResponse: Sendable, Equatable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var reason: String { HTTPStatusCode.reasonPhrase(for: status) }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
