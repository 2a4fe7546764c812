import CLibevent

/// The calling thread's OpenSSL error queue, read out into text.
enum OpenSSLErrorQueue {
    /// Every queued error, oldest first, joined with "; " (the queue is left empty, so a later failure does not
    /// report this one's leftovers); "unknown error" when the queue is empty.
    static func take() -> String {
        var messages: [String] = []
        var code = ERR_get_error()
        while code != 0 {
            messages.append(TLSContext.describe(code))
            code = ERR_get_error()
        }
        return messages.isEmpty ? "unknown error" : messages.joined(separator: "; ")
    }

    /// An `EventError` saying what failed, with OpenSSL's reasons.
    static func error(_ what: String) -> EventError {
        EventError("\(what): \(take())")
    }
}
