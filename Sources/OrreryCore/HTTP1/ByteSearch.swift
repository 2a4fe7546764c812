/// Finds a byte in memory sixteen bytes at a time: what the parser used C's `memchr` for, in Swift, so that the core
/// imports no C library.
enum ByteSearch {
    /// The index of the first `byte` in `bytes` at or after `start`, or nil.
    @inline(__always)
    static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var index = start
        // Sixteen bytes compared at once (one vector compare on x86-64 and arm64); in the sixteen that hold it, the
        // byte is found eight at a time: XOR with the byte repeated turns it into a zero byte, and a word holds a zero
        // byte exactly when (w - 0x01…) & ~w & 0x80… is not zero (Hacker's Delight, 6-1). Read little-endian, the
        // lowest set bit names the first one (a borrow can only mark bytes above it).
        let pattern = SIMD16<UInt8>(repeating: byte)
        let repeated = UInt64(byte) &* 0x0101_0101_0101_0101
        let raw = UnsafeRawPointer(base)
        while index + 16 <= count {
            if any(raw.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self) .== pattern) {
                for half in [0, 8] {
                    let word =
                        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index + half, as: UInt64.self))
                        ^ repeated
                    let found = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
                    if found != 0 { return index + half + found.trailingZeroBitCount / 8 }
                }
            }
            index += 16
        }
        while index < count {
            if base[index] == byte { return index }
            index += 1
        }
        return nil
    }

    /// Whether `bytes` holds `first` or `second`: one pass for the two, where two searches would read the line twice.
    @inline(__always)
    static func contains(_ first: UInt8, or second: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        let firstPattern = SIMD16<UInt8>(repeating: first)
        let secondPattern = SIMD16<UInt8>(repeating: second)
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 16 <= count {
            let chunk = raw.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self)
            if any((chunk .== firstPattern) .| (chunk .== secondPattern)) { return true }
            index += 16
        }
        while index < count {
            if base[index] == first || base[index] == second { return true }
            index += 1
        }
        return false
    }
}
