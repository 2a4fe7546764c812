/// Immutable bytes at a fixed address for the storage's whole life, so a server can send them by reference
/// without copying them per response.
///
/// The bytes live in the same allocation as the object that counts references to them (`PayloadStorage`, a
/// `ManagedBuffer`): an object pointing to a buffer of its own cost two allocations and two frees for every payload
/// made per request (a rendered body, an answer's head, an upstream's body), and the buffer's 16-byte alignment went
/// through `posix_memalign`.
public struct Payload: @unchecked Sendable {
    // @unchecked: the bytes are written before the storage is handed to a payload and never again.
    let storage: PayloadStorage

    public init(_ bytes: some Collection<UInt8>) {
        let count = bytes.count
        storage = PayloadStorage.make(capacity: count)
        storage.withUnsafeMutablePointerToElements { elements in
            let buffer = UnsafeMutableBufferPointer(start: elements, count: count)
            // Arrays and buffers in one copy; anything else a byte at a time.
            let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(source))
            }
            if copied == nil { _ = buffer.initialize(from: bytes) }
        }
        storage.header = count
    }

    /// Fills a new payload of at most `count` bytes in place; `fill` returns how many it wrote.
    public init(count: Int, fill: (UnsafeMutableRawBufferPointer) -> Int) {
        storage = PayloadStorage.make(capacity: count)
        let written = storage.withUnsafeMutablePointerToElements { elements in
            fill(UnsafeMutableRawBufferPointer(start: elements, count: count))
        }
        storage.header = min(count, max(0, written))
    }

    /// Takes over a storage whose first `header` bytes were written (`PayloadWriter`).
    init(finished storage: PayloadStorage) {
        self.storage = storage
    }

    public init(_ text: String) {
        // The UTF-8 view lends a native string's bytes: one copy, with no array made first.
        self.init(text.utf8)
    }

    public static let empty = Payload([UInt8]())

    public var count: Int { storage.header }

    /// The bytes; the pointer stays valid for as long as this payload (or its `owner`) is alive.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { count, elements in
            try body(UnsafeRawBufferPointer(start: elements, count: count.pointee))
        }
    }

    /// The object that keeps the bytes alive, for whoever holds them past this value (libevent sending them by
    /// reference).
    public var owner: AnyObject { storage }

    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    public var text: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}

/// A payload's count (the header) and its bytes (the elements), in one allocation.
final class PayloadStorage: ManagedBuffer<Int, UInt8> {
    /// Room for `capacity` bytes, none counted yet. A zero-byte allocation is not portable, so an empty payload
    /// holds one unused byte.
    static func make(capacity: Int) -> PayloadStorage {
        unsafeDowncast(create(minimumCapacity: max(capacity, 1)) { _ in 0 }, to: PayloadStorage.self)
    }
}
