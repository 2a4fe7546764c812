// The GraphQL operation an exchange carried, as the journal and the dashboard name it.
extension JournalEntry {
    /// The operation's name (a batch's names joined with commas), read when the entry is read, never on the
    /// request path; nil for a request that carries no GraphQL or a query without a name.
    public var graphQLOperationName: String? {
        guard GraphQLRequest.mayBeIn(request) else { return nil }
        return GraphQLRequest(request)?.operationNames
    }
}
