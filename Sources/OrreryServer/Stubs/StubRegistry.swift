import OrreryCore
import OrreryEvent
import Synchronization

/// The running stub set: stubs from files plus stubs added through the admin API, published as immutable
/// `StubIndex` snapshots.
///
/// Event loops read the snapshot without a lock: each keeps its own reference and compares an atomic generation
/// number per request, taking the lock only when a change was published.
public final class StubRegistry: Sendable {
    public let loader: StubLoader
    private let state: Mutex<State>
    private let generationCounter = Atomic<Int>(0)
    /// Serialises reloads, so two at once cannot publish out of order.
    private let reloadLock = Mutex<Void>(())

    private struct State {
        var fileStubs: [Stub] = []
        var adminStubs: [Stub] = []
        var index = StubIndex([])
        var fileCount = 0
    }

    public init(stubsFolder: String) {
        loader = StubLoader(root: stubsFolder)
        state = Mutex(State())
    }

    public var generation: Int { generationCounter.load(ordering: .acquiring) }

    /// The current index and its generation.
    public func snapshot() -> (index: StubIndex, generation: Int) {
        state.withLock { ($0.index, generationCounter.load(ordering: .relaxed)) }
    }

    public var index: StubIndex { snapshot().index }

    public var fileCount: Int { state.withLock { $0.fileCount } }

    /// Reads the stubs folder again. On any error the running set stays as it was and every error is thrown.
    @discardableResult
    public func reload() throws(SourceErrors) -> (stubs: Int, files: Int) {
        try reloadLock.withLock { _ throws(SourceErrors) in
            let (stubs, files) = try loader.loadWithFileCount()
            return publish { state in
                state.fileStubs = stubs
                state.fileCount = files
                return (state.fileStubs.count + state.adminStubs.count, files)
            }
        }
    }

    /// Adds a stub at run time; it outlives reloads from disk.
    public func add(_ stub: Stub) {
        publish { $0.adminStubs.append(stub) }
    }

    /// Replaces the stub with the stub's id; false when there is none. A stub from a file stays replaced until the
    /// next reload from disk.
    public func replace(_ stub: Stub) -> Bool {
        publish { state in
            if let position = state.adminStubs.firstIndex(where: { $0.id == stub.id }) {
                state.adminStubs[position] = stub
                return true
            }
            if let position = state.fileStubs.firstIndex(where: { $0.id == stub.id }) {
                state.fileStubs[position] = stub
                return true
            }
            return false
        }
    }

    /// Removes a stub by id; false when there is none.
    public func remove(id: String) -> Bool {
        publish { state in
            let before = state.adminStubs.count + state.fileStubs.count
            state.adminStubs.removeAll { $0.id == id }
            state.fileStubs.removeAll { $0.id == id }
            return state.adminStubs.count + state.fileStubs.count != before
        }
    }

    /// Applies a change, rebuilds the index and bumps the generation. Event loops take this lock only once per
    /// published change, to pick up the new index.
    private func publish<Result>(_ change: (inout State) -> Result) -> Result {
        state.withLock { state in
            let result = change(&state)
            // Admin stubs come after file stubs, so on a tie a stub from a file wins (see the README).
            state.index = StubIndex(state.fileStubs + state.adminStubs, compress: { Zlib.compress($0, $1) })
            generationCounter.add(1, ordering: .releasing)
            return result
        }
    }
}
