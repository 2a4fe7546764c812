/// A stub path with parameters, `/users/{id}/posts`: each `{name}` matches one whole, non-empty path segment.
public struct PathTemplate: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// Everything in one object: a stub's URL condition stays as small as an exact path's (100,000 stubs hold one each).
    private final class Storage: Sendable {
        let source: String
        let segments: [Segment]
        let parameterNames: [String]
        let isPrefix: Bool
        let literalPrefix: String
        let literalPrefixDepth: Int
        let literalSegmentCount: Int
        /// Each segment's literal bytes, nil for a parameter: what `match` compares a request path's bytes with.
        let literalBytes: [[UInt8]?]
        /// Whether every literal is ASCII: then bytes that differ are strings that differ (no canonical equivalence
        /// to consult).
        let literalsAreASCII: Bool

        init(segments: [Segment], isPrefix: Bool) {
            self.segments = segments
            self.isPrefix = isPrefix
            literalBytes = segments.map { if case .literal(let text) = $0 { Array(text.utf8) } else { nil } }
            literalsAreASCII = literalBytes.allSatisfy { $0?.allSatisfy { $0 < 0x80 } ?? true }
            parameterNames = segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
            source = "/" + segments.map { segment in
                switch segment {
                case .literal(let text): text
                case .parameter(let name): "{\(name)}"
                }
            }.joined(separator: "/")
            var prefix: [String] = []
            for segment in segments {
                guard case .literal(let text) = segment else { break }
                prefix.append(text)
            }
            literalPrefix = prefix.isEmpty ? "" : "/" + prefix.joined(separator: "/")
            literalPrefixDepth = prefix.count
            literalSegmentCount = segments.count - parameterNames.count
        }
    }

    private let storage: Storage

    /// The path as written (percent-decoded), parameters in braces.
    public var source: String { storage.source }
    var segments: [Segment] { storage.segments }
    public var parameterNames: [String] { storage.parameterNames }
    /// Matches paths below the template too (a `base.path` with parameters and no path of the stub's own).
    public var isPrefix: Bool { storage.isPrefix }
    /// The literal path before the first parameter (`/users` for `/users/{id}`, `` for `/{tenant}/x`): the index
    /// looks a template up by it.
    public var literalPrefix: String { storage.literalPrefix }
    /// How many segments `literalPrefix` has.
    public var literalPrefixDepth: Int { storage.literalPrefixDepth }
    /// Literal segments in all: more of them make a more specific template.
    public var literalSegmentCount: Int { storage.literalSegmentCount }

    public static func == (lhs: PathTemplate, rhs: PathTemplate) -> Bool {
        lhs.storage === rhs.storage || (lhs.segments == rhs.segments && lhs.isPrefix == rhs.isPrefix)
    }

    /// Parses a path as written in a stub (before percent-decoding, so that `%7Bid%7D` stays a literal `{id}`).
    /// Returns nil when the path has no parameters; throws when a brace is misused.
    public static func parse(_ written: String, isPrefix: Bool = false) throws(PathTemplateError) -> PathTemplate? {
        guard written.contains("{") || written.contains("}") else { return nil }
        let body = written.hasPrefix("/") ? written.dropFirst() : written[...]
        var segments: [Segment] = []
        var names: [String] = []
        for piece in body.split(separator: "/", omittingEmptySubsequences: false) {
            if piece.hasPrefix("{") && piece.hasSuffix("}") && piece.count >= 2 {
                let name = String(piece.dropFirst().dropLast())
                guard !name.isEmpty, name.utf8.allSatisfy(isNameByte) else {
                    throw PathTemplateError(
                        message: "'{\(name)}' is not a path parameter name (letters, digits, '_' and '-')")
                }
                guard !names.contains(name) else {
                    throw PathTemplateError(message: "the path parameter '{\(name)}' appears twice")
                }
                names.append(name)
                segments.append(.parameter(name))
            } else if piece.contains("{") || piece.contains("}") {
                throw PathTemplateError(
                    message: "'\(piece)': a path parameter is a whole segment, such as /users/{id} (write a literal brace as %7B or %7D)")
            } else {
                segments.append(.literal(PercentDecoding.decode(piece)))
            }
        }
        return PathTemplate(segments: segments, isPrefix: isPrefix)
    }

    init(segments: [Segment], isPrefix: Bool) {
        storage = Storage(segments: segments, isPrefix: isPrefix)
    }

    /// The template with `path` (a decoded stub path, or another template) after it: a `base.path` and a stub's.
    public func appending(_ rest: PathTemplate?, literal: String) -> PathTemplate {
        let tail: [Segment]
        if let rest {
            tail = rest.segments
        } else {
            let trimmed = literal.hasPrefix("/") ? literal.dropFirst() : literal[...]
            tail = trimmed.isEmpty ? [] : trimmed.split(separator: "/", omittingEmptySubsequences: false).map { .literal(String($0)) }
        }
        return PathTemplate(segments: segments + tail, isPrefix: false)
    }

    /// A prefix template for a literal path followed by this one (`/api` + `/users/{id}`).
    public func prepending(_ literalPath: String) -> PathTemplate {
        let trimmed = literalPath.hasPrefix("/") ? literalPath.dropFirst() : literalPath[...]
        let head: [Segment] = trimmed.isEmpty ? [] : trimmed.split(separator: "/", omittingEmptySubsequences: false).map { .literal(String($0)) }
        return PathTemplate(segments: head + segments, isPrefix: isPrefix)
    }

    /// The same template, matching the paths below it as well.
    public var asPrefix: PathTemplate { PathTemplate(segments: segments, isPrefix: true) }

    /// The number of segments a matching path has (at least, for a prefix).
    public var segmentCount: Int { segments.count }

    /// The parameters of a decoded request path, or nil when it does not match.
    public func match(_ path: String) -> PathParameters? {
        var first = 0..<0
        var later: [Range<Int>] = []
        var count = 0
        let matched = walk(path) { range in
            if count == 0 { first = range } else { later.append(range) }
            count += 1
        }
        return matched
            ? PathParameters(names: parameterNames, text: path, first: first, later: later, count: count) : nil
    }

    /// Whether a decoded request path matches, without collecting the parameters (the router's question).
    public func matches(_ path: String) -> Bool {
        walk(path, parameter: { _ in })
    }

    /// Walks the path's bytes segment by segment against the template, handing over each parameter's byte range.
    /// Runs for every request a template route may answer: bytes compared in place, nothing allocated.
    @inline(__always)
    private func walk(_ path: String, parameter: (Range<Int>) -> Void) -> Bool {
        path.withUTF8Bytes { walk(bytes: $0, path: path, parameter: parameter) }
    }

    private func walk(bytes: UnsafeBufferPointer<UInt8>, path: String, parameter: (Range<Int>) -> Void) -> Bool {
        let slash = UInt8(ascii: "/")
        let count = bytes.count
        guard count > 0, bytes[0] == slash else { return false }
        let literals = storage.literalBytes
        var start = 1
        for position in 0..<literals.count {
            var end = start
            while end < count && bytes[end] != slash { end += 1 }
            if let literal = literals[position] {
                guard Self.same(literal, bytes, start..<end, asciiOnly: storage.literalsAreASCII, path: path) else {
                    return false
                }
            } else {
                guard end > start else { return false }
                parameter(start..<end)
            }
            if position == literals.count - 1 { return end == count || isPrefix }
            guard end != count else { return false }
            start = end + 1
        }
        // No segments: only `/` (or, for a prefix, anything).
        return isPrefix || count == 1
    }

    /// Whether a literal segment equals the path's bytes in `range`, as Swift compares strings: equal bytes are
    /// equal strings; different ones differ unless non-ASCII text may be canonically equivalent.
    private static func same(
        _ literal: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, asciiOnly: Bool, path: String
    ) -> Bool {
        if literal.count == range.count {
            var offset = 0
            while offset < literal.count && literal[offset] == bytes[range.lowerBound + offset] { offset += 1 }
            if offset == literal.count { return true }
        }
        if asciiOnly && !bytes[range].contains(where: { $0 >= 0x80 }) { return false }
        return path.slice(utf8Offsets: range) == String(decoding: literal, as: UTF8.self)
    }

    public var description: String { isPrefix ? source + "/…" : source }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }
}

