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

extension StringProtocol {
    /// Calls `body` with the text's UTF-8 bytes in place (a copy only for text not stored contiguously): for walks
    /// over a request's path or query that look for ASCII separators.
    package func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(utf8).withUnsafeBufferPointer(body)
    }

    /// The text between two byte offsets from its start, without a copy: for offsets such a walk found, which fall
    /// on ASCII separators and so on character boundaries.
    package func slice(utf8Offsets range: Range<Int>) -> SubSequence {
        self[
            utf8.index(
                utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)]
    }
}
