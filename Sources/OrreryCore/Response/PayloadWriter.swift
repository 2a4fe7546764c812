/// Bytes appended into the storage a `Payload` then takes over without a copy: what a template plan renders an
/// answer's body into. Rendered into a byte array, the body was copied into a payload of its own afterwards (two
/// allocations and a copy more an answer).
struct PayloadWriter: RenderOutput {
    private var storage: PayloadStorage
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        storage = PayloadStorage.make(capacity: self.capacity)
    }

    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        storage.withUnsafeMutablePointerToElements { ($0 + count).initialize(to: byte) }
        count += 1
    }

    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        storage.withUnsafeMutablePointerToElements { ($0 + count).initialize(from: source, count: bytes.count) }
        count += bytes.count
    }

    /// Moves what was written to a storage at least twice the size.
    private mutating func grow(to needed: Int) {
        capacity = max(needed, capacity * 2)
        let larger = PayloadStorage.make(capacity: capacity)
        storage.withUnsafeMutablePointerToElements { old in
            larger.withUnsafeMutablePointerToElements { $0.initialize(from: old, count: count) }
        }
        storage = larger
    }

    /// The bytes written, as a payload; the writer is used up (it would otherwise write into the payload's bytes).
    consuming func payload() -> Payload {
        storage.header = count
        return Payload(finished: storage)
    }
}

/// Where a render writes: a byte array, or a payload's own buffer.
protocol RenderOutput {
    var count: Int { get }
    mutating func append(_ byte: UInt8)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: RenderOutput where Element == UInt8 {}
