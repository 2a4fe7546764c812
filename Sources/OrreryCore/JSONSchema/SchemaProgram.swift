/// The compiled nodes that validators compiled together share; immutable once built.
final class SchemaProgram: Sendable {
    let nodes: [SchemaNode]
    /// The nodes as a body's bytes are checked against them.
    let byteShapes: SchemaByteShapes

    init(nodes: [SchemaNode]) {
        self.nodes = nodes
        byteShapes = SchemaByteShapes(nodes: nodes)
    }
}
