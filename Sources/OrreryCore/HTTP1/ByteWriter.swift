/// Writes bytes into memory sized beforehand: how the encoder makes a head, instead of growing an array a piece at
/// a time (each append checks capacity and uniqueness; measuring first and copying each string once does not).
struct ByteWriter {
    private let base: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private(set) var count = 0

    /// Nothing is written into an empty buffer (whose start may be nil): it points at a byte of its own then.
    // nonisolated(unsafe): never written, since the capacity that goes with it is 0.
    nonisolated(unsafe) private static let nowhere = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

    init(_ buffer: UnsafeMutableRawBufferPointer) {
        base = buffer.bindMemory(to: UInt8.self).baseAddress ?? Self.nowhere
        capacity = buffer.baseAddress == nil ? 0 : buffer.count
    }

    mutating func write(_ text: String) {
        // Native strings (all of Orrery's) lend their bytes in place; anything else is copied once.
        let lent: Void? = text.utf8.withContiguousStorageIfAvailable { write(UnsafeRawBufferPointer($0)) }
        if lent == nil { Array(text.utf8).withUnsafeBytes { write($0) } }
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        let length = min(bytes.count, capacity - count)
        guard length > 0, let source = bytes.baseAddress else { return }
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: length)
        count += length
    }

    mutating func write(_ byte: UInt8) {
        guard count < capacity else { return }
        base[count] = byte
        count += 1
    }

    mutating func writeCRLF() {
        write(0x0D)
        write(0x0A)
    }

    mutating func writeDecimal(_ value: Int) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var remaining = max(0, value)
        var used = 0
        withUnsafeMutableBytes(of: &digits) { storage in
            repeat {
                used += 1
                storage[storage.count - used] = UInt8(remaining % 10) + 0x30
                remaining /= 10
            } while remaining > 0 && used < storage.count
            write(UnsafeRawBufferPointer(rebasing: storage[(storage.count - used)...]))
        }
    }

    /// A header line, `Name: value` and CR LF. A CR, LF or NUL in the name or value (which stub files, the admin
    /// API and the parser refuse) is written as a space rather than let it start a line of its own.
    mutating func writeField(_ name: String, _ value: String) {
        let start = count
        write(name)
        write(0x3A)
        write(0x20)
        write(value)
        neutralizeLineBreaks(from: start)
        writeCRLF()
    }

    /// A header line from bytes, as `writeField` writes it from strings.
    mutating func writeField(_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) {
        let start = count
        write(UnsafeRawBufferPointer(name))
        write(0x3A)
        write(0x20)
        write(UnsafeRawBufferPointer(value))
        neutralizeLineBreaks(from: start)
        writeCRLF()
    }

    /// Text that must stay on its line (a reason phrase), then CR LF.
    mutating func writeLine(_ text: String) {
        let start = count
        write(text)
        neutralizeLineBreaks(from: start)
        writeCRLF()
    }

    /// The bytes a field line takes.
    static func fieldLength(_ name: String, _ value: String) -> Int {
        name.utf8.count + value.utf8.count + 4
    }

    /// The bytes the field lines of `headers` take.
    static func fieldsLength(_ headers: HTTPHeaders) -> Int {
        headers.fieldBytes + 4 * headers.count
    }

    static func decimalLength(_ value: Int) -> Int {
        var length = 1
        var remaining = max(0, value) / 10
        while remaining > 0 {
            length += 1
            remaining /= 10
        }
        return length
    }

    private mutating func neutralizeLineBreaks(from start: Int) {
        // The smallest byte first, a loop the compiler vectorizes: the usual line has nothing below a space.
        var lowest: UInt8 = 0xFF
        for index in start..<count { lowest = min(lowest, base[index]) }
        guard lowest < 0x20 else { return }
        for index in start..<count where base[index] == 0x0D || base[index] == 0x0A || base[index] == 0 {
            base[index] = 0x20
        }
    }
}