/// A path brace that is not a parameter.
public struct PathTemplateError: Error, Sendable, Equatable {
    public var message: String
}

/// The values of a request's path parameters, in the order the stub's path names them.
///
/// Kept as byte ranges of the text they come from (the request's decoded path): a match records where each value
/// is, and a template writes its bytes from there. Making a slice of the path for each value cost several index
/// computations, and `values` still makes them for whoever asks.
public struct PathParameters: Sendable, Equatable {
    public let names: [String]
    /// The text the values are in, and each value's UTF-8 offsets in it: the first kept inline (most paths have
    /// one parameter, and an array of one cost an allocation an answer).
    let text: String
    private let firstRange: Range<Int>
    private let laterRanges: [Range<Int>]
    /// How many values there are.
    let count: Int

    /// Values of their own, kept one after the other in one text.
    public init(names: [String] = [], values: [Substring] = []) {
        var text = ""
        var ranges: [Range<Int>] = []
        for value in values {
            let start = text.utf8.count
            text += value
            ranges.append(start..<text.utf8.count)
        }
        self.init(
            names: names, text: text, first: ranges.first ?? 0..<0, later: Array(ranges.dropFirst()),
            count: ranges.count)
    }

    init(names: [String], text: String, first: Range<Int>, later: [Range<Int>], count: Int) {
        self.names = names
        self.text = text
        firstRange = first
        laterRanges = later
        self.count = count
    }

    /// The UTF-8 offsets of the value at `index` in `text`; nil when there is none.
    func range(at index: Int) -> Range<Int>? {
        guard index >= 0 && index < count else { return nil }
        return index == 0 ? firstRange : laterRanges[index - 1]
    }

    /// Slices of the text (the request's decoded path).
    public var values: [Substring] { (0..<count).map { text.slice(utf8Offsets: range(at: $0)!) } }

    public subscript(name: String) -> Substring? {
        names.firstIndex(of: name).flatMap { range(at: $0) }.map { text.slice(utf8Offsets: $0) }
    }

    public var isEmpty: Bool { count == 0 }

    /// Lends the bytes of the value at `index` in place; nothing when there is none.
    func withValueBytes(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard let range = range(at: index) else { return }
        text.withUTF8Bytes { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool {
        lhs.names == rhs.names && lhs.values == rhs.values
    }
}
