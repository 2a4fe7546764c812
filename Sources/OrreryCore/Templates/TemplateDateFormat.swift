/// A Java `SimpleDateFormat` pattern (as WireMock's `now` and `date` helpers take it), compiled once into fields
/// and literal text and written in UTC; also `epoch` (milliseconds) and `unix` (seconds).
struct TemplateDateFormat: Sendable {
    enum Piece: Sendable, Equatable {
        case literal(String)
        /// A field letter and how many times it is repeated (`yyyy`, `MM`).
        case field(Character, Int)
    }

    enum Kind: Sendable, Equatable {
        case pattern([Piece])
        case epochMilliseconds
        case unixSeconds
    }

    let kind: Kind

    /// WireMock's form when no format is given: ISO 8601 in UTC, to the second (`2026-11-25T15:53:32Z`).
    static let iso = TemplateDateFormat(
        kind: .pattern([
            .field("y", 4), .literal("-"), .field("M", 2), .literal("-"), .field("d", 2), .literal("T"), .field("H", 2),
            .literal(":"),
            .field("m", 2), .literal(":"), .field("s", 2), .literal("Z"),
        ]))

    private init(kind: Kind) {
        self.kind = kind
    }

    static let fieldLetters: Set<Character> = [
        "y", "M", "d", "H", "h", "m", "s", "S", "a", "E", "Z", "X", "z", "D", "u", "k", "K",
    ]

    /// Compiles a pattern; the error names a letter that is not a field Orrery writes.
    init(_ pattern: String) throws(TemplateNameError) {
        if pattern == "epoch" {
            kind = .epochMilliseconds
            return
        }
        if pattern == "unix" {
            kind = .unixSeconds
            return
        }
        var pieces: [Piece] = []
        var characters = Array(pattern)[...]
        while let character = characters.first {
            if character == "'" {
                characters.removeFirst()
                if characters.first == "'" {
                    characters.removeFirst()
                    pieces.append(.literal("'"))
                    continue
                }
                var text = ""
                while let next = characters.first {
                    characters.removeFirst()
                    if next == "'" {
                        if characters.first == "'" {
                            characters.removeFirst()
                            text.append("'")
                            continue
                        }
                        break
                    }
                    text.append(next)
                }
                pieces.append(.literal(text))
            } else if character.isLetter {
                guard Self.fieldLetters.contains(character) else {
                    throw TemplateNameError(
                        "the date format '\(pattern)' has the letter '\(character)', which is not a field Orrery writes"
                    )
                }
                var count = 0
                while characters.first == character {
                    characters.removeFirst()
                    count += 1
                }
                pieces.append(.field(character, count))
            } else {
                characters.removeFirst()
                pieces.append(.literal(String(character)))
            }
        }
        kind = .pattern(pieces)
    }

    private static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]
    private static let weekdays = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"]

    /// The time (milliseconds since 1970, UTC) in this format.
    func format(milliseconds: Int64) -> String {
        switch kind {
        case .epochMilliseconds: return String(milliseconds)
        case .unixSeconds: return String(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        case .pattern(let pieces):
            let seconds = Int(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
            let millisecond = Int(milliseconds - Int64(seconds) * 1000)
            let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            let secondOfDay = seconds - days * 86_400
            let (year, month, day) = Self.civil(days: days)
            let hour = secondOfDay / 3600
            var out = ""
            for piece in pieces {
                switch piece {
                case .literal(let text): out += text
                case .field(let letter, let count):
                    switch letter {
                    case "y":
                        out += count == 2 ? Self.padded(year % 100, 2) : Self.padded(year, count)
                    case "M":
                        if count >= 4 {
                            out += Self.months[month - 1]
                        } else if count == 3 {
                            out += String(Self.months[month - 1].prefix(3))
                        } else {
                            out += Self.padded(month, count)
                        }
                    case "d": out += Self.padded(day, count)
                    case "D": out += Self.padded(days - Self.daysBefore(year: year) + 1, count)
                    case "H": out += Self.padded(hour, count)
                    case "k": out += Self.padded(hour == 0 ? 24 : hour, count)
                    case "K": out += Self.padded(hour % 12, count)
                    case "h": out += Self.padded(hour % 12 == 0 ? 12 : hour % 12, count)
                    case "m": out += Self.padded(secondOfDay / 60 % 60, count)
                    case "s": out += Self.padded(secondOfDay % 60, count)
                    case "S": out += Self.padded(millisecond, count)
                    case "a": out += hour < 12 ? "AM" : "PM"
                    case "E":
                        let weekday = Self.weekdays[((days % 7) + 7) % 7]
                        out += count >= 4 ? weekday : String(weekday.prefix(3))
                    case "u": out += String(((days % 7) + 10) % 7 + 1)
                    case "Z": out += "+0000"
                    case "X": out += "Z"
                    default: out += count >= 4 ? "Coordinated Universal Time" : "UTC"
                    }
                }
            }
            return out
        }
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 of a civil date.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysBefore(year: Int) -> Int {
        days(year: year, month: 1, day: 1)
    }

    /// `2026-11-25`, `2026-11-25T15:53:32Z` or with milliseconds, in UTC; nil when the text is not such a time.
    static func parseISO(_ text: String) -> Int64? {
        let digits = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= digits.count else { return nil }
            var value = 0
            for byte in digits[start..<start + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), (1...12).contains(month),
            (1...31).contains(day)
        else { return nil }
        var seconds = days(year: year, month: month, day: day) * 86_400
        var milliseconds = 0
        if digits.count > 10 {
            guard let hour = number(11, 2), let minute = number(14, 2) else { return nil }
            seconds += hour * 3600 + minute * 60 + (number(17, 2) ?? 0)
            if digits.count > 20, digits[19] == UInt8(ascii: "."), let fraction = number(20, 3) {
                milliseconds = fraction
            }
        }
        return Int64(seconds) * 1000 + Int64(milliseconds)
    }

    /// WireMock's `offset`: `3 days`, `-1 hours`, `30 seconds` (also `minutes`, `weeks`, `milliseconds`) in seconds;
    /// nil for what is not one (months and years have no fixed length and are not supported).
    static func offsetSeconds(_ text: String) -> Int? {
        let words = text.split(separator: " ")
        guard words.count == 2, let amount = Int(words[0]) else { return nil }
        switch words[1].lowercased() {
        case "seconds", "second", "s": return amount
        case "minutes", "minute", "m": return amount * 60
        case "hours", "hour", "h": return amount * 3600
        case "days", "day", "d": return amount * 86_400
        case "weeks", "week": return amount * 7 * 86_400
        default: return nil
        }
    }
}
