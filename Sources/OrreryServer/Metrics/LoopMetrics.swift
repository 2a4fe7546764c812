import Atomics

/// One event loop's counters and histograms: a block of integer slots laid out by `MetricsLayout`, written by that
/// loop's thread alone and folded into the Prometheus registry when someone scrapes.
///
/// The request path bumps a slot with a relaxed load and store (plain moves on x86): no lock, no locked
/// read-modify-write, no allocation, no dictionary. The scrape reads the slots with relaxed loads from another
/// thread, seeing each at most a few requests old.
final class LoopMetrics: @unchecked Sendable {
    // @unchecked: `slots` is written only by the owning loop's thread and read elsewhere only through atomics.
    let layout: MetricsLayout
    private let slots: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>
    private let count: Int

    init(layout: MetricsLayout) {
        self.layout = layout
        count = layout.slotCount
        slots = .allocate(capacity: count)
        slots.initialize(repeating: UnsafeAtomic<Int>.Storage(0), count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// An answered request: counted by outcome, status class and session kind, and its duration (from
    /// `startedAt`, by `MetricsLayout.now()`) observed under its environment.
    func answered(
        _ outcome: MetricOutcome, status: Int, kind: SessionKind, environment: Int = 0, startedAt: Int
    ) {
        bump(MetricsLayout.requestSlot(outcome, StatusClass(status: status), kind))
        observe(MetricsLayout.now() &- startedAt, at: layout.histogramBase(environment: environment, upstream: false))
    }

    /// The time an upstream took to answer a forwarded request.
    func upstreamAnswered(environment: Int, nanoseconds: Int) {
        observe(nanoseconds, at: layout.histogramBase(environment: environment, upstream: true))
    }

    /// Bucket, sum and count; the buckets are kept apart here and summed up to each bound when rendered.
    private func observe(_ nanoseconds: Int, at base: Int) {
        let value = max(0, nanoseconds)
        bump(base + MetricsLayout.bucket(nanoseconds: value))
        bump(base + MetricsLayout.bucketBounds.count + 1, by: value)
        bump(base + MetricsLayout.bucketBounds.count + 2)
    }

    private func bump(_ slot: Int, by amount: Int = 1) {
        let atomic = UnsafeAtomic<Int>(at: slots + slot)
        atomic.store(atomic.load(ordering: .relaxed) &+ amount, ordering: .relaxed)
    }

    /// A slot's value, from any thread.
    func value(at slot: Int) -> Int {
        UnsafeAtomic<Int>(at: slots + slot).load(ordering: .relaxed)
    }
}
