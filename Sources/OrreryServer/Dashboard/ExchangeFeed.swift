import OrreryCore
import OrreryEvent
import Synchronization

/// Journal exchanges as server-sent events, for every viewer of `GET /__admin/requests/stream` (the dashboard's
/// live view). Each exchange is encoded once and handed to each viewer's own event loop; nothing is done when no
/// one watches, and a viewer that reads too slowly is disconnected by its stream rather than buffered for. A viewer
/// on a session's port sees that session's exchanges alone; one on the daemon's port sees every session's.
final class ExchangeFeed: Sendable {
    private let viewers = Mutex<[Int: Viewer]>([:])
    private let viewerCount = Atomic<Int>(0)
    private let nextViewer = Atomic<Int>(0)

    /// One open stream and the loop it must be written on.
    private struct Viewer: @unchecked Sendable {
        // @unchecked: the stream is only touched in jobs run on its own loop.
        let stream: ResponseStream
        let loop: EventLoop
        /// The session whose exchanges it sees (`.some(nil)`: the daemon's own), or nil for every session's.
        let session: String??

        func sees(_ exchangeSession: String?) -> Bool {
            guard let session else { return true }
            return session == exchangeSession
        }
    }

    /// How often a comment line is sent to an idle viewer, so that a vanished one is noticed.
    static let heartbeatMilliseconds = 15_000

    var hasViewers: Bool { viewerCount.load(ordering: .relaxed) > 0 }

    /// Adds a viewer; call on the stream's loop. It stays until its connection ends. `session`: the only session
    /// whose exchanges it is sent (`.some(nil)`: the daemon's own), or nil for every session's.
    func add(_ stream: ResponseStream, seeing session: String?? = nil) {
        let id = nextViewer.add(1, ordering: .relaxed).newValue
        let loop = stream.loop
        viewers.withLock { $0[id] = Viewer(stream: stream, loop: loop, session: session) }
        viewerCount.add(1, ordering: .relaxed)
        // The browser's EventSource waits this long before it reconnects.
        stream.send(Array("retry: 2000\n\n".utf8))
        let heartbeat = try? RepeatingTimer(loop: loop, intervalMilliseconds: Self.heartbeatMilliseconds) {
            stream.send(Array(": ping\n\n".utf8))
        }
        stream.whenClosed { [self] in
            heartbeat?.cancel()
            if viewers.withLock({ $0.removeValue(forKey: id) }) != nil { viewerCount.subtract(1, ordering: .relaxed) }
        }
    }

    /// Sends an exchange just journaled to every viewer; with none, the entry is not even read.
    func publish(_ kept: Journal.Kept) {
        guard hasViewers else { return }
        let entry = kept.entry
        send(event: "exchange", id: entry.id, data: entry.json().encodedBytes, session: entry.session)
    }

    /// Tells every viewer that a journal was cleared (the main one's, or a session's).
    func publishCleared(session: String? = nil) {
        guard hasViewers else { return }
        let data = session.map { JSONValue.object([("session", .string($0))]).encodedBytes } ?? Array("{}".utf8)
        send(event: "cleared", id: nil, data: data, session: session)
    }

    private func send(event: String, id: Int?, data: [UInt8], session: String?) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + 48)
        if let id { bytes += Array("id: \(id)\n".utf8) }
        bytes += Array("event: \(event)\ndata: ".utf8)
        // Compact JSON holds no line break: one `data:` line.
        bytes += data
        bytes += [0x0A, 0x0A]
        let message = bytes
        for viewer in viewers.withLock({ Array($0.values) }) where viewer.sees(session) {
            viewer.loop.execute { viewer.stream.send(message) }
        }
    }
}
