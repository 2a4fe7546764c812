/// A value a template name resolved to for one request; strings of the request are referenced, not copied.
enum TemplateValue {
    case missing
    case text(Substring)
    case json(JSONValue)
    /// Several texts: the path segments.
    case list([Substring])
    /// The request body, as it came.
    case body
    case now
    case uuid
}

extension Template {
    /// Renders the template for one request into a new byte array.
    public func render<Generator>(_ context: inout TemplateContext<Generator>) -> [UInt8] {
        var out: [UInt8] = []
        render(into: &out, context: &context)
        return out
    }

    /// Appends the rendered template to `out`, reserving room for the literal text and a little more first.
    ///
    /// A render that runs over the context's budget stops early and sets `context.exceeded`; what it wrote is then
    /// incomplete.
    public func render<Generator>(into out: inout [UInt8], context: inout TemplateContext<Generator>) {
        // Room for the values too: growing the array once it is full copied what was written so far.
        out.reserveCapacity(out.count + literalSize + 256)
        if let plan {
            TemplateRenderer.render(plan, into: &out, context: &context)
        } else {
            var stack: [TemplateValue] = []
            TemplateRenderer.render(nodes, mode: mode, into: &out, context: &context, stack: &stack)
        }
        // The last node may have passed the bound without another node after it to notice.
        _ = context.spend(0, outputBytes: out.count)
    }

    /// The rendered text (a header value).
    public func renderText<Generator>(_ context: inout TemplateContext<Generator>) -> String {
        String(decoding: render(&context), as: UTF8.self)
    }
}

/// The rendering of compiled templates, and the byte formats it writes (JSON escapes, RFC 3339 times, UUIDs).
enum TemplateRenderer {
    static func render<Generator>(
        _ nodes: [TemplateNode], mode: Template.Mode, into out: inout [UInt8], context: inout TemplateContext<Generator>,
        stack: inout [TemplateValue]
    ) {
        for node in nodes {
            // Each node is a step, and the output is checked as it grows: a render over budget stops here.
            guard context.spend(1, outputBytes: out.count) else { return }
            switch node {
            case .literal(let bytes):
                out.append(contentsOf: bytes)
            case .value(let lookup):
                write(resolve(lookup, context: &context, stack: stack), mode: mode, into: &out, context: &context)
            case .section(let lookup, let inverted, let children):
                let value = resolve(lookup, context: &context, stack: stack)
                if inverted {
                    if !isTruthy(value) { render(children, mode: mode, into: &out, context: &context, stack: &stack) }
                    continue
                }
                switch value {
                case .json(.array(let items)):
                    for item in items {
                        guard context.spend(1, outputBytes: out.count) else { return }
                        stack.append(.json(item))
                        render(children, mode: mode, into: &out, context: &context, stack: &stack)
                        stack.removeLast()
                    }
                case .list(let items):
                    // Making the list read the whole path: its length is paid for too.
                    guard context.spend(items.count, outputBytes: out.count) else { return }
                    for item in items {
                        guard context.spend(1, outputBytes: out.count) else { return }
                        stack.append(.text(item))
                        render(children, mode: mode, into: &out, context: &context, stack: &stack)
                        stack.removeLast()
                    }
                default:
                    guard isTruthy(value) else { continue }
                    stack.append(value)
                    render(children, mode: mode, into: &out, context: &context, stack: &stack)
                    stack.removeLast()
                }
            case .expression(let argument, let html):
                let value: HelperValue
                if case .lookup(let lookup) = argument {
                    let resolved = resolve(lookup, context: &context, stack: stack)
                    // A name that is request text is written from the request's bytes, with no string made.
                    if case .text(let text) = resolved {
                        append(text, html: html, escape: mode == .jsonString, into: &out)
                        continue
                    }
                    value = helperValue(resolved, context: &context)
                } else {
                    value = evaluate(argument, context: &context, stack: stack)
                }
                let text = value.text
                if html {
                    appendHTMLEscaped(text.utf8, into: &out)
                } else {
                    append(text.utf8, escape: mode == .jsonString, into: &out)
                }
            case .conditional(let argument, let inverted, let then, let otherwise):
                let holds = evaluate(argument, context: &context, stack: stack).isTruthy != inverted
                render(holds ? then : otherwise, mode: mode, into: &out, context: &context, stack: &stack)
            case .each(let argument, let children, let otherwise):
                let items: [JSONValue]
                switch evaluate(argument, context: &context, stack: stack) {
                case .json(.array(let values)): items = values
                case .json(.object(let members)): items = members.map(\.1)
                default: items = []
                }
                if items.isEmpty { render(otherwise, mode: mode, into: &out, context: &context, stack: &stack) }
                for item in items {
                    guard context.spend(1, outputBytes: out.count) else { return }
                    stack.append(.json(item))
                    render(children, mode: mode, into: &out, context: &context, stack: &stack)
                    stack.removeLast()
                }
            }
        }
    }

