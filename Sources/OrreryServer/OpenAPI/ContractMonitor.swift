import OrreryCore
import OrreryOpenAPI
import Synchronization

/// `--validate-against`: checks every exchange (stubbed, proxied, recorded, answered from a spec) against a spec,
/// for the journal's `contractViolations`, and keeps the drift report `GET /__admin/contract` gives. Shared by all
/// event loops; the answer is never changed.
final class ContractMonitor: Sendable {
    private let specs: OpenAPIMock
    private let report: Mutex<Report>

    /// Undocumented paths kept in the report, at most: a crawler cannot grow it without bound.
    static let maximumUndocumentedPaths = 1000

    private struct Tally {
        var calls = 0
        /// By location and pointer: how many times, and the last message.
        var violations: [String: (location: String, pointer: String, count: Int, message: String)] = [:]
        var undocumentedStatuses: [Int: Int] = [:]
    }

    private struct Report {
        /// By spec, then operation.
        var operations: [[Tally]]
        /// `METHOD path` to calls.
        var undocumentedPaths: [String: Int] = [:]
    }

    init(specs: OpenAPIMock) {
        self.specs = specs
        report = Mutex(Report(operations: specs.specs.map { Array(repeating: Tally(), count: $0.operations.count) }))
    }

    /// Checks an exchange and counts it; the violations as the journal shows them.
    func record(_ request: HTTPRequest, status: Int, headers: HTTPHeaders, body: Payload, bodySize: Int?) -> JSONValue {
        // A body cut at the capture limit, or still encoded as the upstream sent it, cannot be judged.
        let isWhole = (bodySize ?? body.count) <= body.count && headers.first(named: "Content-Encoding") == nil
        let check = specs.check(request, status: status, headers: headers, body: isWhole ? body.bytes : nil)
        report.withLock { report in
            switch check.target {
            case .undocumented:
                let key = "\(request.method) \(request.path)"
                if report.undocumentedPaths[key] != nil
                    || report.undocumentedPaths.count < Self.maximumUndocumentedPaths
                {
                    report.undocumentedPaths[key, default: 0] += 1
                }
            case .operation(let spec, let index):
                var tally = report.operations[spec][index]
                tally.calls += 1
                if check.isStatusUndocumented { tally.undocumentedStatuses[status, default: 0] += 1 }
                for violation in check.violations where violation.location != "response.status" {
                    let key = violation.location + " " + violation.pointer
                    let count = (tally.violations[key]?.count ?? 0) + 1
                    tally.violations[key] = (violation.location, violation.pointer, count, violation.message)
                }
                report.operations[spec][index] = tally
            }
        }
        return .array(check.violations.map(\.json))
    }

    /// The drift report: per operation, calls, violations by JSON pointer and statuses the spec does not document;
    /// the paths it does not have; the operations never called.
    var json: JSONValue {
        report.withLock { report in
            var operations: [JSONValue] = []
            var neverCalled: [JSONValue] = []
            for (specIndex, spec) in specs.specs.enumerated() {
                for (index, operation) in spec.operations.enumerated() {
                    let tally = report.operations[specIndex][index]
                    let name = operation.operationId ?? "\(operation.method) \(operation.pathTemplate)"
                    if tally.calls == 0 { neverCalled.append(.string(name)) }
                    let violations = tally.violations.values.sorted {
                        ($0.location, $0.pointer) < ($1.location, $1.pointer)
                    }
                    operations.append(
                        .object([
                            ("operationId", .string(name)), ("method", .string(operation.method)),
                            ("path", .string(operation.pathTemplate)), ("source", .string(spec.source)),
                            ("calls", .int(tally.calls)),
                            (
                                "violations",
                                .array(
                                    violations.map {
                                        .object([
                                            ("location", .string($0.location)), ("pointer", .string($0.pointer)),
                                            ("count", .int($0.count)), ("message", .string($0.message)),
                                        ])
                                    })
                            ),
                            (
                                "undocumentedStatuses",
                                .array(
                                    tally.undocumentedStatuses.sorted { $0.key < $1.key }.map {
                                        .object([("status", .int($0.key)), ("count", .int($0.value))])
                                    })
                            ),
                        ]))
                }
            }
            let paths = report.undocumentedPaths.sorted { $0.key < $1.key }.map { key, count -> JSONValue in
                let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
                return .object([
                    ("method", .string(parts.first ?? "")), ("path", .string(parts.count > 1 ? parts[1] : "")),
                    ("calls", .int(count)),
                ])
            }
            return .object([
                ("specs", .array(specs.specs.map { .string($0.source) })), ("operations", .array(operations)),
                ("undocumentedPaths", .array(paths)), ("neverCalled", .array(neverCalled)),
            ])
        }
    }
}
