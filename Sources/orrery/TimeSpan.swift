import ArgumentParser

/// A length of time on the command line: `250ms`, `5s`, `2m`, or a bare number in the option's own unit.
struct TimeSpan: Sendable {
    var milliseconds: Int

    init(milliseconds: Int) {
        self.milliseconds = milliseconds
    }

    /// Parses `text`; a bare number is in `unitMilliseconds` (1 for milliseconds, 1000 for seconds).
    init?(_ text: String, unitMilliseconds: Int) {
        let units: [(suffix: String, milliseconds: Int)] = [("ms", 1), ("s", 1000), ("m", 60_000)]
        var number = Substring(text)
        var scale = unitMilliseconds
        for unit in units where text.hasSuffix(unit.suffix) {
            number = text.dropLast(unit.suffix.count)
            scale = unit.milliseconds
            break
        }
        guard let value = Double(number), value >= 0, value.isFinite, value * Double(scale) < Double(Int32.max) else { return nil }
        milliseconds = Int((value * Double(scale)).rounded())
    }
}

/// What a bare number means for an option that takes a `TimeSpan`.
protocol TimeUnit: Sendable {
    static var milliseconds: Int { get }
}

enum MillisecondUnit: TimeUnit {
    static var milliseconds: Int { 1 }
}

enum SecondUnit: TimeUnit {
    static var milliseconds: Int { 1000 }
}

/// A `TimeSpan` option whose bare numbers are in `Unit`.
struct TimeOption<Unit: TimeUnit>: ExpressibleByArgument, Sendable {
    var span: TimeSpan
    var milliseconds: Int { span.milliseconds }

    init?(argument: String) {
        guard let span = TimeSpan(argument, unitMilliseconds: Unit.milliseconds) else { return nil }
        self.span = span
    }

    /// A default, in the option's own unit.
    init(_ value: Int) {
        span = TimeSpan(milliseconds: value * Unit.milliseconds)
    }

    var defaultValueDescription: String {
        Unit.milliseconds == 1000 && milliseconds % 1000 == 0 ? "\(milliseconds / 1000)s" : "\(milliseconds)ms"
    }
}

typealias Milliseconds = TimeOption<MillisecondUnit>
typealias Seconds = TimeOption<SecondUnit>
