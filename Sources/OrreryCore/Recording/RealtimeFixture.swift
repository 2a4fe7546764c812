import Foundation

/// The fixture a recorded WebSocket becomes: a stub that opens on the same path and replays the server's messages
/// in answer to the client's, with the time each came after the one before it. Written as a JSON stub file, which
/// any stub folder loads.
public enum RealtimeFixture {
    /// One frame as it went by.
    public struct Frame: Sendable {
        public var fromClient: Bool
        /// Milliseconds since the socket opened.
        public var milliseconds: Int
        public var isText: Bool
        public var payload: [UInt8]
        /// A close frame's code (its reason is `payload`): the stub closes the socket as the server did.
        public var closeCode: UInt16?

        public init(fromClient: Bool, milliseconds: Int, isText: Bool, payload: [UInt8], closeCode: UInt16? = nil) {
            self.fromClient = fromClient
            self.milliseconds = milliseconds
            self.isText = isText
            self.payload = payload
            self.closeCode = closeCode
        }
    }

    /// The route file's path for a recorded WebSocket (`api.example.com/feed.WEBSOCKET.json`).
    public static func webSocketFile(folder: String, path: String) -> String {
        let route = FixtureLayout.routeFile(folder: folder, method: "WEBSOCKET", path: path)
        return String(route.dropLast(".yaml".count)) + ".json"
    }

    /// The stub: the server's messages before the client's first go in `onOpen`; each client message becomes an
    /// `onMessage` entry matching it exactly (the first answer recorded for a message wins), replying with the
    /// server's messages up to the client's next one.
    public static func webSocketStub(path: String, host: String?, frames: [Frame]) -> JSONValue {
        var onOpen: [JSONValue] = []
        var rules: [JSONValue] = []
        var seen: Set<[UInt8]> = []
        var current: (match: JSONValue, reply: [JSONValue], isNew: Bool, close: JSONValue?)?
        var previous = 0
        func message(_ frame: Frame) -> JSONValue {
            var members: [(String, JSONValue)] =
                frame.isText
                ? [("text", .string(String(decoding: frame.payload, as: UTF8.self)))]
                : [("binary", .string(Data(frame.payload).base64EncodedString()))]
            let delay = max(0, frame.milliseconds - previous)
            if delay > 0 { members.append(("delay", .int(delay))) }
            return .object(members)
        }
        func closeRule() {
            guard let rule = current, rule.isNew else { return }
            var members: [(String, JSONValue)] = [("match", rule.match), ("reply", .array(rule.reply))]
            if let close = rule.close { members.append(("close", close)) }
            rules.append(.object(members))
        }
        for frame in frames {
            if let code = frame.closeCode {
                // Only the server's close after a client message is replayed; the client's own is not the stub's.
                if !frame.fromClient, current != nil, WebSocketCloseCode.isValidOnTheWire(code) {
                    current?.close = .object([
                        ("code", .int(Int(code))), ("reason", .string(String(decoding: frame.payload, as: UTF8.self))),
                    ])
                }
                continue
            }
            if frame.fromClient {
                closeRule()
                let match: JSONValue =
                    frame.isText
                    ? .object([("equalTo", .string(String(decoding: frame.payload, as: UTF8.self)))])
                    : .object([("binaryEqualTo", .string(Data(frame.payload).base64EncodedString()))])
                current = (match, [], seen.insert(frame.payload).inserted, nil)
            } else if current != nil {
                current?.reply.append(message(frame))
            } else {
                onOpen.append(message(frame))
            }
            previous = frame.milliseconds
        }
        closeRule()
        var request: [(String, JSONValue)] = [("path", .string(path)), ("websocket", .bool(true))]
        if let host { request.insert(("host", .string(host)), at: 0) }
        return .object([
            ("request", .object(request)),
            (
                "response",
                .object([("websocket", .object([("onOpen", .array(onOpen)), ("onMessage", .array(rules))]))])
            ),
        ])
    }
}
