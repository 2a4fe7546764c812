/// Where fixtures go under a recording folder: one YAML file per route, named after it so that a diff reads like
/// the API (`api.example.com/api/v1/users.GET.yaml`), with large or binary bodies in a `bodies/` folder beside it.
public enum FixtureLayout {
    /// The route file of a request, relative to the recording folder.
    public static func routeFile(folder: String, method: String, path: String) -> String {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(safeName)
        // `/` and `/users/` end in an empty segment: their file is `index`.
        if segments.last?.isEmpty ?? true {
            if !segments.isEmpty { segments.removeLast() }
            segments.append("index")
        }
        let last = segments.removeLast()
        let folders = [safeName(Substring(folder))] + segments.map { $0.isEmpty ? "_" : $0 }
        return (folders + ["\(last).\(safeName(Substring(method))).yaml"]).joined(separator: "/")
    }

    /// A body file's path relative to its route file's folder: `bodies/users.GET.<hash>.<ext>`, named by content
    /// so that recording the same bytes again changes nothing.
    static func bodyFile(routeFile: String, bytes: [UInt8], contentType: String?) -> String {
        let name = routeFile.split(separator: "/").last.map { String($0.dropLast(".yaml".count)) } ?? "body"
        return "bodies/\(name).\(hash(bytes)).\(fileExtension(contentType))"
    }

    /// A path segment as a file name: letters, digits and `-_.~@+=,` kept, anything else `_`; never hidden, never
    /// `..`, never `bodies` (the loader skips such folders), and at most 80 characters.
    static func safeName(_ segment: Substring) -> String {
        var name = String(
            segment.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "~", "@", "+", "=", ",": Character(scalar)
                default: "_"
                }
            })
        if name.hasPrefix(".") { name = "_" + name.dropFirst() }
        if name.lowercased() == "bodies" { name += "_" }
        if StubLoader.isTemporary(name) { name += "_" }
        return String(name.prefix(80))
    }

    /// An extension that says what the body is, from its content type; `bin` when unknown, so that the loader
    /// guesses no content type the recording did not have.
    static func fileExtension(_ contentType: String?) -> String {
        let type = mediaType(contentType ?? "")
        return StubDecoder.bodyFileTypes.first { mediaType($0.contentType) == type }?.extension ?? "bin"
    }

    private static func mediaType(_ contentType: String) -> String {
        contentType.split(separator: ";").first?.trimmingCharacters(in: " \t").lowercased() ?? ""
    }

    /// 16 hex digits that name a body by its content.
    static func hash(_ bytes: [UInt8]) -> String {
        StubID.hex16(StubID.fnv1a(bytes))
    }
}
