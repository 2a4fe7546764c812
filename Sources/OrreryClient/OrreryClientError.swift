import Foundation

/// An admin call that failed: the daemon's error answer, a transport failure, an answer that could not be read, a
/// stub the DSL could not build, or a verification that did not hold.
///
/// Its description is written to be read in a failed test: what was asked, what the daemon said, and the daemon's
/// `failureReason` and `recoverySuggestion`.
public struct OrreryClientError: Error, Sendable, CustomStringConvertible, LocalizedError {
    fileprivate enum Code: Hashable, Sendable {
        case daemonError
        case transportFailure
        case invalidResponse
        case invalidStub
        case verificationFailed
    }

    /// What kind of failure this is: compare with `==` (`error.kind == .daemonError`).
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        fileprivate let code: Code

        /// The daemon answered with an error status; `status`, `message` and the texts say which and why.
        public static let daemonError = Kind(code: .daemonError)
        /// The daemon could not be reached, or did not answer in time.
        public static let transportFailure = Kind(code: .transportFailure)
        /// The daemon answered with a success status but a body this client could not read.
        public static let invalidResponse = Kind(code: .invalidResponse)
        /// The DSL could not build the stub or request pattern (a value that does not encode as JSON, a URL without a
        /// host, a binary response body).
        public static let invalidStub = Kind(code: .invalidStub)
        /// `verify` found another number of matching requests than expected.
        public static let verificationFailed = Kind(code: .verificationFailed)

        public var description: String {
            switch code {
            case .daemonError: "daemon error"
            case .transportFailure: "transport failure"
            case .invalidResponse: "invalid response"
            case .invalidStub: "invalid stub"
            case .verificationFailed: "verification failed"
            }
        }
    }

    private let code: Code
    /// The call that failed, such as `GET /__admin/stubs/users-1`; empty for a stub that could not be built.
    public let call: String
    /// The HTTP status of the daemon's error answer; nil when it did not answer with one.
    public let status: Int?
    /// What went wrong: the daemon's `message`, or this client's account.
    public let message: String
    /// The daemon's `failureReason`: what the status means.
    public let failureReason: String?
    /// The daemon's `recoverySuggestion`: what to do about it.
    public let recoverySuggestion: String?
    /// The whole JSON error body, for the members beyond the texts (`errors` with file and line, `closestStubs`).
    public let body: JSON?
    /// The error underneath a transport failure or an unreadable answer.
    public let underlyingError: (any Error)?
    /// Where the failed check was called from (a `verify` in a test), so that the failure is reported there rather
    /// than at the start of the test; nil for other errors.
    public let callSite: CallSite?

    /// A place in a source file, as `#fileID`, `#filePath`, `#line` and `#column` give it.
    public struct CallSite: Sendable, Equatable, CustomStringConvertible {
        public var fileID: String
        public var filePath: String
        public var line: Int
        public var column: Int

        public init(fileID: String, filePath: String, line: Int, column: Int) {
            self.fileID = fileID
            self.filePath = filePath
            self.line = line
            self.column = column
        }

        /// `path/File.swift:12`, as compilers and test runners print a place.
        public var description: String { "\(filePath):\(line)" }
    }

    public var kind: Kind { Kind(code: code) }

    private init(
        _ code: Code, call: String, status: Int? = nil, message: String, failureReason: String? = nil,
        recoverySuggestion: String? = nil, body: JSON? = nil, underlyingError: (any Error)? = nil,
        callSite: CallSite? = nil
    ) {
        self.callSite = callSite
        self.code = code
        self.call = call
        self.status = status
        self.message = message
        self.failureReason = failureReason
        self.recoverySuggestion = recoverySuggestion
        self.body = body
        self.underlyingError = underlyingError
    }

    /// The daemon's error answer, read from its JSON body (or its text, should it not be JSON).
    static func daemon(call: String, status: Int, body data: Data) -> OrreryClientError {
        let body = try? JSON(parsing: data)
        let text = String(decoding: data.prefix(2000), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let message = body?["message"]?.stringValue ?? (text.isEmpty ? "(no body)" : text)
        return OrreryClientError(
            .daemonError, call: call, status: status, message: message,
            failureReason: body?["failureReason"]?.stringValue,
            recoverySuggestion: body?["recoverySuggestion"]?.stringValue, body: body)
    }

    static func transport(call: String, baseURL: URL, _ error: any Error) -> OrreryClientError {
        OrreryClientError(
            .transportFailure, call: call,
            message: "Could not reach Orrery at \(baseURL.absoluteString): \(Self.describe(error))",
            failureReason: "The daemon did not answer.",
            recoverySuggestion: "Check that orrery is running and listens on the client's base URL.",
            underlyingError: error)
    }

    static func invalidResponse(call: String, _ reason: String, underlyingError: (any Error)? = nil)
        -> OrreryClientError
    {
        OrreryClientError(.invalidResponse, call: call, message: reason, underlyingError: underlyingError)
    }

    static func invalidStub(_ problems: [String], what: String = "stub") -> OrreryClientError {
        OrreryClientError(
            .invalidStub, call: "", message: "The \(what) could not be built: " + problems.joined(separator: "; "))
    }

    static func verificationFailed(_ message: String, at callSite: CallSite? = nil) -> OrreryClientError {
        OrreryClientError(.verificationFailed, call: "", message: message, callSite: callSite)
    }

    public var description: String {
        var lines: [String]
        switch code {
        case .daemonError:
            let phrase = status.map { HTTPStatus($0).description } ?? "an error"
            lines = ["Orrery answered \(phrase) to \(call): \(message)"]
            // A reload, a reset or a stub refused: each error with its file and line.
            for error in body?["errors"]?.arrayValue ?? [] {
                if let text = error["text"]?.stringValue ?? error["message"]?.stringValue { lines.append("  \(text)") }
            }
        case .transportFailure:
            lines = ["\(call) failed. \(message)"]
        case .invalidResponse:
            lines = ["Orrery's answer to \(call) could not be read: \(message)"]
        case .invalidStub:
            lines = [message]
        case .verificationFailed:
            lines = [callSite.map { "\($0): \(message)" } ?? message]
        }
        if let failureReason { lines.append("Failure reason: \(failureReason)") }
        if let recoverySuggestion { lines.append("Recovery suggestion: \(recoverySuggestion)") }
        return lines.joined(separator: "\n")
    }

    public var errorDescription: String? { description }

    private static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            return "\(urlError.localizedDescription) (URLError \(urlError.code.rawValue))"
        }
        return "\(error)"
    }
}
