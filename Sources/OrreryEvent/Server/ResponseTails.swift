import CLibevent
import Glibc
import OrreryCore

/// The ends of response heads (`Date`, `Connection`, the blank line), made once a second per event loop, as nginx
/// formats its `Date` once a second: a response adds one of these by reference instead of formatting anything.
final class ResponseTails {
    private let base: OpaquePointer
    private var second = -1
    /// By `[hasOwnDate ? 1 : 0][connection field]`.
    private var tails: [[Payload]] = []

    init(base: OpaquePointer) {
        self.base = base
    }

    /// The end of a head for now, by the loop's cached clock (read once per loop iteration, not a system call).
    func tail(hasOwnDate: Bool, connection: HTTP1Encoder.ConnectionField) -> Payload {
        var now = timeval()
        if event_base_gettimeofday_cached(base, &now) != 0 { gettimeofday(&now, nil) }
        if now.tv_sec != second {
            second = now.tv_sec
            let date = Self.format(now.tv_sec)
            tails = [
                HTTP1Encoder.ConnectionField.allCases.map { Payload(HTTP1Encoder.tail(date: date, connection: $0)) },
                HTTP1Encoder.ConnectionField.allCases.map { Payload(HTTP1Encoder.tail(date: nil, connection: $0)) },
            ]
        }
        let field: Int =
            switch connection {
            case .none: 0
            case .close: 1
            case .keepAlive: 2
            }
        return tails[hasOwnDate ? 1 : 0][field]
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// RFC 9110's IMF-fixdate.
    static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ number: Int32) -> String { number < 10 ? "0\(number)" : "\(number)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
