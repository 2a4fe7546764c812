/// Immutable bytes at a fixed address for the object's whole life, so a server can send them by reference
/// without copying them per response.
public final class Payload: @unchecked Sendable {
    // @unchecked: the buffer is written once in init and never again; it is freed only in deinit.
    private let storage: UnsafeMutableRawBufferPointer
    public let count: Int

    public init(_ bytes: some Collection<UInt8>) {
        count = bytes.count
        // A zero-byte allocation is not portable, so an empty payload holds one unused byte.
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        self.storage = storage
        // Arrays and buffers in one copy; anything else a byte at a time.
        let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
            storage.copyMemory(from: UnsafeRawBufferPointer(source))
        }
        if copied == nil { _ = storage.initializeMemory(as: UInt8.self, from: bytes) }
    }

    /// Fills a new payload of at most `count` bytes in place; `fill` returns how many it wrote.
    public init(count: Int, fill: (UnsafeMutableRawBufferPointer) -> Int) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        self.count = min(count, max(0, fill(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))))
    }

    /// Takes over a buffer made with `UnsafeMutableRawBufferPointer.allocate(byteCount:alignment:)` whose first
    /// `count` bytes were written (`PayloadWriter`): freed with this payload.
    init(adopting storage: UnsafeMutableRawBufferPointer, count: Int) {
        self.storage = storage
        self.count = count
    }

    public convenience init(_ text: String) {
        self.init(Array(text.utf8))
    }

    deinit {
        storage.deallocate()
    }

    public static let empty = Payload([UInt8]())

    /// The bytes; the pointer stays valid for as long as this object is alive.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    public var text: String { withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
}
