/// Header fields in the order received; names compare without regard to ASCII case.
public struct HTTPHeaders: Sendable, Sequence, Hashable, ExpressibleByDictionaryLiteral {
    public var entries: [(name: String, value: String)]

    public init(_ entries: [(name: String, value: String)] = []) {
        self.entries = entries
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        entries = elements.map { (name: $0.0, value: $0.1) }
    }

    public subscript(name: String) -> String? {
        first(named: name)
    }

    public func first(named name: String) -> String? {
        // By index, each field's length asked first: `first(where:)` copied every field out to test it (its name
        // and value retained, then released), for the few lookups each request makes of fields it rarely has.
        let count = name.utf8.count
        for index in entries.indices
        where entries[index].name.utf8.count == count && entries[index].name.equalsIgnoringASCIICase(name) {
            return entries[index].value
        }
        return nil
    }

    public func all(named name: String) -> [String] {
        var values: [String] = []
        for index in entries.indices where entries[index].name.equalsIgnoringASCIICase(name) {
            values.append(entries[index].value)
        }
        return values
    }

    public func contains(_ name: String) -> Bool {
        first(named: name) != nil
    }

    /// Whether some field passes `test`, asked of each in order by index (see `first(named:)`).
    public func containsField(where test: (_ name: String, _ value: String) -> Bool) -> Bool {
        for index in entries.indices where test(entries[index].name, entries[index].value) { return true }
        return false
    }

    /// Removes the fields whose names `picks` chooses, the others kept in order. By index, from the last field
    /// back (see `first(named:)`); `picks` is asked once for each field.
    public mutating func removeFields(where picks: (_ name: String) -> Bool) {
        var index = entries.count
        while index > 0 {
            index -= 1
            if picks(entries[index].name) { entries.remove(at: index) }
        }
    }

    public mutating func add(_ name: String, _ value: String) {
        entries.append((name, value))
    }

    /// Replaces every field of that name with one value.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        entries.append((name, value))
    }

    public mutating func remove(_ name: String) {
        removeFields { $0.equalsIgnoringASCIICase(name) }
    }

    public var count: Int { entries.count }

    /// The same fields in the same order, names and values exactly as written.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for (name, value) in entries {
            hasher.combine(name)
            hasher.combine(value)
        }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        entries.makeIterator()
    }
}

extension String {
    /// ASCII case-insensitive equality without allocating lowercased copies (header names are ASCII).
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        // Native strings compare over their bytes in place: this runs for every header looked up.
        let direct = lhs.withContiguousStorageIfAvailable { a in
            rhs.withContiguousStorageIfAvailable { b in Self.equalIgnoringASCIICase(a, b) }
        }
        if let direct, let result = direct { return result }
        return Self.equalIgnoringASCIICase(lhs, rhs)
    }

    @inline(__always)
    private static func equalIgnoringASCIICase(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        for (a, b) in zip(lhs, rhs) where a != b {
            guard a | 0x20 == b | 0x20, (a | 0x20) >= UInt8(ascii: "a"), (a | 0x20) <= UInt8(ascii: "z") else {
                return false
            }
        }
        return true
    }
}

/// A fixed set of header names, asked about on the request path (sensitive headers, hop-by-hop ones): a name's
/// length and first letter rule out nearly every other field before any comparison.
public struct HeaderNameSet: Sendable {
    public let names: [String]
    /// One bit for each length the names have: a field of another length is none of them, found with one test.
    private let lengths: UInt64
    /// One bit for each name's length and first letter together, for the fields a length alone lets through (a
    /// `User-Agent` has the length of `Connection`).
    private let pairs: UInt64
    /// The names in lower case, one after another, and where each is in it: a field of a length they have is
    /// compared with the names of that length over its bytes in place, without a call per name.
    private let lowercased: [UInt8]
    private let spans: [Range<Int>]
    /// The indices in `spans` of the names of each length below 64 (the longer ones under 63): a field is compared
    /// only with the names as long as it is.
    private let spansByLength: [[Int]]

    public init(_ names: [String]) {
        self.names = names
        var lengths: UInt64 = 0
        var pairs: UInt64 = 0
        var lowercased: [UInt8] = []
        var spans: [Range<Int>] = []
        for name in names {
            // A name of 64 bytes or more sets the last bit, which every field that long then passes.
            lengths |= 1 << UInt64(min(name.utf8.count, 63))
            pairs |= Self.pair(count: name.utf8.count, first: name.utf8.first ?? 0)
            let start = lowercased.count
            lowercased.append(contentsOf: name.utf8.map(Self.lowercase))
            spans.append(start..<lowercased.count)
        }
        self.lengths = lengths
        self.pairs = pairs
        self.lowercased = lowercased
        self.spans = spans
        var byLength = [[Int]](repeating: [], count: 64)
        for (index, span) in spans.enumerated() { byLength[min(span.count, 63)].append(index) }
        spansByLength = byLength
    }

    /// Whether `name` is one of them, without regard to ASCII case.
    public func contains(_ name: String) -> Bool {
        // The length first: a string's count is read without touching its bytes, which a small string copies out
        // to lend them.
        let count = name.utf8.count
        guard lengths & (1 << UInt64(min(count, 63))) != 0,
            pairs & Self.pair(count: count, first: name.utf8.first ?? 0) != 0
        else { return false }
        return name.utf8.withContiguousStorageIfAvailable { contains(bytes: $0) }
            ?? names.contains { $0.equalsIgnoringASCIICase(name) }
    }

    private func contains(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        lowercased.withUnsafeBufferPointer { lowercased in
            for index in spansByLength[min(bytes.count, 63)] {
                let span = spans[index]
                guard span.count == bytes.count else { continue }
                var offset = 0
                while offset < span.count && lowercased[span.lowerBound + offset] == Self.lowercase(bytes[offset]) {
                    offset += 1
                }
                if offset == span.count { return true }
            }
            return false
        }
    }

    @inline(__always)
    private static func pair(count: Int, first: UInt8) -> UInt64 {
        1 << UInt64((count &* 5 &+ Int(first | 0x20)) & 63)
    }

    @inline(__always)
    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
