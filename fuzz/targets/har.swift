// libFuzzer target: `orrery import har` without the disk: a HAR file read (JSONValue.parse, HARImport), its
// exchanges written as fixture files (FixtureFile, as FixtureWriter does), and those files loaded again.
//
// Input: a control byte (bit 0: fixtures pin the host; bit 1: they match the X-Api-Key header), then the HAR
// file. Secrets are redacted as `--redact-header Authorization --redact-query token --redact-json password` would.
// Checks: nothing crashes; every fixture file the import writes loads again without an error (through libyaml and
// StubDecoder, its body files beside it); and each imported request, sent again, is answered by a stub of its file
// that has its status among its answers. Bodies read from gzip or deflate are not undone here (zlib lives in the
// event layer), so those entries take the path of a tool that kept its bodies decoded.

import Foundation
@testable import OrreryCore

let redactor = Redactor(headers: ["Authorization"], queryParameters: ["token"], jsonFields: ["password"])
nonisolated(unsafe) var runs = 0  // libFuzzer calls the target from one thread.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let control = data[0]
    guard let har = try? JSONValue.parse(UnsafeBufferPointer(start: data + 1, count: size - 1)) else { return 0 }
    let matchHeaders = control & 2 != 0 ? ["X-Api-Key"] : []
    guard
        let result = try? HARImport.exchanges(
            from: har, matchHeaders: matchHeaders, pinsHost: control & 1 != 0, redactor: redactor)
    else { return 0 }

    // The route files, as FixtureWriter fills them (in a fresh folder).
    var files: [String: FixtureFile] = [:]
    var exchangesByFile: [String: [RecordedExchange]] = [:]
    for exchange in result.exchanges.prefix(32) {
        let route = FixtureLayout.routeFile(folder: exchange.folder, method: exchange.method, path: exchange.path)
        require(!route.hasPrefix("/") && !route.split(separator: "/").contains(".."), "route file \(route)")
        var file = files[route] ?? FixtureFile(relativePath: route, comment: "fuzz")
        _ = file.add(exchange)
        files[route] = file
        exchangesByFile[route, default: []].append(exchange)
    }
    runs += 1
    // The recording folder as the loader reads it: each route file's body files beside it, in memory.
    var folder = MemoryStubSource(root: "recordings")
    var texts: [String: String] = [:]
    for (route, var file) in files {
        let (text, bodyFiles) = file.render()
        texts[route] = text
        for body in bodyFiles { folder.files[body.path] = body.bytes }
    }
    for (route, text) in texts.sorted(by: { $0.key < $1.key }) {
        let directory = route.split(separator: "/").dropLast().joined(separator: "/")
        let node: SourceNode
        do {
            node = try StubLoader.parse(Array(text.utf8), isJSON: false)
        } catch {
            fatalError("the fixture file \(route) does not parse: line \(error.line): \(error.message)\n\(text)")
        }
        var decoder = StubDecoder(
            displayPath: route, source: folder, folder: directory, makeID: { StubID.make(file: route, index: $0) })
        let stubs = decoder.decodeFile(node)
        require(decoder.errors.isEmpty, "the fixture file \(route) does not load: \(decoder.errors)\n\(text)")
        let index = StubIndex(stubs)
        for exchange in exchangesByFile[route] ?? [] {
            var headers = HTTPHeaders(exchange.matchedHeaders)
            if let host = exchange.host { headers.add("Host", host) } else { headers.add("Host", "127.0.0.1") }
            let request = HTTPRequest(method: exchange.method, target: exchange.target, headers: headers, body: exchange.requestBody)
            guard let found = index.lookup(request) else {
                fatalError("no fixture of \(route) answers \(exchange.method) \(exchange.target)\n\(text)")
            }
            require(
                found.stub.responses.contains { $0.status == exchange.status },
                "\(exchange.method) \(exchange.target) is answered without its status \(exchange.status)\n\(text)")
        }
    }
    return 0
}
