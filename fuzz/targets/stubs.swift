// libFuzzer target: stub files through the path the daemon loads them by (StubLoader.parse: Orrery's JSON parser
// or libyaml through Yams, then StubDecoder), and the stubs that load through the route index.
//
// Input: a control byte (bit 0: the file is JSON, else YAML), the file, then requests after 0x01 bytes (see
// FuzzSupport.request(from:)). Checks: loading never crashes and gives the same answer twice; every error names the
// file and a line inside it; a bodyFile never reads outside the stubs folder; for every request, the index answers
// with a stub that matches it and that no other matching stub outranks, or with none when none matches.

import Foundation
@testable import OrreryCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let isJSON = bytes[0] & 1 == 1
    let pieces = parts(bytes[1...])
    let file = Array(pieces[0])
    let display = isJSON ? "fuzz.json" : "fuzz.yaml"

    let first = load(file, isJSON: isJSON, display: display)
    let again = load(file, isJSON: isJSON, display: display)
    require(first.summary == again.summary, "loaded differently twice:\n\(first.summary)\n\(again.summary)")

    let lines = lineCount(file)
    for error in first.errors {
        require(error.file == display, "an error names \(error.file): \(error.message)")
        require(error.line >= 0 && error.line <= lines + 1, "line \(error.line) of \(lines): \(error.message)")
    }
    guard first.errors.isEmpty, !first.stubs.isEmpty else { return 0 }
    for stub in first.stubs {
        require(!stub.id.isEmpty, "a stub without an id")
        for response in stub.responses {
            require(!text(response.body[...]).contains(outsideText), "a bodyFile read from outside the stubs folder")
        }
    }
    let index = StubIndex(first.stubs)
    for piece in pieces.dropFirst() {
        checkLookup(index, request(from: piece))
    }
    return 0
}

struct Loaded {
    var stubs: [Stub] = []
    var errors: [SourceError] = []
    var summary: String {
        "\(stubs.map { "\($0.id) \($0.request.specificity)" }) \(errors.map { "\($0.line): \($0.message)" })"
    }
}

/// What StubLoader.loadFile does once the bytes are read.
func load(_ file: [UInt8], isJSON: Bool, display: String) -> Loaded {
    let node: SourceNode
    do {
        node = try StubLoader.parse(file, isJSON: isJSON)
    } catch {
        return Loaded(errors: [SourceError(file: display, line: error.line, message: error.message)])
    }
    var decoder = StubDecoder(
        displayPath: display, source: scratchSource, folder: "",
        makeID: { StubID.make(file: display, index: $0) })
    let stubs = decoder.decodeFile(node)
    return Loaded(stubs: decoder.errors.isEmpty ? stubs : [], errors: decoder.errors)
}
