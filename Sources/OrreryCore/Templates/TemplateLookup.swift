/// A name used in a template, resolved when the template compiles so that rendering does no name handling.
enum TemplateLookup: Sendable {
    /// A name of the context every template has: `request.path`, `params.id`, `now`, ...
    case root(RootLookup)
    /// A name inside a section: looked up on the section items (innermost first) and, when no item has it, as
    /// `fallback` at the root (Mustache's context stack).
    case contextual([String], fallback: RootLookup?)
    /// `{{.}}`: the current section item.
    case current
}

/// A name of the template context, resolved against the request directly.
enum RootLookup: Sendable {
    case method
    case path
    /// Every path segment, as a list (sections iterate it).
    case pathSegments
    /// One path segment, from 0: the first one after the leading `/`.
    case pathSegment(Int)
    /// A query parameter's first value.
    case query(String)
    /// A request header's first value, whatever the case of its name.
    case header(String)
    /// A query parameter's value at a position (WireMock's `request.query.id.[1]`).
    case queryValue(String, Int)
    /// A request header's value at a position.
    case headerValue(String, Int)
    /// A cookie's value, from the `Cookie` header.
    case cookie(String)
    /// The path and query as the request line had them (WireMock's `request.url`).
    case url
    /// `http://` and the `Host` header (WireMock's `request.baseUrl`).
    case baseUrl
    /// The request body as text.
    case body
    /// A member of the request's JSON body; an empty path is the whole body.
    case json([String])
    /// A path parameter, by its position in the stub's path.
    case parameter(Int)
    /// `graphql.operationName`, `graphql.query`, `graphql.variables.NAME`: the request's GraphQL operation.
    case graphQL([String])
    case now
    case uuid
}

/// What a template may look up, as far as loading knows: the path parameters of the stub.
public struct TemplateScope: Sendable {
    public var parameterNames: [String]
    /// A WebSocket message's template: `message.text` and `message.json` name the client's message.
    public var hasMessage = false

    public init(parameterNames: [String] = []) {
        self.parameterNames = parameterNames
    }

    static let roots = ["request", "params", "now", "uuid", "graphql"]
    static let requestFields = ["method", "path", "pathSegments", "query", "headers", "body", "json"]
    static let graphQLFields = ["operationName", "query", "variables"]

    /// Every name a template may start with, for "did you mean" hints on a misspelt one.
    var knownNames: [String] {
        Self.requestFields.map { "request.\($0)" } + parameterNames.map { "params.\($0)" } + ["now", "uuid"]
            + Self.graphQLFields.map { "graphql.\($0)" }
    }

    /// Resolves a dotted name of the root context, or says what is wrong with it.
    func rootLookup(_ components: [String]) -> Result<RootLookup, TemplateNameError> {
        guard let root = components.first else { return .failure(.init("an empty name")) }
        let name = components.joined(separator: ".")
        let rest = Array(components.dropFirst())
        switch root {
        case "request":
            guard let field = rest.first else {
                return .failure(.init("'request' needs a field, such as request.path (\(Self.requestFields.joined(separator: ", ")))"))
            }
            let below = Array(rest.dropFirst())
            func alone(_ lookup: RootLookup) -> Result<RootLookup, TemplateNameError> {
                below.isEmpty ? .success(lookup) : .failure(.init("'request.\(field)' is text and has no field '\(below.joined(separator: "."))'"))
            }
            switch field {
            case "method": return alone(.method)
            case "path": return alone(.path)
            case "body": return alone(.body)
            case "pathSegments":
                guard let position = below.first else { return .success(.pathSegments) }
                guard below.count == 1, let index = Int(position), index >= 0 else {
                    return .failure(.init("'\(name)': a path segment is chosen by its number from 0, as in request.pathSegments.0"))
                }
                return .success(.pathSegment(index))
            case "query", "headers":
                guard !below.isEmpty else {
                    return .failure(.init("'\(name)' needs a name, as in request.\(field).\(field == "query" ? "page" : "user-agent")"))
                }
                // Query and header names may hold dots of their own; they have no fields, so the rest is the name.
                let key = below.joined(separator: ".")
                return .success(field == "query" ? .query(key) : .header(key))
            case "json":
                return .success(.json(below))
            default:
                let hint = Suggestion.closest(to: field, in: Self.requestFields).map {
                    "; did you mean '\((["request", $0] + below).joined(separator: "."))'?"
                } ?? ""
                return .failure(.init("unknown name '\(name)'\(hint)"))
            }
        case "message" where hasMessage:
            // The message stands where a request's body would: `message.text` is it as text.
            switch rest.first {
            case "text" where rest.count == 1: return .success(.body)
            case "json": return .success(.json(Array(rest.dropFirst())))
            default: return .failure(.init("'\(name)': a message has 'message.text' and 'message.json'"))
            }
        case "params":
            guard rest.count == 1, let parameter = rest.first else {
                return .failure(.init("'\(name)': a path parameter is named as params.NAME"))
            }
            if let index = parameterNames.firstIndex(of: parameter) { return .success(.parameter(index)) }
            guard !parameterNames.isEmpty else {
                return .failure(.init("unknown name '\(name)': the stub's path has no parameters (write one as /users/{id})"))
            }
            let hint = Suggestion.closest(to: parameter, in: parameterNames).map { "; did you mean 'params.\($0)'?" } ?? ""
            return .failure(.init("unknown path parameter '\(name)'\(hint) (the path has \(parameterNames.map { "{\($0)}" }.joined(separator: ", ")))"))
        case "graphql":
            guard let field = rest.first, Self.graphQLFields.contains(field) else {
                let hint =
                    rest.first.flatMap { Suggestion.closest(to: $0, in: Self.graphQLFields) }.map {
                        "; did you mean 'graphql.\($0)'?"
                    } ?? ""
                return .failure(
                    .init(
                        "'\(name)': the GraphQL operation has \(Self.graphQLFields.map { "graphql.\($0)" }.joined(separator: ", "))\(hint)"
                    ))
            }
            guard field == "variables" || rest.count == 1 else {
                return .failure(
                    .init("'graphql.\(field)' is text and has no field '\(rest.dropFirst().joined(separator: "."))'"))
            }
            return .success(.graphQL(rest))
        case "now", "uuid":
            guard rest.isEmpty else { return .failure(.init("'\(root)' has no field '\(rest.joined(separator: "."))'")) }
            return .success(root == "now" ? .now : .uuid)
        default:
            return .failure(.init("unknown name '\(name)'\(hint(forUnknown: components))"))
        }
    }

    /// `; did you mean 'request.path'?` for `reqest.path`: the closest known name to the first one or two parts.
    private func hint(forUnknown components: [String]) -> String {
        let known = knownNames
        if components.count > 1 {
            let two = components.prefix(2).joined(separator: ".")
            if let match = Suggestion.closest(to: two, in: known) {
                return "; did you mean '\(([match] + components.dropFirst(2)).joined(separator: "."))'?"
            }
        }
        if let root = components.first, let match = Suggestion.closest(to: root, in: Self.roots) {
            return "; did you mean '\(([match] + components.dropFirst()).joined(separator: "."))'?"
        }
        return " (names start with request, params, graphql, now or uuid)"
    }
}

/// Why a name in a template cannot be resolved.
struct TemplateNameError: Error {
    var message: String

    init(_ message: String) {
        self.message = message
    }
}
