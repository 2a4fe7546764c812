/// What a request that breaks the spec gets (`--openapi-validate`).
public enum OpenAPIValidationMode: String, Sendable, CaseIterable {
    /// Not checked.
    case off
    /// Checked, answered all the same; the violations are journaled.
    case report
    /// Answered with the problem (`422`, `400`, `401`) instead.
    case enforce
}
