import Foundation
import OrreryCore

/// Answers requests from OpenAPI specs: the operation found through an index built once, the request checked
/// against it, and the answer chosen among those prepared at load (`Prefer: code=`, `example=`), or generated for
/// this request (`Prefer: dynamic=true`).
public final class OpenAPIMock: Sendable {
    public let specs: [OpenAPISpec]
    public let validation: OpenAPIValidationMode
    private let router: OpenAPIRouter
    /// By spec, then by operation, as the specs list them.
    private let prepared: [[PreparedOperation]]
    private let sources: [SchemaSource]

    public init(specs: [OpenAPISpec], validation: OpenAPIValidationMode = .enforce) {
        self.specs = specs
        self.validation = validation
        router = OpenAPIRouter(specs: specs)
        sources = specs.map { SchemaSource(documents: $0.documents) }
        prepared = zip(specs, sources).map { spec, source in
            spec.operations.map { PreparedOperation($0, spec: spec, source: source) }
        }
    }

    /// One line per spec for the start-up log: its file, title, operations and base path, and what it uses that
    /// is not checked.
    public var summary: [String] {
        specs.map { spec in
            let family = spec.version.hasPrefix("2") ? "Swagger" : "OpenAPI"
            var line =
                "OpenAPI \(spec.source): \(spec.title.isEmpty ? "(untitled)" : spec.title) (\(family) \(spec.version)), "
            line += "\(spec.operations.count) operation\(spec.operations.count == 1 ? "" : "s")"
            line += spec.basePath.isEmpty ? "" : " under \(spec.basePath)"
            if !spec.unsupportedKeywords.isEmpty {
                let uses = spec.unsupportedKeywords.prefix(10).map { "\($0.keyword) at \($0.location)" }
                line += "; not checked: " + uses.joined(separator: ", ")
                if spec.unsupportedKeywords.count > 10 { line += " and \(spec.unsupportedKeywords.count - 10) more" }
            }
            return line
        }
    }

    /// The answer to a request whose path one of the specs has; nil when none has it.
    public func answer(_ request: HTTPRequest) -> OpenAPIAnswer? {
        switch router.match(method: request.method, rawPath: Self.rawTarget(request), endsAtQuery: true) {
        case .noPath:
            return nil
        case .methodNotAllowed(let allowed):
            var problem = ProblemDetails(
                status: 405, title: "Method not allowed",
                detail:
                    "\(request.method) \(request.path) is not an operation of the spec; it has \(allowed.joined(separator: ", ")).",
                errors: [])
            problem.headers.add("Allow", allowed.joined(separator: ", "))
            return OpenAPIAnswer(problem.response, operationId: nil, source: specs.first?.source ?? "")
        case .operation(let route, let index, let pathValues):
            let operation = prepared[route.spec][index]
            var violations: [ContractViolation] = []
            let fields = OperationValidator.Fields(request.headers)
            if validation != .off {
                let verdict = operation.validator.check(request, pathValues: pathValues, fields: fields)
                if !verdict.isValid {
                    if validation == .enforce,
                        let problem = Self.problem(verdict, request: request, operation: operation)
                    {
                        return OpenAPIAnswer(
                            problem.response, operationId: operation.operationId, source: operation.source)
                    }
                    violations = verdict.violations
                    violations += verdict.missingCredentials.map {
                        ContractViolation(location: "security", pointer: "", message: "missing \($0.label)")
                    }
                }
            }
            var answer = respond(request, fields: fields, operation: operation, source: sources[route.spec])
            if !violations.isEmpty { answer.violations = violations }
            return answer
        }
    }

    /// Checks an exchange, whoever answered it (a stub, an upstream, a recording): the request against its
    /// operation, and the answer against the operation's responses. `body` is nil when it was not kept whole.
    public func check(_ request: HTTPRequest, status: Int, headers: HTTPHeaders, body: [UInt8]?) -> ExchangeCheck {
        guard
            case .operation(let route, let index, let pathValues) = router.match(
                method: request.method, rawPath: Self.rawTarget(request), endsAtQuery: true)
        else {
            let violation = ContractViolation(
                location: "path", pointer: "", message: "no operation of the spec has \(request.method) \(request.path)"
            )
            return ExchangeCheck(target: .undocumented, violations: [violation], isStatusUndocumented: false)
        }
        let validator = prepared[route.spec][index].validator
        let verdict = validator.check(request, pathValues: pathValues)
        var violations = verdict.violations
        violations += verdict.missingCredentials.map {
            ContractViolation(location: "security", pointer: "", message: "missing \($0.label)")
        }
        let answer = validator.check(status: status, headers: headers, body: body ?? [])
        let isStatusUndocumented = answer.contains { $0.location == "status" }
        violations += answer.map { violation in
            var violation = violation
            violation.location = "response." + violation.location
            return violation
        }
        return ExchangeCheck(
            target: .operation(spec: route.spec, index: index), violations: violations,
            isStatusUndocumented: isStatusUndocumented)
    }

