/// Byte searches over a string's UTF-8 for the request path: over the contiguous storage a native string always
/// has, where the generic `firstIndex(of:)` steps a `String.Index` (and checks it) for every byte.
extension Substring.UTF8View {
    /// The index of the first `byte`; nil when there is none.
    package func firstIndex(ofByte byte: UInt8) -> Index? {
        if let offset = withContiguousStorageIfAvailable({ $0.firstIndex(of: byte) }) {
            return offset.map { index(startIndex, offsetBy: $0) }
        }
        return firstIndex(of: byte)
    }

    /// The index of the first `byte` or `other`; nil when there is neither.
    package func firstIndex(ofByte byte: UInt8, or other: UInt8) -> Index? {
        if let offset = withContiguousStorageIfAvailable({ $0.firstIndex { $0 == byte || $0 == other } }) {
            return offset.map { index(startIndex, offsetBy: $0) }
        }
        return firstIndex { $0 == byte || $0 == other }
    }

    /// Whether `byte` occurs.
    package func contains(byte: UInt8) -> Bool {
        firstIndex(ofByte: byte) != nil
    }
}

extension String.UTF8View {
    /// The index of the first `byte` or `other`; nil when there is neither.
    package func firstIndex(ofByte byte: UInt8, or other: UInt8) -> Index? {
        self[...].firstIndex(ofByte: byte, or: other)
    }
}
