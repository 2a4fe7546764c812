import Foundation

/// How long a stub waits before it answers: a fixed time, or one drawn per request from a distribution.
public enum Delay: Sendable, Equatable, CustomStringConvertible {
    /// `delay: 200`.
    case fixed(milliseconds: Int)
    /// `delay: { uniform: [min, max] }`: every value between the two equally likely.
    case uniform(min: Int, max: Int)
    /// `delay: { lognormal: { median, sigma } }`: most answers near the median, a long tail of slow ones, as real
    /// services' latencies are. Half the samples fall below `median`; `sigma` is the spread of the logarithm.
    case lognormal(median: Double, sigma: Double)

    /// The longest delay a stub may ask for, and where a lognormal tail is cut.
    public static let maximumMilliseconds = 600_000

    /// The milliseconds to wait for one request.
    public func sample<Generator: RandomNumberGenerator>(using generator: inout Generator) -> Int {
        switch self {
        case .fixed(let milliseconds):
            return milliseconds
        case .uniform(let low, let high):
            return Int.random(in: low...high, using: &generator)
        case .lognormal(let median, let sigma):
            // Box-Muller: a standard normal from two uniforms; the first is kept away from 0 for the logarithm.
            let u1 = Double.random(in: Double.ulpOfOne..<1, using: &generator)
            let u2 = Double.random(in: 0..<1, using: &generator)
            let normal = (-2 * Foundation.log(u1)).squareRoot() * Foundation.cos(2 * Double.pi * u2)
            let value = median * Foundation.exp(sigma * normal)
            return Int(min(Double(Self.maximumMilliseconds), max(0, value)).rounded())
        }
    }

    /// The milliseconds for one request, from the system's random numbers.
    public func sample() -> Int {
        var generator = SystemRandomNumberGenerator()
        return sample(using: &generator)
    }

    /// The fixed delay, or nil when it is drawn per request.
    public var fixedMilliseconds: Int? {
        if case .fixed(let milliseconds) = self { return milliseconds }
        return nil
    }

    public var description: String {
        switch self {
        case .fixed(let milliseconds): "\(milliseconds) ms"
        case .uniform(let low, let high): "uniform \(low)–\(high) ms"
        case .lognormal(let median, let sigma): "lognormal, median \(median) ms, sigma \(sigma)"
        }
    }
}
