import Foundation

/// The daemons this process shares between suites and tests: one per set of options, counted by its users.
///
/// The first `acquire` starts a daemon; others with equal options wait for that start and get the same daemon; the
/// last `release` stops it. A start that failed is handed to everyone waiting on it, and the next `acquire` after
/// them tries again.
actor SharedDaemons {
    static let shared = SharedDaemons()

    private struct Entry {
        var users: Int
        let start: Task<OrreryDaemon, any Error>
    }

    private var entries: [OrreryDaemon.Options: Entry] = [:]

    /// The daemon for `options`, started if no one holds one; pair each successful call with `release`.
    func acquire(_ options: OrreryDaemon.Options) async throws -> OrreryDaemon {
        let start: Task<OrreryDaemon, any Error>
        if var entry = entries[options] {
            entry.users += 1
            entries[options] = entry
            start = entry.start
        } else {
            start = Task { try await OrreryDaemon.start(options) }
            entries[options] = Entry(users: 1, start: start)
        }
        do {
            return try await start.value
        } catch {
            drop(options)
            throw error
        }
    }

    /// Gives back a daemon; the last user's release stops it and returns how it ended.
    func release(_ options: OrreryDaemon.Options) async -> (daemon: OrreryDaemon, status: OrreryDaemon.ExitStatus?)? {
        guard let entry = entries[options] else { return nil }
        guard entry.users <= 1 else {
            entries[options]?.users -= 1
            return nil
        }
        entries[options] = nil
        guard let daemon = try? await entry.start.value else { return nil }
        return (daemon, await daemon.shutdown())
    }

    /// Forgets one user whose acquire failed, without stopping anything.
    private func drop(_ options: OrreryDaemon.Options) {
        guard let entry = entries[options] else { return }
        if entry.users <= 1 { entries[options] = nil } else { entries[options]?.users -= 1 }
    }

    /// How many users hold a daemon for `options` (for tests of the kit).
    func users(of options: OrreryDaemon.Options) -> Int { entries[options]?.users ?? 0 }
}