    /// Checks a stub's answer against the spec: its route (a `{name}` segment of the stub's path stands for any
    /// value), its status, content type and body. Every problem, each with the schema's pointer where one applies.
    public func checkStub(method: String, path: String, status: Int, headers: HTTPHeaders, body: [UInt8]?)
        -> [ContractViolation]
    {
        let concrete = path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? "x" : String(segment)
        }.joined(separator: "/")
        switch router.match(method: method, rawPath: Substring(concrete)) {
        case .noPath:
            return [
                ContractViolation(
                    location: "path", pointer: "", message: "no operation of the spec has the path \(path)")
            ]
        case .methodNotAllowed(let allowed):
            return [
                ContractViolation(
                    location: "method", pointer: "",
                    message: "the spec has no \(method) \(path) (it has \(allowed.joined(separator: ", ")))")
            ]
        case .operation(let route, let index, _):
            return prepared[route.spec][index].validator.check(status: status, headers: headers, body: body ?? [])
        }
    }

    /// Each operation's answer without a `Prefer` header, by spec: what `orrery import openapi` writes.
    public var primaryAnswers: [[OpenAPIImport.Answer]] {
        zip(specs, prepared).map { spec, operations in
            operations.compactMap { operation -> OpenAPIImport.Answer? in
                let path = spec.basePath + operation.validator.operation.pathTemplate
                guard let index = operation.primary else { return nil }
                let status = operation.responses[index]
                let answer = Self.media(for: nil, in: status)?.answer ?? status.empty
                return OpenAPIImport.Answer(
                    name: operation.operationId, method: operation.validator.operation.method, path: path,
                    status: answer.status,
                    contentType: answer.headers.first(named: "Content-Type"), body: answer.body.bytes,
                    headers: answer.headers.entries.filter { !$0.name.equalsIgnoringASCIICase("Content-Type") }
                        .map { (name: $0.name, value: $0.value) })
            }
        }
    }

    /// The `404` for a request no spec has a path for (and no stub answered).
    public func notFound(_ request: HTTPRequest) -> OpenAPIAnswer {
        let problem = ProblemDetails(
            status: 404, title: "No such path",
            detail: "\(request.method) \(request.path): no stub matches, and no operation of the spec has this path.",
            errors: [])
        return OpenAPIAnswer(problem.response, operationId: nil, source: specs.first?.source ?? "")
    }

    private static func problem(
        _ verdict: OperationValidator.Verdict, request: HTTPRequest, operation: PreparedOperation
    )
        -> ProblemDetails?
    {
        let name = operation.operationId
        if !verdict.missingCredentials.isEmpty {
            var problem = ProblemDetails(
                status: 401, title: "Missing credentials",
                detail: "\(name) needs " + verdict.missingCredentials.map(\.label).joined(separator: " and ") + ".",
                errors: verdict.missingCredentials.map {
                    ContractViolation(location: "security", pointer: "", message: "missing \($0.label)")
                })
            for credential in verdict.missingCredentials {
                problem.headers.add("WWW-Authenticate", credential.challenge)
            }
            return problem
        }
        guard !verdict.violations.isEmpty else { return nil }
        let count = verdict.violations.count
        return ProblemDetails(
            status: verdict.isUnparseable ? 400 : 422,
            title: verdict.isUnparseable ? "Unreadable request" : "Invalid request",
            detail: "\(request.method) \(request.path) breaks \(name) in \(count) place\(count == 1 ? "" : "s").",
            errors: verdict.violations)
    }

    // MARK: - Choosing the answer

    private func respond(
        _ request: HTTPRequest, fields: OperationValidator.Fields, operation: PreparedOperation, source: SchemaSource
    ) -> OpenAPIAnswer {
        let prefer = Self.preferences(fields.prefer)
        var statusIndex = operation.primary
        if let wanted = prefer.code {
            guard let index = Self.status(wanted, in: operation.responses) else {
                let problem = ProblemDetails(
                    status: 422, title: "No such response",
                    detail:
                        "Prefer: code=\(wanted): \(operation.operationId) documents \(operation.responses.map(\.status).joined(separator: ", ")).",
                    errors: [])
                return OpenAPIAnswer(problem.response, operationId: operation.operationId, source: operation.source)
            }
            statusIndex = index
        }
        guard let statusIndex else {
            let empty = Response(status: 200, headers: HTTPHeaders(), body: Payload.empty)
            return OpenAPIAnswer(empty, operationId: operation.operationId, source: operation.source)
        }
        let status = operation.responses[statusIndex]
        let code = prefer.code.flatMap { status.status == String($0) ? nil : $0 } ?? status.code
        guard let media = Self.media(for: fields.accept, in: status) else {
            return code == status.code ? status.empty : Self.recoded(status.empty, code)
        }
        var answer = media.answer
        if let name = prefer.example, let example = media.examples.first(where: { $0.name == name }) {
            answer = example.answer
        } else if prefer.isDynamic, let location = media.schemaLocation {
            var generator = BodyGenerator(
                source: source, direction: .response,
                random: SplitMix64(seed: SplitMix64.seed(request.method + " " + request.target)))
            answer = PreparedOperation.answer(
                code: code, contentType: media.contentType, value: generator.value(at: location),
                operationId: operation.operationId, source: operation.source, headers: status.headers)
        }
        return answer.status == code ? answer : Self.recoded(answer, code)
    }

    private static func recoded(_ answer: OpenAPIAnswer, _ code: Int) -> OpenAPIAnswer {
        OpenAPIAnswer(
            Response(status: HTTPStatus(code), headers: answer.headers, body: answer.body),
            operationId: answer.operationId,
            source: answer.source)
    }

    private static func status(_ code: Int, in responses: [PreparedOperation.Status]) -> Int? {
        let text = String(code)
        let range = String(code / 100) + "XX"
        return responses.firstIndex { $0.status == text } ?? responses.firstIndex { $0.status.uppercased() == range }
            ?? responses.firstIndex { $0.status == "default" }
    }

    /// The first media type the client accepts, JSON first when it accepts anything.
    private static func media(for accept: String?, in status: PreparedOperation.Status) -> PreparedOperation.Media? {
        let media = status.media
        guard !media.isEmpty else { return nil }
        // Most clients accept anything: JSON first, as decided at load.
        guard let accept, accept != "*/*" else { return status.anyMedia }
        let accepted = accept.split(separator: ",").map { OperationValidator.mediaType(String($0)) }
        if accepted.contains("*/*") || accepted.isEmpty {
            return status.anyMedia
        }
        for type in accepted {
            let family = type.hasSuffix("/*") ? String(type.dropLast(1)) : nil
            if let found = media.first(where: {
                let own = OperationValidator.mediaType($0.contentType)
                return own == type || (family.map { own.hasPrefix($0) } ?? false)
            }) {
                return found
            }
        }
        return media.first
    }

    struct Preferences {
        var code: Int?
        var example: String?
        var isDynamic = false
    }

    /// Prism's `Prefer` header: `code=404`, `example=NAME`, `dynamic=true`, separated by commas or semicolons.
    static func preferences(_ values: [String]) -> Preferences {
        var preferences = Preferences()
        for header in values {
            for token in header.split(whereSeparator: { $0 == "," || $0 == ";" }) {
                let parts = token.split(separator: "=", maxSplits: 1).map(\.trimmingSpaces)
                guard parts.count == 2 else { continue }
                let value = String(parts[1].drop { $0 == "\"" }.reversed().drop { $0 == "\"" }.reversed())
                switch parts[0].lowercased() {
                case "code": preferences.code = Int(value)
                case "example": preferences.example = value
                case "dynamic": preferences.isDynamic = value.lowercased() == "true"
                default: break
                }
            }
        }
        return preferences
    }

    /// The target as sent, in origin form, still percent-encoded (a path parameter may hold an encoded `/`): its
    /// path ends at its first `?` or `#`, where the router stops.
    static func rawTarget(_ request: HTTPRequest) -> Substring {
        Substring(request.isAbsoluteForm ? request.originForm : request.target)
    }
}
