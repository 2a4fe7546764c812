import Foundation

/// A value behind a lock, for the client libraries: they run where Synchronization's `Mutex` (macOS 15, iOS 18) does
/// not, so that an app's test target with an older deployment target can use them.
package final class LockedValue<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, alone.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
