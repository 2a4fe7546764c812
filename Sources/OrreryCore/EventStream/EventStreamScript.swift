import Foundation

/// A server-sent event stream a stub plays (`response.events`): each event `delay` ms after the one before it,
/// then the stream ends, or stays open with `keepOpen: true`.
public struct EventStreamScript: Sendable, Equatable {
    /// One event, as the `text/event-stream` format has it.
    public struct Event: Sendable, Equatable {
        public var event: String?
        /// Text; a mapping or list in the stub is sent as its JSON.
        public var data: String
        public var id: String?
        /// The reconnection time the client should use, in milliseconds.
        public var retry: Int?
        /// Milliseconds after the event before it (the first: after the head).
        public var delayMilliseconds: Int

        public init(
            event: String? = nil, data: String, id: String? = nil, retry: Int? = nil, delayMilliseconds: Int = 0
        ) {
            self.event = event
            self.data = data
            self.id = id
            self.retry = retry
            self.delayMilliseconds = delayMilliseconds
        }

        /// The event's lines and the blank line that ends it; data of several lines is a `data:` line each.
        public var encoded: [UInt8] {
            var text = ""
            if let event { text += "event: \(event)\n" }
            if let id { text += "id: \(id)\n" }
            if let retry { text += "retry: \(retry)\n" }
            var lines = data.split(separator: "\n", omittingEmptySubsequences: false)
            if lines.last == "" && lines.count > 1 { lines.removeLast() }
            for line in lines { text += "data: \(line.hasSuffix("\r") ? line.dropLast() : line)\n" }
            text += "\n"
            return Array(text.utf8)
        }
    }

    public var events: [Event]
    /// The stream stays open after its last event, until the client leaves.
    public var keepOpen: Bool

    public init(events: [Event], keepOpen: Bool = false) {
        self.events = events
        self.keepOpen = keepOpen
    }

    /// The whole stream's bytes, as the journal keeps them.
    public var encoded: [UInt8] { events.flatMap(\.encoded) }

    /// When each event of a recorded body arrived, for `parse`: `reads` are the body's reads as they came, each
    /// the body's size after it and its time (milliseconds since the head); an event arrived with the read that
    /// brought its closing blank line. Lines and events are told apart as `parse` does, so the two agree.
    public static func arrivals(_ body: [UInt8], reads: [(end: Int, milliseconds: Int)]) -> [Int] {
        var arrivals: [Int] = []
        var read = 0
        var lineStart = 0
        var hasField = false
        for index in body.indices where body[index] == UInt8(ascii: "\n") {
            var lineEnd = index
            if lineEnd > lineStart, body[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            if lineEnd == lineStart {
                if hasField {
                    while read < reads.count, reads[read].end <= index { read += 1 }
                    arrivals.append(read < reads.count ? reads[read].milliseconds : reads.last?.milliseconds ?? 0)
                }
                hasField = false
            } else if body[lineStart] != UInt8(ascii: ":") {
                hasField = true
            }
            lineStart = index + 1
        }
        return arrivals
    }

    /// Reads a recorded `text/event-stream` body back into events, each given the delay it arrived after the one
    /// before it (`arrivals`, milliseconds since the head, one per event; missing ones count as 0).
    public static func parse(_ body: [UInt8], arrivals: [Int] = []) -> [Event] {
        var events: [Event] = []
        var current = Event(data: "")
        var hasData = false
        var hasField = false
        var previous = 0
        let text = String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty {
                if hasField {
                    let arrival = events.count < arrivals.count ? arrivals[events.count] : previous
                    current.delayMilliseconds = max(0, arrival - previous)
                    previous = arrival
                    events.append(current)
                }
                current = Event(data: "")
                hasData = false
                hasField = false
                continue
            }
            if line.hasPrefix(":") { continue }
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            var value = parts.count > 1 ? String(parts[1]) : ""
            if value.hasPrefix(" ") { value.removeFirst() }
            hasField = true
            switch name {
            case "event": current.event = value
            case "id": current.id = value
            case "retry": current.retry = Int(value)
            case "data":
                current.data = hasData ? current.data + "\n" + value : value
                hasData = true
            default: break
            }
        }
        return events
    }
}
