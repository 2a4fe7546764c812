// libFuzzer target: request patterns (`request:` sections, regexes in urlPattern, pathPattern and `matches`
// among them) built from fuzzed text, matched against fuzzed requests through the route index.
//
// Input: a control byte (bit 0: the patterns are JSON, else YAML), then a `request:` section or a list of them,
// then requests after 0x01 bytes (see FuzzSupport.request(from:)). Each section that decodes becomes a stub in
// load order. Checks: for every request, the index answers with a stub that matches it and that no other matching
// stub outranks, or with none when none matches; a pattern's list of differences is empty exactly when it matches;
// the near misses of a request never crash.

import Foundation
@testable import OrreryCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let isJSON = bytes[0] & 1 == 1
    let pieces = parts(bytes[1...])
    guard let node = try? StubLoader.parse(Array(pieces[0]), isJSON: isJSON) else { return 0 }
    let sections: [SourceNode]
    if case .array(let items) = node.value { sections = Array(items.prefix(16)) } else { sections = [node] }
    var stubs: [Stub] = []
    for (position, section) in sections.enumerated() {
        var decoder = StubDecoder(
            displayPath: "fuzz", source: scratchSource, folder: "", makeID: { "\($0)" })
        let pattern = decoder.decodeRequestPattern(section)
        guard decoder.errors.isEmpty else { continue }
        stubs.append(Stub(id: "stub-\(position)", request: pattern, response: ResponseDefinition()))
    }
    guard !stubs.isEmpty else { return 0 }
    let index = StubIndex(stubs)
    for piece in pieces.dropFirst().prefix(16) {
        checkLookup(index, request(from: piece))
    }
    return 0
}
