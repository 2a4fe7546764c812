import Logging
import OrreryCore

/// `POST /__admin/reset`: the session it is sent to as it was at the start, for a test that wants nothing of the one
/// before.
extension AdminAPI {
    /// The session's own stubs gone (those that replaced or removed a file stub included), the journal cleared,
    /// every sequence at its first response and every scenario in `Started`. A reset of the daemon (`readsFiles`: sent
    /// to its port, naming no session) reads the stub files again too; a session's reset does not, so that tests
    /// resetting their sessions in parallel never hold the event loops for a reload or change what others see (the
    /// folder's watcher keeps the files as on disk). When the files do not load, the stubs loaded from them before
    /// stay (as for a reload), the rest is reset all the same, and the answer is the 422 with every error. Other
    /// sessions keep their places: a reload carries an unchanged stub's sequence on.
    func reset(session: Session, readsFiles: Bool = true) -> AdminReply {
        let reload = readsFiles ? registry.reloadForReset() : .success((registry.index.count, registry.fileCount))
        let cleared = session.journal.counts.kept
        let (removed, _) = session.reset()
        serviceLogger.feed.publishCleared(session: session.id)
        var counts: [(String, JSONValue)] = [("apiStubsRemoved", .int(removed)), ("requestsCleared", .int(cleared))]
        switch reload {
        case .success(let loaded):
            counts += [("stubs", .int(visibleStubs(session).count)), ("stubFiles", .int(loaded.files))]
            logger.info("reset through the admin API: \(loaded.stubs) stubs from \(loaded.files) files")
            return .json(.object([("reset", .bool(true))] + counts))
        case .failure(let errors):
            logger.error("reset: the stub files do not load; the stubs loaded from them before stay:\n\(errors)")
            return .sourceErrors(
                errors,
                message: "The stub files did not load, so the stubs read from them before stay; the API stubs were removed, the journal cleared and the sequences rewound.",
                details: counts + [("stubs", .int(visibleStubs(session).count))])
        }
    }
}
