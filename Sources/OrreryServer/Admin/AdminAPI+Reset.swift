import Logging
import OrreryCore

/// `POST /__admin/reset`: the daemon as it was at the start, for a test that wants nothing of the one before.
extension AdminAPI {
    /// Stubs added over the API gone, the stub files read again, the journal cleared, every sequence at its first
    /// response. When the files do not load, the stubs loaded from them before stay (as for a reload), the rest is
    /// reset all the same, and the answer is the 422 with every error.
    func reset() -> AdminReply {
        let outcome = registry.reset()
        let cleared = serviceLogger.journal.counts.kept
        serviceLogger.clearJournal()
        var counts: [(String, JSONValue)] = [
            ("apiStubsRemoved", .int(outcome.apiStubsRemoved)), ("requestsCleared", .int(cleared)),
        ]
        switch outcome.reload {
        case .success(let loaded):
            counts += [("stubs", .int(loaded.stubs)), ("stubFiles", .int(loaded.files))]
            logger.info("reset through the admin API: \(loaded.stubs) stubs from \(loaded.files) files")
            return .json(.object([("reset", .bool(true))] + counts))
        case .failure(let errors):
            logger.error("reset: the stub files do not load; the stubs loaded from them before stay:\n\(errors)")
            return .sourceErrors(
                errors,
                message: "The stub files did not load, so the stubs read from them before stay; the API stubs were removed, the journal cleared and the sequences rewound.",
                details: counts + [("stubs", .int(registry.index.count))])
        }
    }
}
