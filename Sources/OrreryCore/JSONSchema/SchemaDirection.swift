/// Which way a body travels, for `readOnly` (never sent in a request) and `writeOnly` (never sent in a response).
public enum SchemaDirection: Sendable, Equatable {
    case request
    case response
}
