/// Bytes appended into one allocation that a `Payload` then takes over without a copy: what a template plan renders
/// an answer's body into. Rendered into a byte array, the body was copied into a payload of its own afterwards (two
/// allocations and a copy more an answer).
///
/// Owns its buffer until `payload()` hands it over; a writer dropped before that leaks it, so each is made and
/// finished in one function.
struct PayloadWriter: RenderOutput {
    private var storage: UnsafeMutableRawBufferPointer
    private(set) var count = 0

    init(capacity: Int) {
        storage = .allocate(byteCount: max(capacity, 16), alignment: 16)
    }

    mutating func append(_ byte: UInt8) {
        if count == storage.count { grow(to: count + 1) }
        storage[count] = byte
        count += 1
    }

    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > storage.count { grow(to: count + bytes.count) }
        (storage.baseAddress! + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Moves what was written to a buffer at least twice the size.
    private mutating func grow(to needed: Int) {
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: max(needed, storage.count * 2), alignment: 16)
        larger.baseAddress!.copyMemory(from: storage.baseAddress!, byteCount: count)
        storage.deallocate()
        storage = larger
    }

    /// The bytes written, as a payload that owns the buffer from now on.
    func payload() -> Payload {
        Payload(adopting: storage, count: count)
    }
}

/// Where a render writes: a byte array, or a payload's own buffer.
protocol RenderOutput {
    var count: Int { get }
    mutating func append(_ byte: UInt8)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: RenderOutput where Element == UInt8 {}
