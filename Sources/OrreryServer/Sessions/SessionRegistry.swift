import Foundation
import OrreryCore
import OrreryEvent
import Synchronization

/// The sessions of a daemon: the main one, and those made with `POST /__admin/sessions`, each on a port of its own
/// (its listener tag) and reachable on the main port with `X-Orrery-Session: {id}`.
final class SessionRegistry: Sendable {
    static let header = HTTPRequest.sessionHeader
    /// Sessions open at once; each holds a listening socket.
    static let maximumSessions = 5_000

    let main: Session
    private let sessions = Mutex<[String: Session]>([:])
    private let byTag = Mutex<[Int: Session]>([:])
    private let openCount = Atomic<Int>(0)
    private let nextTag = Atomic<Int>(0)
    /// The server, once bound: sessions' ports are its listeners.
    private let server = Mutex<(any SessionPorts)?>(nil)
    private let host = Mutex<String>("127.0.0.1")
    /// The listener tag of `--wiremock-port` (0 when there is none): the daemon's own session, in WireMock's dialect.
    private let wireMockPortTag = Atomic<Int>(0)
    static let wireMockPortListenerTag = -1

    /// - Parameter mainJournal: the daemon's own journal; sessions' journals take its limits and share its budget.
    init(mainJournal: Journal) {
        main = Session(id: nil, name: nil, port: 0, tag: 0, journal: mainJournal)
    }

    /// Called once the server is bound.
    func attach(_ server: any SessionPorts, host: String) {
        self.server.withLock { $0 = server }
        self.host.withLock { $0 = host }
    }

    var count: Int { openCount.load(ordering: .relaxed) }

    var all: [Session] { sessions.withLock { Array($0.values) }.sorted { $0.createdAt < $1.createdAt } }

    func session(id: String) -> Session? { sessions.withLock { $0[id] } }

    /// The session a request belongs to: its port's, else the one `X-Orrery-Session` names, else the daemon's own.
    /// Nil when the header names no open session, whether or not one was ever opened: behind a proxy that spreads
    /// sessions over several daemons, answering from another session would hand one test another's answers.
    func session(for request: HTTPRequest, listenerTag: Int) -> Session? {
        if listenerTag != 0 { return byTag.withLock { $0[listenerTag] } }
        // The fields were walked once already, while the request was read: only a request that has the header
        // looks for it again.
        guard request.namesSession, let id = request.headers[Self.header] else { return main }
        // The request that opens a session may carry the header naming it, so a proxy that routes by the header
        // sends the creation where the session's later requests go.
        if let open = session(id: id) { return open }
        return request.method == "POST" && request.path == "/__admin/sessions" ? main : nil
    }

    /// Whether `id` may name a session: 1 to 64 of `A-Za-z0-9._-`.
    static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }

    /// Makes `tag` (`--wiremock-port`'s listener) a port of the daemon's own session that speaks WireMock's dialect.
    func attachWireMockPort(tag: Int) {
        byTag.withLock { $0[tag] = main }
        wireMockPortTag.store(tag, ordering: .releasing)
    }

    /// Whether connections with this listener tag came through `--wiremock-port`.
    func isWireMockPort(_ tag: Int) -> Bool {
        tag == wireMockPortTag.load(ordering: .relaxed)
    }

    enum CreationError: Error, CustomStringConvertible {
        case tooMany(Int)
        case cannotListen(String)
        case taken(String)

        var description: String {
            switch self {
            case .tooMany(let limit): "\(limit) sessions are open, the most there may be; end some first (DELETE /__admin/sessions/{id})."
            case .cannotListen(let reason): "The session's port could not be opened: \(reason)."
            case .taken(let id):
                "A session '\(id)' is open already; choose another id, or end it first (DELETE /__admin/sessions/\(id))."
            }
        }
    }

    /// Opens a session on a port of its own, under `id` when its creator chose one (checked with `isValidID`).
    func create(name: String?, id chosen: String? = nil, speaksWireMock: Bool = false) throws(CreationError) -> Session
    {
        guard let server = server.withLock({ $0 }) else { throw .cannotListen("the server is not listening yet") }
        // Claimed before the port is opened, so two creations of one id cannot both succeed.
        let id = chosen ?? Self.newID()
        let placeholder = Session(id: id, name: name, port: 0, tag: -1, journal: main.journal)
        guard
            sessions.withLock({ open in
                guard open[id] == nil else { return false }
                open[id] = placeholder
                return true
            })
        else { throw .taken(id) }
        do throws(CreationError) {
            return try open(id: id, name: name, speaksWireMock: speaksWireMock, server: server)
        } catch {
            sessions.withLock { _ = $0.removeValue(forKey: id) }
            throw error
        }
    }

    private func open(id: String, name: String?, speaksWireMock: Bool, server: any SessionPorts) throws(CreationError)
        -> Session
    {
        guard openCount.add(1, ordering: .relaxed).newValue <= Self.maximumSessions else {
            openCount.subtract(1, ordering: .relaxed)
            throw .tooMany(Self.maximumSessions)
        }
        let tag = nextTag.add(1, ordering: .relaxed).newValue
        let port: Int
        do {
            port = try server.openPort(tag: tag)
        } catch {
            openCount.subtract(1, ordering: .relaxed)
            throw .cannotListen(error.description)
        }
        let session = Session(
            id: id, name: name, port: port, tag: tag,
            journal: Journal(limits: main.journal.limits, budget: main.journal.budget),
            speaksWireMock: speaksWireMock)
        byTag.withLock { $0[tag] = session }
        sessions.withLock { $0[session.id ?? ""] = session }
        return session
    }

    /// Ends a session: its port closes, its connections with it, and its state goes.
    func remove(id: String) -> Session? {
        guard let session = sessions.withLock({ $0.removeValue(forKey: id) }) else { return nil }
        byTag.withLock { $0[session.tag] = nil }
        openCount.subtract(1, ordering: .relaxed)
        server.withLock { $0 }?.closePort(tag: session.tag)
        // Its exchanges leave the daemon-wide journal bounds to the sessions that remain.
        session.journal.clear()
        return session
    }

    func url(of session: Session) -> String {
        let host = host.withLock { $0 }
        return "http://\(host.contains(":") ? "[\(host)]" : host):\(session.port)"
    }

    /// 12 hexadecimal digits: short enough to read in a log, too many to guess.
    private static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() & 0xFFFF_FFFF_FFFF
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 12 - text.count) + text
    }
}
