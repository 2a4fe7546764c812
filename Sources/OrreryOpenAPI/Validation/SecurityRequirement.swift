import OrreryCore

/// The credentials an operation's `security` asks for, read at load: a request must carry every credential of at
/// least one alternative. Only presence is checked, never the value.
struct SecurityRequirement: Sendable {
    /// One credential, where the request carries it.
    enum Credential: Sendable, Equatable {
        case header(String)
        case query(String)
        case cookie(String)
        /// `Authorization: <scheme> ...` (`Bearer`, `Basic`).
        case authorization(String)

        var challenge: String {
            switch self {
            case .authorization(let scheme): scheme == "Basic" ? "Basic realm=\"orrery\"" : scheme
            case .header(let name): "ApiKey header=\"\(name)\""
            case .query(let name): "ApiKey query=\"\(name)\""
            case .cookie(let name): "ApiKey cookie=\"\(name)\""
            }
        }

        var label: String {
            switch self {
            case .authorization(let scheme): "an Authorization header with \(scheme) credentials"
            case .header(let name): "the header '\(name)'"
            case .query(let name): "the query parameter '\(name)'"
            case .cookie(let name): "the cookie '\(name)'"
            }
        }
    }

    /// Alternatives, each a list of credentials that must all be present; empty when the operation is open.
    let alternatives: [[Credential]]

    init(operation: JSONValue?, document: JSONValue, source: SchemaSource, documentURI: String) {
        let requirements = operation?["security"] ?? document["security"]
        guard case .array(let list)? = requirements else {
            alternatives = []
            return
        }
        let schemes = document["components"]?["securitySchemes"]?.objectMembers ?? []
        var alternatives: [[Credential]] = []
        for requirement in list {
            var credentials: [Credential] = []
            for (name, _) in requirement.objectMembers ?? [] {
                guard var scheme = schemes.first(where: { $0.0 == name })?.1 else { continue }
                if case .string(let reference)? = scheme["$ref"],
                    let (resolved, _) = source.schema(at: documentURI + String(reference.drop { $0 != "#" }))
                {
                    scheme = resolved
                }
                if let credential = Self.credential(scheme) { credentials.append(credential) }
            }
            // An empty requirement (`{}`) makes the credentials optional.
            if credentials.isEmpty {
                self.alternatives = []
                return
            }
            alternatives.append(credentials)
        }
        self.alternatives = alternatives
    }

    private static func credential(_ scheme: JSONValue) -> Credential? {
        switch scheme["type"]?.stringValue {
        case "apiKey":
            guard let name = scheme["name"]?.stringValue else { return nil }
            switch scheme["in"]?.stringValue {
            case "query": return .query(name)
            case "cookie": return .cookie(name)
            default: return .header(name)
            }
        case "http":
            return .authorization(scheme["scheme"]?.stringValue?.lowercased() == "basic" ? "Basic" : "Bearer")
        case "oauth2", "openIdConnect":
            return .authorization("Bearer")
        default:
            return nil
        }
    }

    /// The credentials missing from the closest alternative; empty when one alternative is complete.
    func missing(rawQuery: Substring, headers: HTTPHeaders, cookies: [(String, String)]) -> [Credential] {
        guard !alternatives.isEmpty else { return [] }
        var fewest: [Credential]?
        for alternative in alternatives {
            let missing = alternative.filter { credential in
                switch credential {
                case .header(let name): headers.first(named: name) == nil
                case .query(let name): PercentDecoding.firstQueryValue(named: name, in: rawQuery) == nil
                case .cookie(let name): !cookies.contains { $0.0 == name }
                case .authorization(let scheme):
                    !(headers.first(named: "Authorization")?.lowercased().hasPrefix(scheme.lowercased() + " ") ?? false)
                }
            }
            if missing.isEmpty { return [] }
            if fewest == nil || missing.count < (fewest?.count ?? 0) { fewest = missing }
        }
        return fewest ?? []
    }
}
