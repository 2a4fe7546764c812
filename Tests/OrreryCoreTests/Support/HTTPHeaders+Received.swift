@testable import OrreryCore

extension HTTPHeaders {
    /// The same fields kept as a parser keeps them: as the bytes received, not yet strings.
    static func asReceived(_ headers: HTTPHeaders) -> HTTPHeaders {
        var received = HTTPHeaders()
        headers.forEachField { received.appendReceived(name: $0, value: $1) }
        return received
    }
}
