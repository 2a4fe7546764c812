/// Header fields as a parser read them: every name and value copied once into one buffer of bytes. Nothing is made
/// into a string until something asks for one: a proxied exchange writes most fields on to the other side as they
/// came, and made a string of every name and value only to write it again.
///
/// Each field is its name's length and its value's (four bytes each, little-endian), then the name, then the value,
/// all in the one buffer: one allocation for a head, where an array of places beside it was a second. A removed
/// field stays in the buffer, marked by the top bit of its name's length. The counts live in the buffer too: the
/// value is one reference and nothing else, so that copying a request copies its fields with one retain, as an
/// array of strings did (five words here made every copy of a request, an exchange or a journal entry dearer).
// @unchecked: the storage is shared by copies and written only while no other copy holds it (as an array's is).
struct ReceivedFields: @unchecked Sendable {
    /// The fields' bytes and their counts, and room for more, in one allocation; shared by copies, written only when
    /// unshared.
    private var storage: FieldStorage

    private static let removed: UInt32 = 1 << 31

    /// The first field received; `headBytesAhead` is how many bytes arrived from its line on.
    ///
    /// Under 512 bytes arrived, the buffer is sized by them: the rest of the head (and what followed it in the same
    /// read), and half again for the eight bytes of lengths each field keeps where its line had a colon, spaces and
    /// a line end; a head of many short fields outgrows that, and the buffer grows. Else 512 bytes, a usual head's
    /// fields and more. A journal entry keeps the buffer: at 512 bytes for every head, 10,000 small proxied
    /// exchanges held 16 MB, where they now hold 9.
    init(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, headBytesAhead: Int = .max) {
        let room = headBytesAhead < 512 ? headBytesAhead + headBytesAhead / 2 + 16 : 512
        storage = FieldStorage.make(capacity: max(room, 8 + name.count + value.count), copying: nil)
        append(name: name, value: value)
    }

    /// The bytes the buffer has room for.
    var capacity: Int { storage.header.capacity }
    /// The fields not removed.
    var count: Int { storage.header.count }
    var isEmpty: Bool { storage.header.count == 0 }
    /// The bytes of the names and values of the fields not removed.
    var fieldBytes: Int { storage.header.fieldBytes }
    /// One bit for each field's name length and first letter (`HeaderNameSet.pair`), removed fields too: a name
    /// whose bit is clear is none of the fields, found without a walk. Most names the request path asks about
    /// (`Via`, `Upgrade`, `Connection`, the session's) are in no usual head.
    var names: UInt64 { storage.header.names }

    mutating func append(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        let needed = 8 + name.count + value.count
        let used = storage.header.used
        if !isKnownUniquelyReferenced(&storage) || used + needed > storage.header.capacity {
            storage = FieldStorage.make(capacity: max(used + needed, 2 * used), copying: storage)
        }
        storage.withUnsafeMutablePointers { header, bytes in
            let start = UnsafeMutableRawPointer(bytes + header.pointee.used)
            start.storeBytes(of: UInt32(truncatingIfNeeded: name.count).littleEndian, as: UInt32.self)
            (start + 4).storeBytes(of: UInt32(truncatingIfNeeded: value.count).littleEndian, as: UInt32.self)
            if let source = name.baseAddress { (start + 8).copyMemory(from: source, byteCount: name.count) }
            if let source = value.baseAddress {
                (start + 8 + name.count).copyMemory(from: source, byteCount: value.count)
            }
            header.pointee.used += needed
            header.pointee.count += 1
            header.pointee.fieldBytes += name.count + value.count
            header.pointee.names |= HeaderNameSet.pair(count: name.count, first: name.first ?? 0)
        }
    }

    /// Whether a field may be called `name`: false when none is.
    @inline(__always)
    func mayHold(_ name: String) -> Bool {
        names & HeaderNameSet.pair(count: name.utf8.count, first: name.utf8.first ?? 0) != 0
    }

    mutating func append(name: String, value: String) {
        name.withUTF8Bytes { name in value.withUTF8Bytes { append(name: name, value: $0) } }
    }

