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
    public var generator: Generator
    private var parsedJSON: JSONValue??
    private var uuidBytes: [UInt8]?

    public init(request: HTTPRequest, parameters: PathParameters = PathParameters(), now: Date = Date(), generator: Generator) {
        self.request = request
        self.parameters = parameters
        self.now = Int(now.timeIntervalSince1970.rounded(.down))
        self.generator = generator
    }

    /// The request body as JSON, parsed on first use; nil when it is not JSON.
    mutating func json() -> JSONValue? {
        if let parsedJSON { return parsedJSON }
        let parsed = JSONBodyParser.parse(request.body)
        parsedJSON = .some(parsed)
        return parsed
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
    public init(request: HTTPRequest, parameters: PathParameters = PathParameters(), now: Date = Date()) {
        self.init(request: request, parameters: parameters, now: now, generator: SystemRandomNumberGenerator())
    }
}
