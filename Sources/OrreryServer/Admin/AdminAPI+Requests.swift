import Foundation
import OrreryCore
import OrreryEvent

/// `/__admin/requests`: the journal, for tests that verify what their app sent.
extension AdminAPI {
    static let defaultPageSize = 100

    func listRequests(_ request: HTTPRequest, session: Session) -> AdminReply {
        let paging: (limit: Int, offset: Int)
        switch Self.paging(request) {
        case .success(let value): paging = value
        case .failure(let reply): return reply
        }
        let journal = session.journal
        let entries = journal.newestFirst()
        let page = entries.dropFirst(paging.offset).prefix(paging.limit)
        let counts = journal.counts
        return .json(
            .object([
                ("requests", .array(page.map { $0.json() })),
                ("total", .int(entries.count)),
                ("limit", .int(paging.limit)),
                ("offset", .int(paging.offset)),
                ("recordedSinceStart", .int(counts.total)),
                ("journal", journalLimitsJSON(session)),
            ]))
    }

    /// `text/event-stream` of every exchange journaled from now on (`event: exchange`, the entry as
    /// `GET /__admin/requests/{id}` gives it) and `event: cleared` when the journal is emptied.
    /// A viewer on a session's port is sent that session's exchanges alone; one on the daemon's port every session's.
    func streamRequests(session: Session, isThroughSessionPort: Bool) -> AdminReply {
        let seeing: String?? = isThroughSessionPort ? .some(session.id) : nil
        return .streamed { [feed = serviceLogger.feed] responder in
            let headers: HTTPHeaders = [
                "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no",
            ]
            guard let stream = responder.startStream(headers: headers) else { return }
            feed.add(stream, seeing: seeing)
        }
    }

    func clearRequests(session: Session) -> AdminReply {
        let cleared = session.journal.counts.kept
        serviceLogger.clearJournal(of: session)
        return .json(.object([("cleared", .int(cleared))]))
    }

    func unmatchedRequests(_ request: HTTPRequest, session: Session) -> AdminReply {
        let unmatched = session.journal.newestFirst().filter(\.isUnmatched)
        return .json(.object([("requests", .array(unmatched.map { $0.json() })), ("total", .int(unmatched.count))]))
    }

    func journalEntry(id: String, session: Session) -> AdminReply {
        guard let number = Int(id), let entry = session.journal.entry(id: number) else {
            return .error(.Code404NotFound, "There is no request with id '\(id)' in the journal (it may have been evicted or cleared).")
        }
        return .json(entry.json())
    }

    func countRequests(_ request: HTTPRequest, session: Session) -> AdminReply {
        switch requestPattern(request) {
        case .failure(let reply): return reply
        case .success(let pattern):
            return .answer(to: session.journal.query(pattern)) { found in .json(.object([("count", .int(found.count))])) }
        }
    }

    func findRequests(_ request: HTTPRequest, session: Session) -> AdminReply {
        switch requestPattern(request) {
        case .failure(let reply): return reply
        case .success(let pattern):
            return .answer(to: session.journal.query(pattern)) { found in
                .json(.object([("requests", .array(found.map { $0.json() })), ("total", .int(found.count))]))
            }
        }
    }

    /// The journal as HAR 1.2, oldest exchange first.
    func har(session: Session) -> AdminReply {
        var reply = AdminReply.json(HAR.log(session.journal.newestFirst().reversed(), version: OrreryVersion.current))
        reply.headers.set("Content-Disposition", "attachment; filename=\"orrery.har\"")
        return reply
    }

    func journalLimitsJSON(_ session: Session) -> JSONValue {
        let limits = session.journal.limits
        return .object([
            ("maximumEntries", .int(limits.maximumEntries)), ("maximumBytes", .int(limits.maximumBytes)),
            ("maximumBodyBytes", .int(limits.maximumBodyBytes)), ("bytes", .int(session.journal.counts.bytes)),
        ])
    }

    /// A request pattern from the body: a stub's `request` section, bare or as `{"request": {...}}`.
    private func requestPattern(_ request: HTTPRequest) -> AdminInput<RequestPattern> {
        let node: SourceNode
        switch parseBody(request) {
        case .success(let parsed): node = parsed
        case .failure(let reply): return .failure(reply)
        }
        var decoder = bodyDecoder(makeID: { _ in "" })
        let pattern = decoder.decodeRequestPattern(node["request"] ?? node)
        guard decoder.errors.isEmpty else {
            return .failure(.sourceErrors(SourceErrors(decoder.errors), message: "The request pattern is not valid."))
        }
        return .success(pattern)
    }

    /// `limit` (default 100) and `offset` (default 0) from the query; a 400 when either is not a whole number.
    private static func paging(_ request: HTTPRequest) -> AdminInput<(limit: Int, offset: Int)> {
        var result = (limit: defaultPageSize, offset: 0)
        for name in ["limit", "offset"] {
            guard let text = request.queryValues(named: name).last else { continue }
            guard let value = Int(text), value >= 0 else {
                return .failure(.error(.Code400BadRequest, "'\(name)' must be a whole number of 0 or more, not '\(text)'."))
            }
            if name == "limit" { result.limit = value } else { result.offset = value }
        }
        return .success(result)
    }
}
