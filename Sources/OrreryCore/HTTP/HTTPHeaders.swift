/// Header fields in the order received; names compare without regard to ASCII case.
///
/// A parsed head's fields stay as the bytes received (`ReceivedFields`) until something asks for them as strings
/// (`entries`, iterating): the request path reads a few by name and writes the rest on as bytes
/// (`forEachField`), so a proxied exchange makes no string of most of them.
public struct HTTPHeaders: Sendable, Sequence, Hashable, ExpressibleByDictionaryLiteral {
    /// One word, either way: a request and everything that holds one copy their fields with one retain.
    private enum Storage {
        case strings([(name: String, value: String)])
        case received(ReceivedFields)
    }

    private var storage: Storage

    public init(_ entries: [(name: String, value: String)] = []) {
        storage = .strings(entries)
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        storage = .strings(elements.map { (name: $0.0, value: $0.1) })
    }

    /// The fields as strings, made from the received bytes when asked (each time, until a change makes them
    /// strings for good): readers on the request path use the methods below instead.
    public var entries: [(name: String, value: String)] {
        get {
            switch storage {
            case .strings(let list): list
            case .received(let fields): fields.list
            }
        }
        set { storage = .strings(newValue) }
        _modify {
            var list: [(name: String, value: String)]
            switch storage {
            case .strings(let strings): list = strings
            case .received(let fields): list = fields.list
            }
            // Held here alone while it is changed, so that the change does not copy it.
            storage = .strings([])
            defer { storage = .strings(list) }
            yield &list
        }
    }

    /// Changes received fields in place: the storage lets go of them for the change, so that they are not copied.
    @inline(__always)
    private mutating func changeReceived(_ change: (inout ReceivedFields) -> Void) -> Bool {
        guard case .received(var fields) = storage else { return false }
        storage = .strings([])
        change(&fields)
        storage = .received(fields)
        return true
    }

    /// The room in the buffer of received fields; nil for fields kept as strings.
    var receivedCapacity: Int? {
        guard case .received(let fields) = storage else { return nil }
        return fields.capacity
    }

    /// Adds a field as a parser read it, kept as bytes; `headBytesAhead` (the bytes received from the field's line
    /// on) sizes the buffer the first field makes.
    mutating func appendReceived(
        name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, headBytesAhead: Int = .max
    ) {
        if changeReceived({ $0.append(name: name, value: value) }) { return }
        if case .strings(let list) = storage, list.isEmpty {
            storage = .received(ReceivedFields(name: name, value: value, headBytesAhead: headBytesAhead))
        } else {
            entries.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
    }

    /// Calls `body` with each field's name and value as bytes, in order, lent for the call: how an encoder
    /// writes fields on without making strings of received ones.
    @inline(__always)
    public func forEachField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        switch storage {
        case .received(let fields):
            try fields.forEachField(body)
        case .strings(let list):
            for index in list.indices {
                var name = list[index].name
                var value = list[index].value
                try name.withUTF8 { name in try value.withUTF8 { try body(name, $0) } }
            }
        }
    }

    /// The bytes of every name and value together.
    public var fieldBytes: Int {
        switch storage {
        case .received(let fields):
            return fields.fieldBytes
        case .strings(let list):
            var count = 0
            for index in list.indices { count += list[index].name.utf8.count + list[index].value.utf8.count }
            return count
        }
    }

    public subscript(name: String) -> String? {
        first(named: name)
    }

    public func first(named name: String) -> String? {
        switch storage {
        case .received(let fields):
            guard fields.mayHold(name) else { return nil }
            return fields.firstValue { $0.equalsIgnoringASCIICase(name) }
        case .strings(let list):
            // By index, each field's length asked first: `first(where:)` copied every field out to test it (its
            // name and value retained, then released), for the few lookups each request makes of fields it rarely
            // has.
            let count = name.utf8.count
            for index in list.indices
            where list[index].name.utf8.count == count && list[index].name.equalsIgnoringASCIICase(name) {
                return list[index].value
            }
            return nil
        }
    }

    public func all(named name: String) -> [String] {
        var values: [String] = []
        switch storage {
        case .received(let fields):
            guard fields.mayHold(name) else { return [] }
            fields.forEachField { field, value in
                if field.equalsIgnoringASCIICase(name) { values.append(String(decoding: value, as: UTF8.self)) }
            }
        case .strings(let list):
            for index in list.indices where list[index].name.equalsIgnoringASCIICase(name) {
                values.append(list[index].value)
            }
        }
        return values
    }

    public func contains(_ name: String) -> Bool {
        switch storage {
        case .received(let fields): fields.mayHold(name) && fields.contains { $0.equalsIgnoringASCIICase(name) }
        case .strings: first(named: name) != nil
        }
    }

    /// Whether a field may be called `name`: false when none is, found without a walk for received fields (for
    /// fields as strings, true when there are any).
    public func mayContain(_ name: String) -> Bool {
        switch storage {
        case .received(let fields): fields.mayHold(name)
        case .strings(let list): !list.isEmpty
        }
    }

    /// Whether some field's name is one of `names`, asked of the names as bytes.
    public func containsName(in names: HeaderNameSet) -> Bool {
        switch storage {
        case .received(let fields):
            return names.mayMatch(fields.names) && fields.contains { names.contains($0) }
        case .strings(let list):
            for index in list.indices where names.contains(list[index].name) { return true }
            return false
        }
    }

    /// Removes the fields whose names `picks` chooses, the others kept in order. `picks` is asked once for each
    /// field, of its name as bytes, so that received fields stay bytes (they are marked where they stand; fields
    /// as strings are removed by index from the last back, see `first(named:)`).
    public mutating func removeFields(where picks: (_ name: UnsafeBufferPointer<UInt8>) -> Bool) {
        if changeReceived({ $0.removeFields(where: picks) }) { return }
        var index = entries.count
        while index > 0 {
            index -= 1
            if entries[index].name.withUTF8Bytes(picks) { entries.remove(at: index) }
        }
    }

    public mutating func add(_ name: String, _ value: String) {
        if changeReceived({ $0.append(name: name, value: value) }) { return }
        entries.append((name, value))
    }

    /// Replaces every field of that name with one value.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) {
        removeFields { $0.equalsIgnoringASCIICase(name) }
    }

    public var count: Int {
        switch storage {
        case .received(let fields): fields.count
        case .strings(let list): list.count
        }
    }

    public var isEmpty: Bool { count == 0 }

    /// The same fields in the same order, names and values exactly as written.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        let lhs = lhs.entries
        let rhs = rhs.entries
        return lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.name == $1.name && $0.value == $1.value }
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
    /// Calls `body` with the string's UTF-8 bytes, lent for the call.
    @inline(__always)
    func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        var text = self
        return try text.withUTF8(body)
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

    /// Whether a list of fields whose names give `pairs` (see `pair`) may hold one of the names: false when none
    /// of its names has the length and first letter of one of these.
    @inline(__always)
    func mayMatch(_ pairs: UInt64) -> Bool {
        self.pairs & pairs != 0
    }

    /// Whether the bytes spell one of the names, without regard to ASCII case.
    public func contains(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        guard lengths & (1 << UInt64(min(count, 63))) != 0,
            pairs & Self.pair(count: count, first: bytes.first ?? 0) != 0
        else { return false }
        return contains(bytes: bytes)
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

    /// One bit for a name's length and first letter (in either case) together.
    @inline(__always)
    static func pair(count: Int, first: UInt8) -> UInt64 {
        1 << UInt64((count &* 5 &+ Int(first | 0x20)) & 63)
    }

    @inline(__always)
    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
