import Foundation

// The Nocilla DSL, as Astro's tests wrote it, building stubs for Orrery's admin API:
//
//     try await stubRequest(.get, "https://api.example.com/users/1")
//         .withHeaders(["Accept": "application/json"])
//         .andReturn(.code200OK)
//         .withJSON(["id": 1, "name": "Ada"])
//         .install(on: orrery)

/// Starts a stub for requests to `url`: `https://host/path?query` requires that host, `/path?query` matches on any
/// host; path and query are compared exactly (the parameters in any order).
public func stubRequest(_ method: HTTPMethod, _ url: String) -> StubRequestDSL {
    StubRequestDSL(RequestPattern(method, url))
}

/// Starts a stub for requests to `path`, whatever their query and host.
public func stubRequest(_ method: HTTPMethod, path: String) -> StubRequestDSL {
    StubRequestDSL(RequestPattern(method, path: path))
}

/// Starts a stub for requests whose path, `?` and query match a regex (`^/users/[0-9]+$`).
public func stubRequest(_ method: HTTPMethod, pattern regex: String) -> StubRequestDSL {
    StubRequestDSL(RequestPattern(method, pattern: regex))
}

/// Starts a stub for every request with `method` (every request, when `.any`), or those whose path, `?` and query
/// match `regex`: Nocilla's `stubRequest(nil, regex)`.
public func stubAnyRequest(_ method: HTTPMethod = .any, regex: String? = nil) -> StubRequestDSL {
    StubRequestDSL(regex.map { RequestPattern(method, pattern: $0) } ?? RequestPattern(method))
}

/// The request half of a stub: what a request must look like. `andReturn` moves on to the response.
///
/// Installed as it is, the stub answers with an empty 200.
public struct StubRequestDSL: StubConvertible {
    public private(set) var stubDefinition: StubDefinition

    /// A stub for requests that match `pattern`.
    public init(_ pattern: RequestPattern) {
        stubDefinition = StubDefinition(request: pattern)
    }

    private func request(_ change: (RequestPattern) -> RequestPattern) -> StubRequestDSL {
        var copy = self
        copy.stubDefinition.request = change(stubDefinition.request)
        return copy
    }

    /// Requires these request headers, each with exactly this value.
    public func withHeaders(_ headers: [String: String]) -> StubRequestDSL { request { $0.withHeaders(headers) } }
    /// Requires a request header that meets a condition (`.contains`, `.matches`, `.absent`, ...).
    public func withHeader(_ name: String, _ matcher: ValueMatcher) -> StubRequestDSL {
        request { $0.withHeader(name, matcher) }
    }
    /// Requires these query parameters, each with exactly this value.
    public func withQuery(_ parameters: [String: String]) -> StubRequestDSL { request { $0.withQuery(parameters) } }
    /// Requires a query parameter that meets a condition.
    public func withQueryParameter(_ name: String, _ matcher: ValueMatcher) -> StubRequestDSL {
        request { $0.withQueryParameter(name, matcher) }
    }
    /// Requires exactly this request body.
    public func withBody(_ text: String) -> StubRequestDSL { request { $0.withBody(text) } }
    /// Requires exactly these request body bytes.
    public func withBody(_ data: Data) -> StubRequestDSL { request { $0.withBody(data) } }
    /// Requires a request body that meets a condition (`.json`, `.contains`, `.matches`, `.form`, ...).
    public func withBody(_ matcher: BodyMatcher) -> StubRequestDSL { request { $0.withBody(matcher) } }
    /// Requires a JSON request body equal to this value, key order ignored.
    public func withJSON(_ value: JSON) -> StubRequestDSL { request { $0.withJSON(value) } }
    /// Requires this host (`api.example.com`, or with a port).
    public func withHost(_ host: String) -> StubRequestDSL { request { $0.withHost(host) } }

    /// Moves on to the response, with this status.
    public func andReturn(_ status: HTTPStatus) -> StubResponseDSL {
        StubResponseDSL(stubDefinition).withStatus(status)
    }

    /// Moves on to the response, with this status.
    public func andReturn(_ status: Int) -> StubResponseDSL {
        andReturn(HTTPStatus(status))
    }

    /// Answers by failing at the connection (Nocilla's `andFailWithError`).
    public func andFail(with fault: Fault) -> StubResponseDSL {
        StubResponseDSL(stubDefinition).withFault(fault)
    }

    /// Names the stub, for logs, misses and the admin API.
    public func named(_ name: String) -> StubRequestDSL { stub { $0.name = name } }
    /// Gives the stub an id of your choosing, to replace or remove it by.
    public func withID(_ id: String) -> StubRequestDSL { stub { $0.id = id } }
    /// Gives the stub a priority: lower wins, and a stub with one beats a stub without.
    public func withPriority(_ priority: Int) -> StubRequestDSL { stub { $0.priority = priority } }
    /// Makes the stub a step of a scenario: it matches only while the scenario is in `requiredState` (when given)
    /// and moves it to `newState` (when given) when it answers. Every scenario starts in `Started`.
    public func inScenario(
        _ name: String, whenState requiredState: String? = nil, willSetStateTo newState: String? = nil
    ) -> StubRequestDSL {
        stub { $0.scenario = ScenarioStep(name: name, requiredState: requiredState, newState: newState) }
    }

