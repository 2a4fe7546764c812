import Foundation

/// What one request's templates read: the request, its path parameters, the time and a source of randomness.
///
/// One context serves every template of a response (its headers and its body), so `uuid` is the same wherever a
/// response uses it, and a JSON request body is parsed at most once, and only when a template reads `request.json`.
public struct TemplateContext<Generator: RandomNumberGenerator> {
    public let request: HTTPRequest
    public let parameters: PathParameters
    /// Seconds since 1970, UTC: what `now` prints.
    public let now: Int
    /// Milliseconds since 1970, UTC: what WireMock's `now` helper formats.
    public let nowMilliseconds: Int64
    public var generator: Generator
    /// What the renders of this response may cost together (its header values and its body).
    public let budget: TemplateBudget
    /// Set when a render ran over the budget; the output is then incomplete, and not to be sent.
    public private(set) var exceeded: TemplateBudget.Exceeded?
    private var stepsLeft: Int
    private var parsedJSON: JSONValue??
    private var graphQLOperation: JSONValue??
    private var uuidBytes: [UInt8]?

    public init(
        request: HTTPRequest, parameters: PathParameters = PathParameters(), now: Date = Date(), generator: Generator,
        budget: TemplateBudget = TemplateBudget()
    ) {
        self.request = request
        self.parameters = parameters
        self.now = Int(now.timeIntervalSince1970.rounded(.down))
        nowMilliseconds = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        self.generator = generator
        self.budget = budget
        stepsLeft = budget.maximumSteps
    }

    /// Takes `steps` from the budget and checks the output's size; false once the render must stop.
    @inline(__always)
    mutating func spend(_ steps: Int, outputBytes: Int) -> Bool {
        guard exceeded == nil else { return false }
        stepsLeft -= steps
        if stepsLeft < 0 {
            exceeded = .steps(limit: budget.maximumSteps)
            return false
        }
        if outputBytes > budget.maximumBytes {
            exceeded = .bytes(limit: budget.maximumBytes)
            return false
        }
        return true
    }

    /// Whether `count` more bytes would still fit; records the overrun when not.
    mutating func fits(_ count: Int, after outputBytes: Int) -> Bool {
        guard exceeded == nil else { return false }
        if outputBytes + count > budget.maximumBytes {
            exceeded = .bytes(limit: budget.maximumBytes)
            return false
        }
        return true
    }

    /// The request body as JSON, parsed on first use; nil when it is not JSON.
    mutating func json() -> JSONValue? {
        if let parsedJSON { return parsedJSON }
        let parsed = JSONBodyParser.parse(request.body)
        parsedJSON = .some(parsed)
        return parsed
    }

    /// The request's GraphQL operation as `{operationName, query, variables}`, read on first use; nil when the
    /// request carries none (or a batch, whose operations are answered one by one).
    mutating func graphQL() -> JSONValue? {
        if let graphQLOperation { return graphQLOperation }
        var operation: JSONValue?
        if case .single(let single)? = GraphQLRequest(request) { operation = single.json }
        graphQLOperation = .some(operation)
        return operation
    }

    /// The response's UUID (version 4, lower case), made on first use.
    mutating func uuid() -> [UInt8] {
        if let uuidBytes { return uuidBytes }
        let made = TemplateRenderer.uuid(high: generator.next(), low: generator.next())
        uuidBytes = made
        return made
    }
}

extension TemplateContext where Generator == SystemRandomNumberGenerator {
    public init(
        request: HTTPRequest, parameters: PathParameters = PathParameters(), now: Date = Date(),
        budget: TemplateBudget = TemplateBudget()
    ) {
        self.init(request: request, parameters: parameters, now: now, generator: SystemRandomNumberGenerator(), budget: budget)
    }
}
