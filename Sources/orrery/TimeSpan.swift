import ArgumentParser

/// A length of time on the command line: `250ms`, `5s`, `2m`, or a bare number in the option's own unit.
struct TimeSpan: Sendable {
    var milliseconds: Int

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

/// `TimeSpan` for options whose bare numbers are milliseconds.
struct Milliseconds: ExpressibleByArgument, Sendable {
    var span: TimeSpan
    var value: Int { span.milliseconds }

    init?(argument: String) {
        guard let span = TimeSpan(argument, unitMilliseconds: 1) else { return nil }
        self.span = span
    }

    init(_ milliseconds: Int) {
        span = TimeSpan(milliseconds: milliseconds)
    }

    var defaultValueDescription: String { "\(span.milliseconds)ms" }
}

/// `TimeSpan` for options whose bare numbers are seconds.
struct Seconds: ExpressibleByArgument, Sendable {
    var span: TimeSpan
    var milliseconds: Int { span.milliseconds }

    init?(argument: String) {
        guard let span = TimeSpan(argument, unitMilliseconds: 1000) else { return nil }
        self.span = span
    }

    init(_ seconds: Int) {
        span = TimeSpan(milliseconds: seconds * 1000)
    }

    var defaultValueDescription: String {
        span.milliseconds % 1000 == 0 ? "\(span.milliseconds / 1000)s" : "\(span.milliseconds)ms"
    }
}

extension TimeSpan {
    init(milliseconds: Int) {
        self.milliseconds = milliseconds
    }
}
