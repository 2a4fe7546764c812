/// An XML document read into a flat list of nodes in document order, for the `xml` and `xpath` body matchers.
///
/// The reader takes what request bodies carry (SOAP envelopes, XML APIs): elements, attributes, text, CDATA,
/// character and the five predefined entity references. Comments, processing instructions and the document type
/// declaration are skipped. Namespaces are kept as written (`soap:Body`); XPath name tests compare local names
/// when they name a prefix, as the prefix a client picks is its own.
public struct XMLTree: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case root
        case element
        case attribute
        case text
    }

    /// One node; `children` and `attributes` are indices into `nodes`.
    public struct Node: Sendable, Equatable {
        public var kind: Kind
        /// The qualified name of an element or attribute; empty for the root and text.
        public var name: String
        /// The text of a text node or the value of an attribute.
        public var value: String
        public var parent: Int
        public var children: [Int] = []
        public var attributes: [Int] = []
    }

    /// Node 0 is the root; every node's index is its place in document order.
    public private(set) var nodes: [Node]
    /// The text it was read from, for a stub to be written out again (`orrery export hoverfly`).
    public let source: String

    /// Elements nested deeper than this are refused, so that no body can exhaust the stack of what walks the tree.
    static let maximumDepth = 256

    public init(parsing text: String) throws(XMLSyntaxError) {
        nodes = [Node(kind: .root, name: "", value: "", parent: -1)]
        source = text
        var reader = Reader(Array(text.unicodeScalars))
        try read(&reader)
    }

    public init?(_ bytes: [UInt8]) {
        guard let tree = try? XMLTree(parsing: String(decoding: bytes, as: UTF8.self)) else { return nil }
        self = tree
    }

    /// The local part of a qualified name (`soap:Body` is `Body`).
    static func localName(_ name: String) -> Substring {
        guard let colon = name.lastIndex(of: ":") else { return Substring(name) }
        return name[name.index(after: colon)...]
    }

    /// A node's string value as XPath 1.0 defines it: the text of every text node under an element or the root.
    public func stringValue(_ index: Int) -> String {
        let node = nodes[index]
        switch node.kind {
        case .attribute, .text: return node.value
        case .root, .element:
            var out = ""
            var stack = Array(node.children.reversed())
            while let next = stack.popLast() {
                let child = nodes[next]
                if child.kind == .text { out += child.value } else { stack += child.children.reversed() }
            }
            return out
        }
    }

    /// Whether two documents are the same once insignificant whitespace is gone: the same elements in the same
    /// order with the same attributes (in any order) and the same text, trimmed; comments are not compared.
    public func isEquivalent(to other: XMLTree) -> Bool {
        func same(_ left: Int, _ right: Int) -> Bool {
            let a = nodes[left], b = other.nodes[right]
            guard a.kind == b.kind, a.name == b.name else { return false }
            if a.kind == .text { return a.value.trimmedXMLSpace == b.value.trimmedXMLSpace }
            let attributesA = a.attributes.map { (nodes[$0].name, nodes[$0].value) }.sorted { $0.0 < $1.0 }
            let attributesB = b.attributes.map { (other.nodes[$0].name, other.nodes[$0].value) }.sorted { $0.0 < $1.0 }
            guard attributesA.elementsEqual(attributesB, by: { $0 == $1 }) else { return false }
            let childrenA = a.children.filter { !isBlankText($0) }
            let childrenB = b.children.filter { !other.isBlankText($0) }
            return childrenA.count == childrenB.count && zip(childrenA, childrenB).allSatisfy { same($0, $1) }
        }
        return same(0, 0)
    }

    private func isBlankText(_ index: Int) -> Bool {
        nodes[index].kind == .text && nodes[index].value.trimmedXMLSpace.isEmpty
    }

    // MARK: - Reading

    private mutating func read(_ reader: inout Reader) throws(XMLSyntaxError) {
        var open: [Int] = [0]
        var text = ""
        var hasElement = false
        func flush(_ tree: inout XMLTree, _ parent: Int) {
            guard !text.isEmpty else { return }
            if parent != 0 {
                let index = tree.nodes.count
                tree.nodes.append(Node(kind: .text, name: "", value: text, parent: parent))
                tree.nodes[parent].children.append(index)
            } else if !text.trimmedXMLSpace.isEmpty {
                // Text outside the document element is only whitespace in well-formed XML.
                text = ""
                return
            }
            text = ""
        }
        while let scalar = reader.peek() {
            let parent = open[open.count - 1]
            guard scalar == "<" else {
                if scalar == "&" {
                    text.unicodeScalars.append(contentsOf: try reader.reference())
                } else {
                    text.unicodeScalars.append(scalar)
                    reader.advance()
                }
                continue
            }
            if reader.skip("<!--") {
                try reader.skip(past: "-->", what: "comment")
            } else if reader.skip("<![CDATA[") {
                text += try reader.take(upTo: "]]>", what: "CDATA section")
            } else if reader.skip("<?") {
                try reader.skip(past: "?>", what: "processing instruction")
            } else if reader.skip("<!") {
                try reader.skipDeclaration()
            } else if reader.skip("</") {
                flush(&self, parent)
                let name = reader.name()
                reader.skipSpace()
                guard reader.skip(">") else { throw reader.error("expected '>' to end </\(name)") }
                guard parent != 0, nodes[parent].name == name else {
                    throw reader.error(parent == 0 ? "</\(name)> closes nothing" : "</\(name)> closes <\(nodes[parent].name)>")
                }
                open.removeLast()
            } else {
                reader.advance()
                flush(&self, parent)
                guard parent != 0 || !hasElement else { throw reader.error("a second document element") }
                hasElement = true
                let name = reader.name()
                guard !name.isEmpty else { throw reader.error("expected an element name after '<'") }
                let index = nodes.count
                nodes.append(Node(kind: .element, name: name, value: "", parent: parent))
                nodes[parent].children.append(index)
                var isEmpty = false
                while true {
                    reader.skipSpace()
                    if reader.skip("/>") {
                        isEmpty = true
                        break
                    }
                    if reader.skip(">") { break }
                    let attribute = reader.name()
                    guard !attribute.isEmpty else { throw reader.error("expected an attribute name or '>' in <\(name)>") }
                    reader.skipSpace()
                    guard reader.skip("=") else { throw reader.error("expected '=' after the attribute \(attribute)") }
                    reader.skipSpace()
                    let value = try reader.quoted()
                    let attributeIndex = nodes.count
                    nodes.append(Node(kind: .attribute, name: attribute, value: value, parent: index))
                    nodes[index].attributes.append(attributeIndex)
                }
                if !isEmpty {
                    guard open.count <= Self.maximumDepth else {
                        throw reader.error("elements nested more than \(Self.maximumDepth) deep")
                    }
                    open.append(index)
                }
            }
        }
        guard open.count == 1 else { throw reader.error("<\(nodes[open[open.count - 1]].name)> is never closed") }
        guard hasElement else { throw reader.error("no document element") }
    }

    /// A cursor over the scalars of the text.
    private struct Reader {
        let scalars: [Unicode.Scalar]
        var position = 0

        init(_ scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        func peek() -> Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        mutating func advance() { position += 1 }

        func error(_ message: String) -> XMLSyntaxError { XMLSyntaxError(message: message, offset: position) }

        mutating func skip(_ literal: String) -> Bool {
            var end = position
            for scalar in literal.unicodeScalars {
                guard end < scalars.count, scalars[end] == scalar else { return false }
                end += 1
            }
            position = end
            return true
        }

        mutating func take(upTo literal: String, what: String) throws(XMLSyntaxError) -> String {
            let start = position
            var out = ""
            while position < scalars.count {
                if skip(literal) { return out }
                out.unicodeScalars.append(scalars[position])
                position += 1
            }
            position = start
            throw error("unterminated \(what)")
        }

        mutating func skip(past literal: String, what: String) throws(XMLSyntaxError) {
            _ = try take(upTo: literal, what: what)
        }

        /// `<!DOCTYPE ...>`, with an internal subset in brackets.
        mutating func skipDeclaration() throws(XMLSyntaxError) {
            var depth = 0
            while let scalar = peek() {
                advance()
                if scalar == "[" { depth += 1 } else if scalar == "]" { depth -= 1 } else if scalar == ">" && depth <= 0 { return }
            }
            throw error("unterminated declaration")
        }

        mutating func skipSpace() {
            while let scalar = peek(), scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" { advance() }
        }

        mutating func name() -> String {
            var out = ""
            while let scalar = peek() {
                let isDelimiter = scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "/"
                    || scalar == ">" || scalar == "=" || scalar == "<" || scalar == "\"" || scalar == "'"
                guard !isDelimiter else { break }
                out.unicodeScalars.append(scalar)
                advance()
            }
            return out
        }

        mutating func quoted() throws(XMLSyntaxError) -> String {
            guard let quote = peek(), quote == "\"" || quote == "'" else { throw error("expected a quoted attribute value") }
            advance()
            var out = ""
            while let scalar = peek() {
                if scalar == quote {
                    advance()
                    return out
                }
                if scalar == "&" {
                    out.unicodeScalars.append(contentsOf: try reference())
                } else {
                    out.unicodeScalars.append(scalar)
                    advance()
                }
            }
            throw error("unterminated attribute value")
        }

        /// `&lt;`, `&#65;`, `&#x41;` and the others of the five.
        mutating func reference() throws(XMLSyntaxError) -> [Unicode.Scalar] {
            let start = position
            advance()
            var name = ""
            while let scalar = peek(), scalar != ";", name.unicodeScalars.count < 12 {
                name.unicodeScalars.append(scalar)
                advance()
            }
            guard skip(";") else {
                position = start
                throw error("'&' starts no entity reference (write &amp;)")
            }
            switch name {
            case "lt": return ["<"]
            case "gt": return [">"]
            case "amp": return ["&"]
            case "quot": return ["\""]
            case "apos": return ["'"]
            default:
                var digits = Substring(name)
                guard digits.first == "#" else {
                    position = start
                    throw error("unknown entity &\(name);")
                }
                digits = digits.dropFirst()
                let radix = digits.first == "x" ? 16 : 10
                if radix == 16 { digits = digits.dropFirst() }
                guard let value = UInt32(digits, radix: radix), let scalar = Unicode.Scalar(value) else {
                    position = start
                    throw error("bad character reference &\(name);")
                }
                return [scalar]
            }
        }
    }
}

/// Why a text is not XML, and where (the offset in Unicode scalars).
public struct XMLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int

    public var description: String { "\(message) at offset \(offset)" }
}

extension String {
    /// Without XML's whitespace (space, tab, CR, LF) at either end.
    var trimmedXMLSpace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
