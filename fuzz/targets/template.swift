// libFuzzer target: response templates (Sources/OrreryCore/Templates) compiled from fuzzed text and rendered
// against fuzzed requests.
//
// Input: a control byte (bit 0: the template is a `json:` body, parsed as YAML and compiled with compileJSON;
// bit 1: a text template is also rendered as a header value; bit 2: a small render budget), the template, then requests after 0x01 bytes (see
// FuzzSupport.request(from:)). The stub's path has the parameters {id} and {name}, bound to the request's first two
// path segments. Checks: nothing crashes; a compile error's line is inside the template; the same request renders
// the same bytes twice (the clock and the random numbers held still); a `json:` body renders valid JSON whatever the
// request holds; a header value never gets a line break or a NUL from a request; text without tags renders as itself;
// a render within its budget is complete and no larger than the budget's bytes, one over it is so both times.

import Foundation
@testable import OrreryCore

let scope = TemplateScope(parameterNames: ["id", "name"])
let fixedNow = Date(timeIntervalSince1970: 1_700_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let control = data[0]
    let pieces = parts(Array(UnsafeBufferPointer(start: data + 1, count: size - 1))[...])
    let source = text(pieces[0])
    let lines = lineCount(Array(pieces[0]))
    let compiler = TemplateCompiler(scope: scope)
    let template: Template
    let isJSON = control & 1 != 0
    if isJSON {
        guard let node = try? StubLoader.parse(Array(pieces[0]), isJSON: false) else { return 0 }
        do {
            template = try compiler.compileJSON(node, isYAML: true)
        } catch {
            require(error.line >= 0 && error.line <= lines + 1, "line \(error.line) of \(lines): \(error.message)")
            return 0
        }
    } else {
        do {
            template = try compiler.compile(source)
        } catch {
            require(error.line >= 1 && error.line <= lines, "line \(error.line) of \(lines): \(error.message)")
            return 0
        }
    }
    let requests = pieces.dropFirst().prefix(8).map { request(from: $0) }
    // Bit 2: a small budget, so that renders over it (nested sections, long lists) are reached and stop cleanly.
    let budget = control & 4 != 0 ? TemplateBudget(maximumBytes: 4_096, maximumSteps: 2_000) : TemplateBudget()
    for request in requests.isEmpty ? [HTTPRequest(method: "GET", target: "/")] : requests {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        let parameters = PathParameters(names: ["id", "name"], values: Array(segments.prefix(2)))
        var context = TemplateContext(
            request: request, parameters: parameters, now: fixedNow, generator: FixedGenerator(), budget: budget)
        let rendered = template.render(&context)
        var again = TemplateContext(
            request: request, parameters: parameters, now: fixedNow, generator: FixedGenerator(), budget: budget)
        require(template.render(&again) == rendered, "rendered differently twice")
        require(again.exceeded == context.exceeded, "over budget once, not twice")
        if context.exceeded != nil {
            // Cut short: the server sends a 500 instead, so the partial output is not checked as an answer.
            continue
        }
        require(rendered.count <= budget.maximumBytes, "\(rendered.count) bytes within a budget of \(budget.maximumBytes)")
        if isJSON {
            require(
                JSONBodyParser.parse(rendered) != nil,
                "not JSON: \(String(decoding: rendered, as: UTF8.self).debugDescription) from \(source.debugDescription)")
        } else if template.isConstant && !source.contains("{{") {
            require(rendered == Array(source.utf8), "text without tags rendered as \(rendered)")
        }
        if !isJSON && control & 2 != 0 {
            let headers = ResponseTemplate(body: nil, headers: [.init(index: 0, value: template)])
                .renderHeaders(["X-Rendered": ""], context: &context)
            let value = headers.entries[0].value.utf8
            require(!value.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }, "a header value with a line break: \(value)")
        }
    }
    return 0
}
