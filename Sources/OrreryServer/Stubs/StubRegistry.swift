import OrreryCore
import OrreryEvent
import Synchronization

/// The stub set every session shares: stubs from files and fixtures from a recording folder, published as immutable
/// `StubIndex` snapshots. Stubs added over the admin API belong to the session they were added to (`SessionStubs`).
///
/// Event loops read the snapshot without a lock: each keeps its own reference and compares an atomic generation
/// number per request, taking the lock only when a change was published.
public final class StubRegistry: Sendable {
    /// The folder stubs load from (fixed for the daemon's life; the loader's exclusions change, not its root).
    public let stubsFolder: String
    private let state: Mutex<State>
    private let generationCounter = Atomic<Int>(0)
    /// Serialises reloads, so two at once cannot publish out of order.
    private let reloadLock = Mutex<Void>(())
    /// Loads of the stub files that published (the first included) and that failed, for the metrics.
    private let loadCounts = Mutex<(published: Int, failed: Int)>((0, 0))

    private struct State {
        var loader: StubLoader
        var fixtureLoader: StubLoader?
        /// Prepared once (responses encoded, bodies compressed) and reused by every index published after.
        var fileStubs: [IndexedStub] = []
        var fixtureStubs: [IndexedStub] = []
        var index = StubIndex([])
        var fileCount = 0
        var fixtureFileCount = 0
        /// While a recording session runs, its fixtures stay as they were when it started (see `pinFixtures`): the
        /// number of that pin, nil when none holds.
        var fixturePin: Int?
        var pinsMade = 0
    }

    /// Whether a stubs folder that does not exist is an empty set rather than an error (the default folder, which
    /// a new project may not have yet; the daemon warns).
    public let allowsMissingFolder: Bool

    /// `--max-body-file`, for every loader made here.
    public let maximumBodyFileBytes: Int
    /// WireMock roots served beside the stub files (`--wiremock-root`).
    public let wireMock: WireMockRoots?

    public init(
        stubsFolder: String, allowsMissingFolder: Bool = false,
        maximumBodyFileBytes: Int = StubDecoder.defaultMaximumBodyFileBytes, wireMockRoots: [String] = []
    ) {
        self.stubsFolder = stubsFolder
        self.allowsMissingFolder = allowsMissingFolder
        self.maximumBodyFileBytes = maximumBodyFileBytes
        wireMock = wireMockRoots.isEmpty ? nil : WireMockRoots(roots: wireMockRoots)
        var loader = StubLoader(root: stubsFolder)
        loader.maximumBodyFileBytes = maximumBodyFileBytes
        state = Mutex(State(loader: loader))
    }

    /// The files whose changes call for a reload: each loader's folder without what another loader reads. A
    /// recording folder is left out while a session pins it: its own writes are not reloaded every second.
    public var watchedFolders: [(folder: String, excluding: Set<String>)] {
        state.withLock { state in
            var folders = [(state.loader.root, state.loader.excludedFolders)]
            if let fixtures = state.fixtureLoader, state.fixturePin == nil {
                folders.append((fixtures.root, fixtures.excludedFolders))
            }
            return folders + (wireMock?.folders ?? []).map { ($0, []) }
        }
    }

    public var generation: Int { generationCounter.load(ordering: .acquiring) }

    /// The current index and its generation.
    public func snapshot() -> (index: StubIndex, generation: Int) {
        state.withLock { ($0.index, generationCounter.load(ordering: .relaxed)) }
    }

    public var index: StubIndex { snapshot().index }

    /// Stub files and fixture files loaded.
    public var fileCount: Int { state.withLock { $0.fileCount + $0.fixtureFileCount } }

    /// Reads the stubs folder (and the recording folder, unless a session pinned it) again. On any error the running
    /// set stays as it was and every error is thrown.
    @discardableResult
    public func reload() throws(SourceErrors) -> (stubs: Int, files: Int) {
        do throws(SourceErrors) {
            let result = try reloadLock.withLock { _ throws(SourceErrors) in
                let loaded = try loadFiles()
                return publish { state in apply(loaded, to: &state) }
            }
            loadCounts.withLock { $0.published += 1 }
            return result
        } catch {
            loadCounts.withLock { $0.failed += 1 }
            throw error
        }
    }

    /// Loads of the stub files that published (the first included) and that failed, since start-up.
    public var reloadCounts: (published: Int, failed: Int) { loadCounts.withLock { $0 } }

    /// The stub files (and the recording folder, unless a session pinned it) read again for a reset: the stubs and
    /// files loaded, or why they did not load (the stubs read before then stay).
    public func reloadForReset() -> Result<(stubs: Int, files: Int), SourceErrors> {
        do throws(SourceErrors) {
            return .success(try reload())
        } catch {
            return .failure(error)
        }
    }

    /// The stub files (and unpinned fixtures) read and prepared, ready to publish.
    private struct LoadedFiles {
        var stubs: [IndexedStub]
        var files: Int
        /// Nil while a session pins the recording folder: its fixtures stay as they are.
        var fixtures: (stubs: [IndexedStub], files: Int)?
    }

    /// Reads the files; call holding `reloadLock`.
    private func loadFiles() throws(SourceErrors) -> LoadedFiles {
        let (loader, fixtureLoader, isPinned) = state.withLock { ($0.loader, $0.fixtureLoader, $0.fixturePin != nil) }
        var (loaded, files) =
            allowsMissingFolder && !FileSystem.isDirectory(loader.root) ? ([], 0) : try loader.loadWithFileCount()
        if let wireMock {
            let mappings = try wireMock.load()
            loaded += mappings.stubs
            files += mappings.files
        }
        let fixtures = isPinned ? nil : try fixtureLoader.map { loader throws(SourceErrors) in try Self.loadFixtures(loader) }
        // Prepared before the lock: compressing bodies must not hold up the event loops picking up an index.
        return LoadedFiles(stubs: prepare(loaded), files: files, fixtures: fixtures.map { (prepare($0.0), $0.1) })
    }

