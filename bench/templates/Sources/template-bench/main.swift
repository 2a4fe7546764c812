import Foundation
import Mustache
import OrreryCore

// Renders the same JSON response template for the same request with Orrery's compiled templates and with
// swift-mustache 2.1.1, checks that both give the same JSON, and prints nanoseconds per render (the median of
// several rounds). Run: swift run -c release --package-path bench/templates template-bench [renders-per-round]

/// JSON-string escaping for swift-mustache, so that its output is valid JSON whatever the values hold (its default
/// is HTML escaping, and turning escaping off makes invalid JSON when a value holds a quote).
struct JSONStringContentType: MustacheContentType {
    func escapeText(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let control where control.value < 0x20: out += String(format: "\\u%04x", control.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// A bench case: one template written for both engines, and the request it is rendered for.
struct BenchCase {
    var name: String
    /// The template as a stub's `json:` tree (Orrery renders each string of it as a template).
    var orreryJSON: String
    /// The same response as one swift-mustache template over the whole JSON text.
    var mustacheText: String
    var readsBody: Bool
}

let request = HTTPRequest(
    method: "POST", target: "/api/v1/users/7?page=2&sort=name",
    headers: ["Host": "127.0.0.1:8080", "User-Agent": "orrery-bench/1.0 (\"quoted\")", "Accept": "application/json",
        "Content-Type": "application/json"],
    body: Array(#"{"user": {"name": "Ada \"The Countess\" Lovelace", "email": "ada@example.com"}, "items": [{"sku": "A-1"}]}"#.utf8))
let parameters = PathParameters(names: ["id"], values: ["7"])

let cases = [
    BenchCase(
        name: "request fields (path, params, query, headers, method)",
        orreryJSON: #"{"id": "{{params.id}}", "path": "{{request.path}}", "page": "{{request.query.page}}", "agent": "{{request.headers.user-agent}}", "method": "{{request.method}}", "kind": "user", "version": 3, "active": true}"#,
        mustacheText: "{{% CONTENT_TYPE: JSON }}" + #"{"id":"{{params.id}}","path":"{{request.path}}","page":"{{request.query.page}}","agent":"{{request.headers.user-agent}}","method":"{{request.method}}","kind":"user","version":3,"active":true}"#,
        readsBody: false),
    BenchCase(
        name: "with JSON body fields (the body parsed per render)",
        orreryJSON: #"{"id": "{{params.id}}", "name": "{{request.json.user.name}}", "email": "{{request.json.user.email}}", "agent": "{{request.headers.user-agent}}", "page": "{{request.query.page}}", "kind": "user", "active": true}"#,
        mustacheText: "{{% CONTENT_TYPE: JSON }}" + #"{"id":"{{params.id}}","name":"{{request.json.user.name}}","email":"{{request.json.user.email}}","agent":"{{request.headers.user-agent}}","page":"{{request.query.page}}","kind":"user","active":true}"#,
        readsBody: true),
]

/// swift-mustache's context for the request: what a server would build per request.
func mustacheContext(_ request: HTTPRequest, parsingBody: Bool) -> [String: Any] {
    var query: [String: Any] = [:]
    for item in request.query where query[item.name] == nil { query[item.name] = item.value }
    var headers: [String: Any] = [:]
    for (name, value) in request.headers where headers[name.lowercased()] == nil { headers[name.lowercased()] = value }
    var fields: [String: Any] = ["method": request.method, "path": request.path, "query": query, "headers": headers]
    if parsingBody { fields["json"] = (try? JSONSerialization.jsonObject(with: Data(request.body))) ?? [:] }
    return ["request": fields, "params": ["id": String(parameters.values[0])]]
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// Nanoseconds per call of `body`, the median of `rounds` rounds of `count` calls.
func measure(rounds: Int = 7, count: Int, _ body: () -> Int) -> Double {
    var sink = 0
    var results: [Double] = []
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<count { sink &+= body() }
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        results.append(Double(elapsed) / Double(count))
    }
    if sink == 42 { print("") }  // keeps the work from being optimised away
    return median(results)
}

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 50_000
// `template-bench N only-orrery`: Orrery's renders alone, for counting instructions under callgrind;
// `only-mustache`: swift-mustache's, its context built per request.
let isOrreryOnly = CommandLine.arguments.contains("only-orrery")
/// `case=N` runs one case alone.
let onlyCase = CommandLine.arguments.first { $0.hasPrefix("case=") }.flatMap { Int($0.dropFirst(5)) }
MustacheContentTypes.register(JSONStringContentType(), named: "JSON")
print("renders per round: \(count) (swift-mustache: \(count / 5)); median of 7 rounds; ns per render")
print("case | Orrery compiled | swift-mustache, context built per request | swift-mustache, context built once")

for (number, benchCase) in cases.enumerated() where onlyCase.map({ $0 == number }) ?? true {
    let node = try StubLoader.parse(Array(benchCase.orreryJSON.utf8), isJSON: true)
    let template = try TemplateCompiler(scope: TemplateScope(parameterNames: ["id"])).compileJSON(node)
    let mustache = try MustacheTemplate(string: benchCase.mustacheText)
    let now = Date()

    var context = TemplateContext(request: request, parameters: parameters, now: now)
    let ours = template.render(&context)
    let theirs = mustache.render(mustacheContext(request, parsingBody: benchCase.readsBody))
    guard let oursJSON = try? JSONValue.parse(ours), let theirsJSON = try? JSONValue.parse(theirs), oursJSON == theirsJSON else {
        print("outputs differ for \(benchCase.name):\n  \(String(decoding: ours, as: UTF8.self))\n  \(theirs)")
        exit(1)
    }

    let orrery = CommandLine.arguments.contains("only-mustache") ? 0 : measure(count: count) {
        var context = TemplateContext(request: request, parameters: parameters, now: now)
        return template.render(&context).count
    }
    if isOrreryOnly {
        print(String(format: "%@ | %.0f", benchCase.name, orrery))
        continue
    }
    let perRequest = measure(count: count / 5) {
        mustache.render(mustacheContext(request, parsingBody: benchCase.readsBody)).utf8.count
    }
    let prebuilt = mustacheContext(request, parsingBody: benchCase.readsBody)
    let renderOnly = CommandLine.arguments.contains("only-mustache") ? 0 : measure(count: count / 5) { mustache.render(prebuilt).utf8.count }
    print(String(format: "%@ | %.0f | %.0f | %.0f", benchCase.name, orrery, perRequest, renderOnly))
}
if isOrreryOnly || onlyCase != nil { exit(0) }
let parseOnly = measure(count: count) { (try? JSONValue.parse(request.body)) == nil ? 0 : 1 }
print(String(format: "for scale: the %d-byte request body parsed by the stub files' parser | %.0f", request.body.count, parseOnly))
