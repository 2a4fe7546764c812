import Foundation
import OrreryCore
import OrreryOpenAPI

/// A spec of Tests/Fixtures/openapi as a mock, and what the value tests read of its answers.
enum OpenAPIFixtures {
    /// The mock of one fixture; a fixture that does not load leaves it with no spec, and every test asking it fails.
    static func mock(_ file: String) -> OpenAPIMock {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/openapi/\(file)").path
        let spec = (try? OpenAPISpecLoader.load(path: path)).map { [$0] } ?? []
        return OpenAPIMock(specs: spec)
    }

    static func answer(
        _ mock: OpenAPIMock, _ target: String, method: String, headers: HTTPHeaders, body: String
    ) -> OpenAPIAnswer? {
        mock.answer(HTTPRequest(method: method, target: target, headers: headers, body: Array(body.utf8)))
    }

    /// The problem's errors as `location pointer`, followed by `: message` when `withMessages`.
    static func errors(_ answer: OpenAPIAnswer?, withMessages: Bool) -> [String] {
        guard let answer, case .array(let errors)? = try? JSONValue.parse(answer.body.bytes)["errors"] else {
            return []
        }
        return errors.map { error in
            let place = "\(error["location"]?.stringValue ?? "") \(error["pointer"]?.stringValue ?? "")"
            return withMessages ? place + ": \(error["message"]?.stringValue ?? "")" : place
        }
    }
}
