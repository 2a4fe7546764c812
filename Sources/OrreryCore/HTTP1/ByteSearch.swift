/// Finds a byte in memory eight bytes at a time: what the parser used C's `memchr` for, in Swift, so that the core
/// imports no C library.
enum ByteSearch {
    /// The index of the first `byte` in `bytes` at or after `start`, or nil.
    @inline(__always)
    static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var index = start
        // A word holds a zero byte exactly when (w - 0x01…) & ~w & 0x80… is not zero (Hacker's Delight, 6-1); XOR
        // with the byte repeated turns the byte sought into zero. Read little-endian, the first byte in memory is the
        // lowest in the word, and the lowest set bit names the first zero byte exactly (a borrow can only mark
        // bytes above it).
        let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
        let raw = UnsafeRawPointer(base)
        while index + 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) ^ pattern
            let found = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
            if found != 0 { return index + found.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < count {
            if base[index] == byte { return index }
            index += 1
        }
        return nil
    }
}
