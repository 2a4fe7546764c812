import Foundation

/// Where each series lives in a loop's block of counters: the request counters by outcome, status class and session
/// kind, then two histograms (request duration, upstream latency), each with a bucket, sum and count per environment.
/// Fixed at start-up, so the request path finds a slot with arithmetic alone.
struct MetricsLayout: Sendable {
    /// Upper bounds of the duration buckets, in nanoseconds: 50 µs to 10 s. A stub answered at once lands in the
    /// first, found in one comparison.
    static let bucketBounds: [Int] = [
        50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000, 50_000_000,
        100_000_000, 250_000_000, 500_000_000, 1_000_000_000, 2_500_000_000, 5_000_000_000, 10_000_000_000,
    ]

    /// The `environment` label's values: `none` (answers no upstream took part in), the host map's environment keys,
    /// and `other` for a key the map did not have at start-up.
    let environments: [String]

    init(environments: [String]) {
        var names = ["none"]
        for name in environments where !names.contains(name) && name != "other" { names.append(name) }
        self.environments = names + ["other"]
    }

    static let requestSeries = MetricOutcome.allCases.count * StatusClass.allCases.count * SessionKind.allCases.count

    /// Slots per environment in one histogram: the buckets, the overflow bucket (+Inf), the sum and the count.
    static let histogramStride = bucketBounds.count + 3

    var histogramSlots: Int { environments.count * Self.histogramStride }

    var slotCount: Int { Self.requestSeries + 2 * histogramSlots }

    static func requestSlot(_ outcome: MetricOutcome, _ statusClass: StatusClass, _ kind: SessionKind) -> Int {
        (outcome.rawValue * StatusClass.allCases.count + statusClass.rawValue) * SessionKind.allCases.count
            + kind.rawValue
    }

    /// The first slot of a histogram's block for an environment: `upstream` picks the second histogram.
    func histogramBase(environment: Int, upstream: Bool) -> Int {
        Self.requestSeries + (upstream ? histogramSlots : 0) + environment * Self.histogramStride
    }

    /// The environment's index; a name the map did not have at start-up counts as `other`.
    func environmentIndex(_ name: String?) -> Int {
        guard let name else { return 0 }
        return environments.firstIndex(of: name) ?? environments.count - 1
    }

    /// The bucket a duration falls in: the first whose bound is at or above it, or the overflow bucket.
    static func bucket(nanoseconds: Int) -> Int {
        var index = 0
        while index < bucketBounds.count, nanoseconds > bucketBounds[index] { index += 1 }
        return index
    }

    /// The monotonic clock in nanoseconds: what durations are measured with.
    static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec &* 1_000_000_000 &+ time.tv_nsec
    }
}
