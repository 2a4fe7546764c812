/// The compiled nodes that validators compiled together share; immutable once built.
final class SchemaProgram: Sendable {
    let nodes: [SchemaNode]

    init(nodes: [SchemaNode]) {
        self.nodes = nodes
    }
}
