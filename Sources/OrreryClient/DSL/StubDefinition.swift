import Foundation

/// Anything that makes a stub: the DSL's `stubRequest(...)` chains and ``StubDefinition`` itself.
public protocol StubConvertible: Sendable {
    /// The stub, ready to be sent to the admin API.
    var stubDefinition: StubDefinition { get }
}

extension StubConvertible {
    /// Adds the stub to the daemon (or the client's session) and returns its id.
    @discardableResult
    public func install(on client: OrreryClient) async throws -> String {
        try await client.addStub(self)
    }
}

/// One stub in the stub-file format: a request pattern, a response, and the stub's own keys.
///
/// The DSL builds these (`stubRequest(.get, "/users/1").andReturn(.code200OK)`); ``json`` is what the admin API
/// receives.
public struct StubDefinition: StubConvertible, CustomStringConvertible {
    /// What a request must look like.
    public var request: RequestPattern
    var response = ResponseDefinition()
    /// Shown in logs, misses and the admin API.
    public var name: String?
    /// The id to read, replace or remove it by; the daemon makes one when it is nil.
    public var id: String?
    /// Lower wins; a stub with a priority beats one without.
    public var priority: Int?
    var scenario: ScenarioStep?
    /// Stub keys this type has no property for, written as given.
    private(set) var extra: [(key: String, value: JSON)] = []

    /// A stub that answers `request` with an empty 200 until told otherwise.
    public init(request: RequestPattern) {
        self.request = request
    }

    public var stubDefinition: StubDefinition { self }

    /// What could not be turned into JSON; installing the stub fails with these.
    var problems: [String] { request.problems + response.problems }

    /// The stub as the admin API takes it: `{"request": {...}, "response": {...}}` and the stub's own keys.
    public var json: JSON {
        var members: [(key: String, value: JSON)] = []
        if let id { members.append(("id", .string(id))) }
        if let name { members.append(("name", .string(name))) }
        if let priority { members.append(("priority", .number(Double(priority)))) }
        if let scenario {
            members.append(("scenario", .string(scenario.name)))
            if let required = scenario.requiredState { members.append(("requiredState", .string(required))) }
            if let new = scenario.newState { members.append(("newState", .string(new))) }
        }
        members.append(("request", request.json))
        members.append(("response", response.json))
        var json = JSON.object(members)
        for (key, value) in extra { json = json.setting(key, value) }
        return json
    }

    public var description: String { json.encoded }

    /// A key of the stub itself that this type has no property for, written as given.
    public mutating func setField(_ key: String, _ value: JSON) {
        extra.removeAll { $0.key == key }
        extra.append((key, value))
    }
}

/// A stub's place in a scenario: the state it needs and the state it moves the scenario to.
struct ScenarioStep: Sendable {
    var name: String
    var requiredState: String?
    var newState: String?
}

/// A stub's `response` section.
struct ResponseDefinition: Sendable {
    enum Body: Sendable {
        case text(String)
        case json(JSON)
        case file(String)
    }

    var status: HTTPStatus?
    var headers: [(name: String, value: String)] = []
    var body: Body?
    var delay: Delay?
    var fault: Fault?
    var isTemplate = false
    var bytesPerSecond: Int?
    var extra: [(key: String, value: JSON)] = []
    var problems: [String] = []

    var json: JSON {
        var members: [(key: String, value: JSON)] = []
        if let status { members.append(("status", .number(Double(status.rawValue)))) }
        if !headers.isEmpty {
            // A name given more than once becomes a list: a repeated header, in the order given.
            var names: [String] = []
            var values: [String: [String]] = [:]
            for (name, value) in headers {
                if values[name] == nil { names.append(name) }
                values[name, default: []].append(value)
            }
            members.append(
                (
                    "headers",
                    .object(
                        names.map { name in
                            let list = values[name] ?? []
                            return (name, list.count == 1 ? .string(list[0]) : .array(list.map { .string($0) }))
                        })
                ))
        }
        switch body {
        case .text(let text): members.append(("body", .string(text)))
        case .json(let value): members.append(("json", value))
        case .file(let path): members.append(("bodyFile", .string(path)))
        case nil: break
        }
        if isTemplate { members.append(("template", true)) }
        if let delay { members.append(("delay", delay.json)) }
        if let bytesPerSecond { members.append(("throttle", ["bytesPerSecond": .number(Double(bytesPerSecond))])) }
        if let fault { members.append(("fault", .string(fault.rawValue))) }
        var json = JSON.object(members)
        for (key, value) in extra { json = json.setting(key, value) }
        return json
    }
}
