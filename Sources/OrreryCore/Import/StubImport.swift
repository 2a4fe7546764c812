/// What an import from another tool's format made: stub files to write, and what it could not convert.
///
/// The converters read a parsed document and never touch the file system; `orrery import` writes the files.
public struct StubImport: Sendable {
    /// One entry of the input that was left out, or imported with a difference, named by its place in the input.
    public struct Problem: Sendable, CustomStringConvertible {
        public var place: String
        public var reason: String

        public var description: String { "\(place): \(reason)" }
    }

    /// What the input's entries are called (`pairs`, `examples`, `expectations`), for `Imported N of M pairs`.
    public var unit: String
    public var files: [ImportedFile] = []
    public var entryCount = 0
    public var importedCount = 0
    /// Entries that were not imported, and why.
    public var skipped: [Problem] = []
    /// Entries that were imported but answer differently from the source in some way, and how.
    public var warnings: [Problem] = []

    public init(unit: String) {
        self.unit = unit
    }

    mutating func skip(_ place: String, _ reason: String) {
        skipped.append(Problem(place: place, reason: reason))
    }

    mutating func warn(_ place: String, _ reason: String) {
        warnings.append(Problem(place: place, reason: reason))
    }
}
