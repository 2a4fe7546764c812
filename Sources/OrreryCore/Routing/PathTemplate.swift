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

        init(segments: [Segment], isPrefix: Bool) {
            self.segments = segments
            self.isPrefix = isPrefix
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
        let utf8 = path.utf8
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        var values: [Substring] = []
        if !parameterNames.isEmpty { values.reserveCapacity(parameterNames.count) }
        var start = utf8.index(after: utf8.startIndex)
        for (position, segment) in segments.enumerated() {
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
            let piece = path[start..<end]
            switch segment {
            case .literal(let text):
                guard piece == text else { return nil }
            case .parameter:
                guard !piece.isEmpty else { return nil }
                values.append(piece)
            }
            if position == segments.count - 1 {
                if end == utf8.endIndex { return PathParameters(names: parameterNames, values: values) }
                return isPrefix ? PathParameters(names: parameterNames, values: values) : nil
            }
            guard end != utf8.endIndex else { return nil }
            start = utf8.index(after: end)
        }
        // No segments: only `/` (or, for a prefix, anything).
        return isPrefix || utf8.count == 1 ? PathParameters(names: parameterNames, values: values) : nil
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
public struct PathParameters: Sendable, Equatable {
    public let names: [String]
    /// Slices of the request's decoded path.
    public let values: [Substring]

    public init(names: [String] = [], values: [Substring] = []) {
        self.names = names
        self.values = values
    }

    public subscript(name: String) -> Substring? {
        names.firstIndex(of: name).flatMap { $0 < values.count ? values[$0] : nil }
    }

    public var isEmpty: Bool { values.isEmpty }
}
