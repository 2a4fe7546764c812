/// A bandwidth limit on a stub's answer (`throttle: { bytesPerSecond: N }`), as a slow network would give it.
public struct Throttle: Sendable, Equatable {
    public let bytesPerSecond: Int

    public init(bytesPerSecond: Int) {
        self.bytesPerSecond = max(1, bytesPerSecond)
    }

    /// Bytes to send per tick of `milliseconds`, at least one so that every answer ends.
    public func bytesPerTick(milliseconds: Int) -> Int {
        max(1, bytesPerSecond * max(1, milliseconds) / 1000)
    }

    /// How long `bytes` take at this rate, in milliseconds (rounded up).
    public func milliseconds(toSend bytes: Int) -> Int {
        (max(0, bytes) * 1000 + bytesPerSecond - 1) / bytesPerSecond
    }
}