    /// Puts loaded files in place; returns the stubs served and the files read.
    private func apply(_ loaded: LoadedFiles, to state: inout State) -> (stubs: Int, files: Int) {
        state.fileStubs = loaded.stubs
        state.fileCount = loaded.files
        if let fixtures = loaded.fixtures { (state.fixtureStubs, state.fixtureFileCount) = fixtures }
        return (state.fileStubs.count + state.fixtureStubs.count, state.fileCount + state.fixtureFileCount)
    }

    /// Makes `folder` the recording folder whose fixtures are served next to the stubs, loads it, and keeps its
    /// fixtures as loaded now until `unpinFixtures`: a session records repeats instead of replaying what it just
    /// wrote. With `serving` false (record mode `all`) none of its fixtures answer meanwhile. Returns the fixtures
    /// that answer and the pin's number for `unpinFixtures`. Throws the folder's errors, changing nothing.
    public func pinFixtures(folder: String, serving: Bool) throws(SourceErrors) -> (fixtures: [Stub], pin: Int) {
        try reloadLock.withLock { _ throws(SourceErrors) in
            // Each folder is read by one loader only, whichever contains the other (or both, when they are one).
            let stubsInside = StubLoader.relativePath(of: stubsFolder, under: folder).map { Set([$0]) } ?? []
            var fixtureLoader = StubLoader(
                root: folder, excludedFolders: stubsInside == [""] ? [] : stubsInside, idNamespace: "recording:")
            fixtureLoader.maximumBodyFileBytes = maximumBodyFileBytes
            let (fixtures, files) = try Self.loadFixtures(fixtureLoader)
            let excluded = StubLoader.relativePath(of: folder, under: stubsFolder).map { Set([$0]) } ?? []
            var loader = StubLoader(root: stubsFolder, excludedFolders: excluded)
            loader.maximumBodyFileBytes = maximumBodyFileBytes
            // The stubs folder loses the recording folder's files: they are fixtures now, read by their own loader.
            // Read again only when that changes what it reads (not for a second session on the same folder).
            let current = state.withLock { $0.loader.excludedFolders }
            let stubs = excluded.isEmpty || excluded == current ? nil : try loader.loadWithFileCount()
            let preparedStubs = stubs.map { (prepare($0.stubs), $0.files) }
            let preparedFixtures = serving ? prepare(fixtures) : []
            return publish { state in
                state.loader = loader
                state.fixtureLoader = fixtureLoader
                if let preparedStubs { (state.fileStubs, state.fileCount) = preparedStubs }
                state.fixtureStubs = preparedFixtures
                state.fixtureFileCount = files
                state.pinsMade += 1
                state.fixturePin = state.pinsMade
                return (state.fixtureStubs.map(\.stub), state.pinsMade)
            }
        }
    }

    /// Ends a session's pin: the recording folder is read again, so what the session wrote answers from now on. A
    /// pin that a newer session replaced is left alone.
    public func unpinFixtures(pin: Int) throws(SourceErrors) {
        let isCurrent = state.withLock { state in
            guard state.fixturePin == pin else { return false }
            state.fixturePin = nil
            return true
        }
        if isCurrent { try reloadFixtures() }
    }

    /// Reads the recording folder again, and only it: the stubs folder did not change when a session ended.
    private func reloadFixtures() throws(SourceErrors) {
        try reloadLock.withLock { _ throws(SourceErrors) in
            guard let fixtureLoader = state.withLock({ $0.fixtureLoader }) else { return }
            let (fixtures, files) = try Self.loadFixtures(fixtureLoader)
            let prepared = prepare(fixtures)
            publish { state in
                state.fixtureStubs = prepared
                state.fixtureFileCount = files
            }
        }
    }

    private static func loadFixtures(_ loader: StubLoader) throws(SourceErrors) -> ([Stub], Int) {
        // A recording folder that does not exist yet holds no fixtures; it is made on the first write.
        guard FileSystem.isDirectory(loader.root) else { return ([], 0) }
        return try loader.loadWithFileCount()
    }

    /// Stubs made ready to serve: responses encoded and bodies compressed once, a sequence of a stub that the current
    /// index has unchanged carrying on its count.
    private func prepare(_ stubs: [Stub]) -> [IndexedStub] {
        StubIndex.prepare(stubs, compress: { Zlib.compress($0, $1) }, previous: index)
    }

    /// A stub added over the admin API made ready to serve (response encoded, body compressed once), with a sequence
    /// of its own.
    func prepareAdded(_ stub: Stub) -> IndexedStub? {
        StubIndex.prepare([stub], compress: { Zlib.compress($0, $1) }, previous: nil).first
    }

    /// Applies a change, rebuilds the index and bumps the generation. Event loops take this lock only once per
    /// published change, to pick up the new index.
    private func publish<Result>(_ change: (inout State) -> Result) -> Result {
        state.withLock { state in
            let result = change(&state)
            // Stub files first, then fixtures: on a tie the earlier wins (see the README).
            state.index = StubIndex(entries: state.fileStubs + state.fixtureStubs)
            generationCounter.add(1, ordering: .releasing)
            return result
        }
    }
}
