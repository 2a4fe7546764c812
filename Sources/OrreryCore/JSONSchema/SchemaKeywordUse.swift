/// A keyword at a place in a schema (reported when Orrery does not check it).
public struct SchemaKeywordUse: Sendable, Equatable, CustomStringConvertible {
    public var keyword: String
    public var location: String

    public var description: String { "\(location): '\(keyword)' is not checked" }
}
