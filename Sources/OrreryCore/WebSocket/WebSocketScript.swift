/// What a WebSocket stub plays (`response.websocket`): messages sent when the socket opens, and rules that answer
/// the client's messages. Pure: the connection asks it what to send and carries that out.
public struct WebSocketScript: Sendable, Equatable {
    /// A message the stub sends: text or binary, fixed or a template over the client's message.
    public struct Message: Sendable, Equatable {
        public var isText: Bool
        public var payload: [UInt8]
        /// `template: true`: rendered per client message (`message.text`, `message.json`, and the request's names).
        public var template: Template?
        /// Milliseconds after the message before it (or after the client's message, for the first reply).
        public var delayMilliseconds: Int

        public init(isText: Bool, payload: [UInt8], template: Template? = nil, delayMilliseconds: Int = 0) {
            self.isText = isText
            self.payload = payload
            self.template = template
            self.delayMilliseconds = delayMilliseconds
        }
    }

    /// `close: {code, reason}`: the stub closes the socket after the rule's replies.
    public struct Close: Sendable, Equatable {
        public var code: UInt16
        public var reason: String

        public init(code: UInt16 = WebSocketCloseCode.normal, reason: String = "") {
            self.code = code
            self.reason = reason
        }
    }

    /// One `onMessage` entry: the first whose `match` takes a client message answers it.
    public struct Rule: Sendable {
        /// Every matcher must hold; none matches every message.
        public var match: [BodyMatcher]
        public var reply: [Message]
        public var close: Close?

        public init(match: [BodyMatcher] = [], reply: [Message] = [], close: Close? = nil) {
            self.match = match
            self.reply = reply
            self.close = close
        }

        public func matches(_ message: WebSocketMessage) -> Bool {
            match.allSatisfy { $0.matches(message.payload) }
        }
    }

    /// A message due to go out: what, and how long after the one before it.
    public struct Outgoing: Sendable, Equatable {
        public var message: WebSocketMessage
        public var delayMilliseconds: Int
    }

    /// What answers one client message: the rule that took it (nil: none did, and nothing is sent), its messages
    /// rendered, and the close that follows them.
    public struct Answer: Sendable, Equatable {
        public var rule: Int?
        public var messages: [Outgoing]
        public var close: Close?
    }

    public var onOpen: [Message]
    public var onMessage: [Rule]
    /// The stub as written, which equality compares (matchers have no equality of their own).
    private var source: String

    public init(onOpen: [Message] = [], onMessage: [Rule] = [], source: String = "") {
        self.onOpen = onOpen
        self.onMessage = onMessage
        self.source = source
    }

    public static func == (lhs: WebSocketScript, rhs: WebSocketScript) -> Bool {
        lhs.source == rhs.source && lhs.onOpen == rhs.onOpen && lhs.onMessage.count == rhs.onMessage.count
    }

    /// The messages sent when the socket opens, rendered against the opening request.
    public func opening(_ request: HTTPRequest, budget: TemplateBudget = TemplateBudget()) -> [Outgoing] {
        onOpen.map { Self.render($0, request: request, budget: budget) }
    }

    /// How the stub answers a client message on the socket that `request` opened.
    public func answer(
        _ message: WebSocketMessage, request: HTTPRequest, budget: TemplateBudget = TemplateBudget()
    ) -> Answer {
        guard let index = onMessage.firstIndex(where: { $0.matches(message) }) else {
            return Answer(rule: nil, messages: [], close: nil)
        }
        let rule = onMessage[index]
        // The template sees the message as the request's body: `message.text` and `message.json` read it.
        var asRequest = request
        asRequest.body = message.payload
        let messages = rule.reply.map { Self.render($0, request: asRequest, budget: budget) }
        return Answer(rule: index, messages: messages, close: rule.close)
    }

    private static func render(_ message: Message, request: HTTPRequest, budget: TemplateBudget) -> Outgoing {
        guard let template = message.template else {
            return Outgoing(
                message: WebSocketMessage(isText: message.isText, payload: message.payload),
                delayMilliseconds: message.delayMilliseconds)
        }
        var context = TemplateContext(request: request, budget: budget)
        let rendered = template.render(&context)
        let payload =
            context.exceeded.map { Array("template over its budget: \($0)".utf8) } ?? rendered
        return Outgoing(
            message: WebSocketMessage(isText: message.isText, payload: payload),
            delayMilliseconds: message.delayMilliseconds)
    }
}
