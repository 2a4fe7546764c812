/// Simple (one scalar to one scalar) case folding, for `(?i)`.
///
/// A scalar folds to the lowercase of its uppercase, where each is a single scalar: `K`, `k` and KELVIN SIGN all
/// fold to `k`, `ſ` to `s`, `ς` to `σ`. Mappings to several scalars (`ß` to `SS`) are not followed, as in ICU's
/// simple case folding.
enum CaseFolding {
    static func fold(_ value: UInt32) -> UInt32 {
        if value < 0x80 { return value >= 0x41 && value <= 0x5A ? value | 0x20 : value }
        guard let scalar = Unicode.Scalar(value) else { return value }
        let upper = single(scalar.properties.uppercaseMapping) ?? scalar
        return (single(upper.properties.lowercaseMapping) ?? upper).value
    }

    /// Whether the scalar has another case at all: a literal without one is matched exactly, which is faster and
    /// lets it serve as a literal prefix.
    static func hasCase(_ value: UInt32) -> Bool {
        if value < 0x80 { return (value | 0x20) >= 0x61 && (value | 0x20) <= 0x7A }
        guard let scalar = Unicode.Scalar(value) else { return false }
        return fold(value) != value || single(scalar.properties.uppercaseMapping) != scalar
            || single(scalar.properties.lowercaseMapping) != scalar
    }

    private static func single(_ text: String) -> Unicode.Scalar? {
        var scalars = text.unicodeScalars.makeIterator()
        guard let first = scalars.next(), scalars.next() == nil else { return nil }
        return first
    }
}
