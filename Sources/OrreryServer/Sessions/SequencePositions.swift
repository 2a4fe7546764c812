import OrreryCore
import Synchronization

/// How far each sequence has got in one session: the next response of a stub with several, counted per session so
/// that one session's traffic never moves another's.
///
/// A count is kept against the stub's `sequenceToken`: a stub reloaded unchanged keeps its place, one whose responses
/// changed starts again. Adding, replacing or removing other stubs leaves every count as it is; a session's own stub
/// that is replaced or removed takes its count with it, so the table holds only stubs that are still there.
final class SequencePositions: Sendable {
    private struct Position {
        let token: any AnyObject & Sendable
        var answered: Int
    }

    /// Mutable only under the lock.
    private let positions = Mutex<[String: Position]>([:])

    /// The response a stub gives now, and its count moved on. A stub without a sequence takes no lock.
    func nextResponse(of entry: IndexedStub) -> PreparedResponse {
        guard let token = entry.sequenceToken else { return entry.response }
        let answered = positions.withLock { positions in
            var position = positions[entry.stub.id].flatMap { $0.token === token ? $0 : nil } ?? Position(token: token, answered: 0)
            defer {
                position.answered += 1
                positions[entry.stub.id] = position
            }
            return position.answered
        }
        return entry.response(atSequencePosition: answered)
    }

    /// The stub with this id and token starts its sequence again (it was removed or replaced): the count goes only
    /// when it is that stub's, so a file stub that shares the id keeps its place.
    func forget(id: String, token: any AnyObject & Sendable) {
        positions.withLock { positions in
            if let position = positions[id], position.token === token { positions.removeValue(forKey: id) }
        }
    }

    /// How many sequences have a count kept: those answered since the last rewind whose stubs are still there.
    var count: Int { positions.withLock { $0.count } }

    /// Every sequence back at its first response.
    func rewind() {
        positions.withLock { $0.removeAll() }
    }
}
