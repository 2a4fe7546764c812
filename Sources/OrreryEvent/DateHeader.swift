import CLibevent
import Glibc

/// The `Date` header value (RFC 9110's IMF-fixdate), formatted once a second per event loop, as nginx does.
///
/// evhttp adds a `Date` to every response that has none by calling gmtime_r and snprintf: 3,300 instructions a
/// request, more than a tenth of what serving a small stub costs. A response given one already keeps it.
final class DateHeader {
    private let base: OpaquePointer
    private var second = -1
    private var value = ""

    init(base: OpaquePointer) {
        self.base = base
    }

    /// The value for now, by the loop's cached clock (read once per loop iteration, not a system call).
    var current: String {
        var now = timeval()
        if event_base_gettimeofday_cached(base, &now) != 0 { gettimeofday(&now, nil) }
        if now.tv_sec != second {
            second = now.tv_sec
            value = Self.format(now.tv_sec)
        }
        return value
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
