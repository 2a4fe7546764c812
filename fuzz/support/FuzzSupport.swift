// What the fuzz targets built on the whole of OrreryCore share (see scripts/fuzz.sh): input splitting, a request
// from text, and the check that stops a run.

import Foundation
@testable import OrreryCore

/// Stops the run with a message when a property does not hold; libFuzzer keeps the input that did it.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}

/// The parts of an input, split at the byte 0x01 (which no seed uses otherwise): the fuzzer can grow each part
/// without moving the others.
func parts(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
    bytes.split(separator: 0x01, omittingEmptySubsequences: false)
}

func text(_ bytes: ArraySlice<UInt8>) -> String {
    String(decoding: bytes, as: UTF8.self)
}

/// A request from text written as `METHOD TARGET`, header lines `Name: value`, an empty line and the body. Nothing
/// is refused: the matchers and templates must cope with whatever a request holds, as the parser lets through
/// less than this.
func request(from bytes: ArraySlice<UInt8>) -> HTTPRequest {
    let lines = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 1, omittingEmptySubsequences: false)
    let first = text(lines.first ?? [])
    let words = first.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
    let method = words.first.map(String.init) ?? "GET"
    let target = words.count > 1 ? String(words[1]) : "/"
    var headers = HTTPHeaders()
    var body: [UInt8] = []
    if lines.count > 1, let rest = lines.last {
        // Headers end at the first empty line; the body is everything after it.
        var remaining = rest[...]
        while !remaining.isEmpty {
            let end = remaining.firstIndex(of: UInt8(ascii: "\n")) ?? remaining.endIndex
            let line = remaining[remaining.startIndex..<end]
            remaining = end < remaining.endIndex ? remaining[(end + 1)...] : []
            if line.isEmpty {
                body = Array(remaining)
                break
            }
            if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                let name = text(line[line.startIndex..<colon])
                let value = text(line[(colon + 1)...]).trimmingCharacters(in: .whitespaces)
                headers.add(name, value)
            }
        }
    }
    return HTTPRequest(method: method, target: target, headers: headers, body: body)
}

/// A random number generator that gives the same numbers every run, so that a failing input fails again.
struct FixedGenerator: RandomNumberGenerator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

/// The stubs folder `bodyFile` paths resolve in, as the loader reads it (in memory: the core reads no disk):
/// `bodies/body.json` inside it, and beside it (outside the folder) `outside.json`, whose text no stub may ever serve.
let scratchSource = MemoryStubSource(
    root: "stubs", texts: ["bodies/body.json": "{\"fuzz\":true}", "../outside.json": outsideText])

let outsideText = "OUTSIDE-THE-STUBS-FOLDER"

/// The index's answer against every stub tried in turn.
func checkLookup(_ index: StubIndex, _ request: HTTPRequest) {
    let found = index.lookup(request)
    func answers(_ entry: IndexedStub, method: String) -> Bool {
        entry.stub.request.matches(request, method: method)
            && (entry.stub.scenario.map { $0.allows(ScenarioStates.started) } ?? true)
    }
    let methods = request.method == "HEAD" ? ["HEAD", "GET"] : [request.method]
    let matching = index.stubs.filter { entry in methods.contains { answers(entry, method: $0) } }
    for entry in index.stubs {
        // A matcher's list of differences is empty exactly when it matches.
        let differences = entry.stub.request.mismatches(request)
        require(
            differences.isEmpty == entry.stub.request.matches(request),
            "matches() and mismatches() disagree for \(entry.stub.id): \(differences)")
    }
    guard let found else {
        require(matching.isEmpty, "no answer for \(request.method) \(request.target), but \(matching.map(\.stub.id)) match")
        _ = index.nearMisses(request)
        return
    }
    require(
        matching.contains { $0 === found }, "\(found.stub.id) answers \(request.method) \(request.target) without matching")
    if request.method != "HEAD" {
        let best = matching.min { $0.rank < $1.rank }
        require(best === found, "\(found.stub.id) answers, but \(best?.stub.id ?? "-") ranks better")
    }
}

/// The lines of a text as libyaml counts them: a line ends at LF, CR, CR LF, NEL, LS or PS.
func lineCount(_ bytes: [UInt8]) -> Int {
    var lines = 1
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        if byte == 0x0A || (byte == 0x0D && (index + 1 == bytes.count || bytes[index + 1] != 0x0A)) {
            lines += 1
        } else if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] == 0x85 {
            lines += 1
        } else if byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] & 0xFE == 0xA8 {
            lines += 1
        }
        index += 1
    }
    return lines
}