    private func stub(_ change: (inout StubDefinition) -> Void) -> StubRequestDSL {
        var copy = self
        change(&copy.stubDefinition)
        return copy
    }
}

/// The response half of a stub, after `andReturn`: what the daemon answers.
public struct StubResponseDSL: StubConvertible {
    public private(set) var stubDefinition: StubDefinition

    init(_ definition: StubDefinition) {
        stubDefinition = definition
    }

    private func response(_ change: (inout ResponseDefinition) -> Void) -> StubResponseDSL {
        var copy = self
        change(&copy.stubDefinition.response)
        return copy
    }

    /// Answers with this status.
    public func withStatus(_ status: HTTPStatus) -> StubResponseDSL { response { $0.status = status } }
    /// Answers with this status.
    public func withStatus(_ status: Int) -> StubResponseDSL { withStatus(HTTPStatus(status)) }

    /// Adds these response headers.
    public func withHeaders(_ headers: [String: String]) -> StubResponseDSL {
        response { response in
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { response.headers.append((name, value)) }
        }
    }

    /// Adds a response header; adding the same name again sends the header more than once.
    public func withHeader(_ name: String, _ value: String) -> StubResponseDSL {
        response { $0.headers.append((name, value)) }
    }

    /// Answers with this body text.
    public func withBody(_ text: String) -> StubResponseDSL { response { $0.body = .text(text) } }

    /// Answers with these bytes, which must be UTF-8 text: the stub format has no binary body inline (use
    /// `withBodyFile` for one).
    public func withBody(_ data: Data) -> StubResponseDSL {
        guard let text = String(data: data, encoding: .utf8) else {
            return response {
                $0.problems.append(
                    "a response body of \(data.count) bytes is not UTF-8 text; serve it with withBodyFile")
            }
        }
        return withBody(text)
    }

    /// Answers with this JSON body (and `Content-Type: application/json` unless set), keys in the order written.
    public func withJSON(_ value: JSON) -> StubResponseDSL { response { $0.body = .json(value) } }

    /// Answers with a value encoded as JSON by `encoder`.
    public func withJSON(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) -> StubResponseDSL {
        do {
            return withJSON(try JSON(encoding: value, encoder: encoder))
        } catch {
            return response { $0.problems.append("\(type(of: value)) could not be encoded as JSON: \(error)") }
        }
    }

    /// Answers with a file's contents; the path is relative to the daemon's stubs folder and must stay inside it.
    public func withBodyFile(_ path: String) -> StubResponseDSL { response { $0.body = .file(path) } }

    /// Waits before answering; other requests are not held up.
    public func withDelay(_ delay: Delay) -> StubResponseDSL { response { $0.delay = delay } }

    /// Waits this many milliseconds before answering.
    public func withDelay(_ milliseconds: Int) -> StubResponseDSL { withDelay(.milliseconds(milliseconds)) }

    /// Sends the body no faster than this.
    public func withThrottle(bytesPerSecond: Int) -> StubResponseDSL { response { $0.bytesPerSecond = bytesPerSecond } }

    /// Fails at the connection instead of answering.
    public func withFault(_ fault: Fault) -> StubResponseDSL { response { $0.fault = fault } }

    /// Renders the body and header values as Mustache templates (`{{request.path}}`, `{{params.id}}`, ...).
    public func withTemplate(_ isTemplate: Bool = true) -> StubResponseDSL { response { $0.isTemplate = isTemplate } }

    /// A key of the `response` section this DSL has no method for, written as given.
    public func withField(_ key: String, _ value: JSON) -> StubResponseDSL {
        response { response in
            response.extra.removeAll { $0.key == key }
            response.extra.append((key, value))
        }
    }

    /// Names the stub, for logs, misses and the admin API.
    public func named(_ name: String) -> StubResponseDSL { stub { $0.name = name } }
    /// Gives the stub an id of your choosing, to replace or remove it by.
    public func withID(_ id: String) -> StubResponseDSL { stub { $0.id = id } }
    /// Gives the stub a priority: lower wins, and a stub with one beats a stub without.
    public func withPriority(_ priority: Int) -> StubResponseDSL { stub { $0.priority = priority } }
    /// Makes the stub a step of a scenario: it matches only while the scenario is in `requiredState` (when given)
    /// and moves it to `newState` (when given) when it answers. Every scenario starts in `Started`.
    public func inScenario(
        _ name: String, whenState requiredState: String? = nil, willSetStateTo newState: String? = nil
    ) -> StubResponseDSL {
        stub { $0.scenario = ScenarioStep(name: name, requiredState: requiredState, newState: newState) }
    }

    private func stub(_ change: (inout StubDefinition) -> Void) -> StubResponseDSL {
        var copy = self
        change(&copy.stubDefinition)
        return copy
    }
}