    /// A helper argument's value: a name looked up on the request (or the section items), a literal, or a call.
    static func evaluate<Generator>(
        _ argument: HelperArgument, context: inout TemplateContext<Generator>, stack: [TemplateValue]
    ) -> HelperValue {
        switch argument {
        case .literal(let value):
            return value
        case .call(let call):
            return call.evaluate(&context, stack: stack)
        case .lookup(let lookup):
            return helperValue(resolve(lookup, context: &context, stack: stack), context: &context)
        }
    }

    /// A resolved name as a helper's argument (or an expression's value) sees it.
    static func helperValue<Generator>(_ value: TemplateValue, context: inout TemplateContext<Generator>) -> HelperValue
    {
        switch value {
        case .missing: .missing
        case .text(let text): .text(String(text))
        case .json(let json): .json(json)
        case .list(let items): .json(.array(items.map { .string(String($0)) }))
        case .body: .text(String(decoding: context.request.body, as: UTF8.self))
        case .now: .text(TemplateDateFormat.iso.format(milliseconds: Int64(context.now) * 1000))
        case .uuid: .text(String(decoding: context.uuid(), as: UTF8.self))
        }
    }

    /// Handlebars' escaping of `{{x}}`: `&`, `<`, `>`, `"`, `'`, `` ` `` and `=` as entities.
    static func appendHTMLEscaped<Bytes: Collection<UInt8>, Out: RenderOutput>(_ bytes: Bytes, into out: inout Out) {
        func entity(_ text: StaticString) {
            text.withUTF8Buffer { out.append(contentsOf: $0) }
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "&"): entity("&amp;")
            case UInt8(ascii: "<"): entity("&lt;")
            case UInt8(ascii: ">"): entity("&gt;")
            case UInt8(ascii: "\""): entity("&quot;")
            case UInt8(ascii: "'"): entity("&#x27;")
            case UInt8(ascii: "`"): entity("&#x60;")
            case UInt8(ascii: "="): entity("&#x3D;")
            default: out.append(byte)
            }
        }
    }

    /// Mustache's falsy values: missing, null, false, an empty string or list.
    static func isTruthy(_ value: TemplateValue) -> Bool {
        switch value {
        case .missing: false
        case .text(let text): !text.isEmpty
        case .list(let items): !items.isEmpty
        case .json(let json):
            switch json {
            case .null: false
            case .bool(let flag): flag
            case .string(let text): !text.isEmpty
            case .array(let items): !items.isEmpty
            case .number, .object: true
            }
        case .body, .now, .uuid: true
        }
    }

    static func resolve<Generator>(
        _ lookup: TemplateLookup, context: inout TemplateContext<Generator>, stack: [TemplateValue]
    ) -> TemplateValue {
        switch lookup {
        case .root(let root):
            return resolve(root, context: &context)
        case .current:
            return stack.last ?? .missing
        case .contextual(let components, let fallback):
            // The first part is looked up item by item, innermost first; the rest goes down from where it was found.
            let first = components[0]
            for item in stack.reversed() {
                guard case .json(.object(let members)) = item, let found = members.first(where: { $0.0 == first }) else {
                    continue
                }
                return descend(found.1, components.dropFirst())
            }
            return fallback.map { resolve($0, context: &context) } ?? .missing
        }
    }

    static func resolve<Generator>(_ lookup: RootLookup, context: inout TemplateContext<Generator>) -> TemplateValue {
        switch lookup {
        case .method, .path, .pathSegment, .query, .header, .queryValue, .headerValue, .cookie, .url, .parameter:
            return requestText(lookup, context: context).map { .text($0) } ?? .missing
        case .pathSegments:
            return .list(
                context.request.path.utf8.dropFirst().isEmpty
                    ? [] : context.request.path.dropFirst().split(separator: "/", omittingEmptySubsequences: false))
        case .baseUrl:
            return .text(
                ("http://" + (context.request.headers.first(named: "Host") ?? context.request.host ?? "localhost"))[...]
            )
        case .body:
            return .body
        case .json(let components):
            guard let json = context.json() else { return .missing }
            return descend(json, components[...])
        case .graphQL(let components):
            guard let operation = context.graphQL() else { return .missing }
            return descend(operation, components[...])
        case .now: return .now
        case .uuid: return .uuid
        }
    }

    /// The request text a name stands for (`TemplatePlan.isRequestText`), a slice of the request's own strings;
    /// nil when the request has none, or for a name that is not request text. A plan's step writes it through
    /// `appendRequestText`, without a `TemplateValue` made and taken apart again.
    @inline(__always)
    static func requestText<Generator>(_ lookup: RootLookup, context: borrowing TemplateContext<Generator>)
        -> Substring?
    {
        // The request's fields are read where they are: a copy of the request would retain and release each.
        switch lookup {
        case .method: return context.request.method[...]
        case .path: return context.request.path[...]
        case .pathSegment(let position): return pathSegment(context.request.path, position)
        case .query(let name): return PercentDecoding.firstQueryValue(named: name, in: context.request.rawQuery)
        case .header(let name): return context.request.headers.first(named: name)?[...]
        case .queryValue(let name, let position):
            let values = context.request.queryValues(named: name)
            return position < values.count ? values[position][...] : nil
        case .headerValue(let name, let position):
            let values = context.request.headers.all(named: name)
            return position < values.count ? values[position][...] : nil
        case .cookie(let name):
            for header in context.request.headers.all(named: "Cookie") {
                for pair in header.split(separator: ";") {
                    let trimmed = pair.drop { $0 == " " }
                    guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                    return trimmed[trimmed.index(after: equals)...]
                }
            }
            return nil
        case .url: return context.request.originForm[...]
        case .parameter(let index):
            guard let range = context.parameters.range(at: index) else { return nil }
            return context.parameters.text.slice(utf8Offsets: range)
        case .pathSegments, .baseUrl, .body, .json, .graphQL, .now, .uuid: return nil
        }
    }

    /// Members by name, and list items by number (`items.0.name`).
    static func descend(_ value: JSONValue, _ components: ArraySlice<String>) -> TemplateValue {
        var current = value
        for component in components {
            switch current {
            case .object(let members):
                guard let member = members.first(where: { $0.0 == component }) else { return .missing }
                current = member.1
            case .array(let items):
                guard let index = Int(component), index >= 0, index < items.count else { return .missing }
                current = items[index]
            default:
                return .missing
            }
        }
        return .json(current)
    }

    /// Segment `position` (from 0) of a path that starts with `/`, without copying it: `/` alone has no segments;
    /// `/a/` has "a" and "".
    static func pathSegment(_ path: String, _ position: Int) -> Substring? {
        path.withUTF8Bytes { segmentBounds($0, position) }.map { path.slice(utf8Offsets: $0) }
    }

    /// The byte range of segment `position`, found by counting slashes over the bytes in place.
    private static func segmentBounds(_ bytes: UnsafeBufferPointer<UInt8>, _ position: Int) -> Range<Int>? {
        let slash = UInt8(ascii: "/")
        guard bytes.count > 1, bytes[0] == slash else { return nil }
        var start = 1
        var remaining = position
        while true {
            var end = start
            while end < bytes.count && bytes[end] != slash { end += 1 }
            if remaining == 0 { return start..<end }
            guard end != bytes.count else { return nil }
            start = end + 1
            remaining -= 1
        }
    }

    static func write<Generator>(
        _ value: TemplateValue, mode: Template.Mode, into out: inout [UInt8], context: inout TemplateContext<Generator>
    ) {
        let escape = mode == .jsonString
        switch value {
        case .missing:
            return
        case .text(let text):
            append(text, escape: escape, into: &out)
        case .json(let json):
            switch json {
            case .string(let text): append(text.utf8, escape: escape, into: &out)
            case .number(_, let text): out.append(contentsOf: text.utf8)
            case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
            case .null: out.append(contentsOf: "null".utf8)
            case .array, .object: append(json.encodedBytes, escape: escape, into: &out)
            }
        case .list(let items):
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: "/")) }
                append(item.utf8, escape: escape, into: &out)
            }
        case .body:
            // The body may be as large as requests may be: it must fit before it is copied.
            guard context.fits(context.request.body.count, after: out.count) else { return }
            if escape {
                // Inside a JSON string the text must be valid UTF-8: bytes that are not become U+FFFD.
                append(String(decoding: context.request.body, as: UTF8.self).utf8, escape: true, into: &out)
            } else {
                out.append(contentsOf: context.request.body)
            }
        case .now:
            appendTimestamp(context.now, into: &out)
        case .uuid:
            out.append(contentsOf: context.uuid())
        }
    }

    /// Request text an expression names: HTML-escaped for Handlebars' `{{x}}`, else as a value is written. A slice
    /// of the request's strings lends its bytes with `withUTF8`, on a copy: its UTF-8 view lends them only through
    /// the generic `Slice` path, several times the cost.
    @inline(__always)
    static func append<Out: RenderOutput>(_ text: Substring, html: Bool = false, escape: Bool, into out: inout Out) {
        var text = text
        text.withUTF8 { append(bytes: $0, html: html, escape: escape, into: &out) }
    }

    /// One of the request's own strings, its bytes borrowed in place.
    @inline(__always)
    static func append<Out: RenderOutput>(_ text: String, html: Bool = false, escape: Bool, into out: inout Out) {
        let lent: Void? = text.utf8.withContiguousStorageIfAvailable {
            append(bytes: $0, html: html, escape: escape, into: &out)
        }
        if lent == nil { append(text[...], html: html, escape: escape, into: &out) }
    }

    @inline(__always)
    private static func append<Out: RenderOutput>(
        bytes: UnsafeBufferPointer<UInt8>, html: Bool, escape: Bool, into out: inout Out
    ) {
        if html {
            appendHTMLEscaped(bytes, into: &out)
        } else if escape {
            appendJSONEscaped(buffer: bytes, into: &out)
        } else {
            out.append(contentsOf: bytes)
        }
    }

    /// The request text a plan's step names (`requestText`), written as `append(_:html:escape:into:)` writes it.
    /// The method, the path and a header's value are whole strings of the request, a path segment or parameter a
    /// range of the path's bytes, a query value a range of the query's (when it needs no decoding): written with no
    /// slice made of them.
    @inline(__always)
    static func appendRequestText<Generator, Out: RenderOutput>(
        _ lookup: RootLookup, html: Bool, escape: Bool, context: borrowing TemplateContext<Generator>,
        into out: inout Out
    ) {
        switch lookup {
        case .method: append(context.request.method, html: html, escape: escape, into: &out)
        case .path: append(context.request.path, html: html, escape: escape, into: &out)
        case .parameter(let index):
            context.parameters.withValueBytes(at: index) { append(bytes: $0, html: html, escape: escape, into: &out) }
        case .pathSegment(let position):
            context.request.path.withUTF8Bytes { path in
                guard let range = segmentBounds(path, position) else { return }
                append(bytes: UnsafeBufferPointer(rebasing: path[range]), html: html, escape: escape, into: &out)
            }
        case .query(let name):
            PercentDecoding.withFirstQueryValueBytes(named: name, in: context.request.rawQuery) {
                append(bytes: $0, html: html, escape: escape, into: &out)
            }
        case .header(let name):
            guard let value = context.request.headers.first(named: name) else { return }
            append(value, html: html, escape: escape, into: &out)
        default:
            guard let text = requestText(lookup, context: context) else { return }
            append(text, html: html, escape: escape, into: &out)
        }
    }

    @inline(__always)
    static func append<Bytes: Collection<UInt8>>(_ bytes: Bytes, escape: Bool, into out: inout [UInt8]) {
        guard escape else {
            out.append(contentsOf: bytes)
            return
        }
        appendJSONEscaped(bytes, into: &out)
    }

    /// Appends bytes as the inside of a JSON string: quotes, backslashes and control characters escaped.
    static func appendJSONEscaped<Bytes: Collection<UInt8>>(_ bytes: Bytes, into out: inout [UInt8]) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { appendJSONEscaped(buffer: $0, into: &out) }
        if done == nil {
            Array(bytes).withUnsafeBufferPointer { appendJSONEscaped(buffer: $0, into: &out) }
        }
    }

    /// Copies the runs between escapes whole: most values have none, or a few quotes.
    static func appendJSONEscaped<Out: RenderOutput>(buffer: UnsafeBufferPointer<UInt8>, into out: inout Out) {
        var runStart = 0
        for index in 0..<buffer.count {
            let byte = buffer[index]
            guard needsEscape(byte) else { continue }
            if runStart < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index])) }
            runStart = index + 1
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
            case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
            default:
                out.append(UInt8(ascii: "u"))
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "0"))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            }
        }
        if runStart < buffer.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart...])) }
    }

    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    static func jsonEscaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        appendJSONEscaped(bytes, into: &out)
        return out
    }

    @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// `2024-05-01T12:34:56Z`: RFC 3339 in UTC, to the second.
    static func appendTimestamp(_ seconds: Int, into out: inout [UInt8]) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm), without Foundation's calendars.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        appendDigits(year, count: 4, into: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(month, count: 2, into: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(day, count: 2, into: &out)
        out.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, count: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, count: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, count: 2, into: &out)
        out.append(UInt8(ascii: "Z"))
    }

    private static func appendDigits(_ value: Int, count: Int, into out: inout [UInt8]) {
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: count)
        var rest = max(0, value)
        var index = count - 1
        while index >= 0 {
            digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        }
        out.append(contentsOf: digits)
    }

    /// A version 4 UUID in lower case (`8-4-4-4-12` hex digits) from 128 random bits.
    static func uuid(high: UInt64, low: UInt64) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * index))
            bytes[index + 8] = UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * index))
        }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hexDigit(byte >> 4))
            text.append(hexDigit(byte & 0xF))
        }
        return text
    }
}