    /// Calls `body` with where each field not removed starts, where its name ends and where it ends, in order;
    /// stops when `body` returns false. The one reading of the layout, for the walks and the removal.
    @inline(__always)
    private static func forEachPlace(
        in bytes: UnsafeBufferPointer<UInt8>, _ body: (_ start: Int, _ nameEnd: Int, _ end: Int) throws -> Bool
    ) rethrows {
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset < bytes.count {
            let nameCount = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian
            let valueCount = Int(raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).littleEndian)
            let start = offset
            let nameEnd = start + 8 + Int(nameCount & ~removed)
            offset = nameEnd + valueCount
            guard nameCount & removed == 0 else { continue }
            guard try body(start, nameEnd, offset) else { return }
        }
    }

    /// Calls `body` with each field's name and value, in order, lent for the call; stops when `body` returns false.
    @inline(__always)
    private func walk(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws -> Bool) rethrows {
        try storage.withUnsafeMutablePointers { header, start in
            let bytes = UnsafeBufferPointer(start: start, count: header.pointee.used)
            try Self.forEachPlace(in: bytes) { start, nameEnd, end in
                try body(
                    UnsafeBufferPointer(rebasing: bytes[(start + 8)..<nameEnd]),
                    UnsafeBufferPointer(rebasing: bytes[nameEnd..<end]))
            }
        }
    }

    /// Calls `body` with each field's name and value, in order, lent for the call.
    @inline(__always)
    func forEachField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        try walk { name, value in
            try body(name, value)
            return true
        }
    }

    /// Whether some field's name `test` accepts.
    @inline(__always)
    func contains(whereName test: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var found = false
        walk { name, _ in
            found = test(name)
            return !found
        }
        return found
    }

    /// The value of the first field whose name `test` accepts.
    @inline(__always)
    func firstValue(whereName test: (UnsafeBufferPointer<UInt8>) -> Bool) -> String? {
        var found: String?
        walk { name, value in
            guard test(name) else { return true }
            found = String(decoding: value, as: UTF8.self)
            return false
        }
        return found
    }

    /// Removes the fields whose names `picks` chooses: marked where they stand, the others kept in order. The
    /// buffer is written in place when no one else holds it.
    mutating func removeFields(where picks: (UnsafeBufferPointer<UInt8>) -> Bool) {
        if !isKnownUniquelyReferenced(&storage) {
            storage = FieldStorage.make(capacity: storage.header.used, copying: storage)
        }
        storage.withUnsafeMutablePointers { header, start in
            let bytes = UnsafeBufferPointer(start: start, count: header.pointee.used)
            Self.forEachPlace(in: bytes) { fieldStart, nameEnd, end in
                guard picks(UnsafeBufferPointer(rebasing: bytes[(fieldStart + 8)..<nameEnd])) else { return true }
                // The top byte of the name's length (little-endian) carries the mark.
                start[fieldStart + 3] |= 0x80
                header.pointee.count -= 1
                header.pointee.fieldBytes -= end - fieldStart - 8
                return true
            }
        }
    }

    /// Every field as strings.
    var list: [(name: String, value: String)] {
        var list: [(name: String, value: String)] = []
        list.reserveCapacity(count)
        forEachField { name, value in
            list.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return list
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes spell `other` without regard to ASCII case (header names are ASCII).
    @inline(__always)
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard count == other.utf8.count else { return false }
        return other.utf8.withContiguousStorageIfAvailable { Self.equalIgnoringASCIICase(self, $0) }
            ?? Self.equalIgnoringASCIICase(self, Array(other.utf8))
    }

    @inline(__always)
    static func equalIgnoringASCIICase(_ lhs: Self, _ rhs: some Collection<UInt8>) -> Bool {
        for (a, b) in zip(lhs, rhs) where a != b {
            guard a | 0x20 == b | 0x20, (a | 0x20) >= UInt8(ascii: "a"), (a | 0x20) <= UInt8(ascii: "z") else {
                return false
            }
        }
        return true
    }
}

/// The bytes of `ReceivedFields`: one allocation with its counts in front (`ManagedBuffer`), where an array's
/// storage was found through the generic runtime each time a head made one (about 500 instructions).
final class FieldStorage: ManagedBuffer<FieldStorage.Counts, UInt8> {
    struct Counts {
        var used: Int
        var capacity: Int
        /// The fields not removed, and the bytes of their names and values.
        var count = 0
        var fieldBytes = 0
        /// See `ReceivedFields.names`.
        var names: UInt64 = 0
    }

    /// Room for `capacity` bytes, holding a copy of `other`'s.
    static func make(capacity: Int, copying other: FieldStorage?) -> FieldStorage {
        let made = unsafeDowncast(
            create(minimumCapacity: capacity) { _ in Counts(used: 0, capacity: capacity) }, to: FieldStorage.self)
        if let other {
            other.withUnsafeMutablePointers { counts, bytes in
                let used = counts.pointee.used
                made.withUnsafeMutablePointers { made, into in
                    into.update(from: bytes, count: used)
                    made.pointee = Counts(
                        used: used, capacity: capacity, count: counts.pointee.count,
                        fieldBytes: counts.pointee.fieldBytes, names: counts.pointee.names)
                }
            }
        }
        return made
    }
}
