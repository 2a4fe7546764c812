import Foundation

// WebSocket stubs (`request.websocket`, `response.websocket`) and server-sent event streams (`response.events`).
extension StubDecoder {
    static let websocketKeys = ["onOpen", "onMessage"]
    static let websocketRuleKeys = ["match", "reply", "close"]
    static let websocketMessageKeys = ["text", "json", "binary", "delay", "template"]
    static let closeKeys = ["code", "reason"]
    static let eventKeys = ["event", "data", "id", "retry", "delay"]

    /// `websocket: true`: only a GET that asks to upgrade to a WebSocket matches.
    mutating func decodeWebSocketRequest(_ node: SourceNode, into pattern: inout RequestPattern) {
        guard case .bool(let isWebSocket) = node.value else {
            fail(node.line, "'websocket' must be true or false, not \(node.kindName)")
            return
        }
        guard isWebSocket else { return }
        if let method = pattern.method, method != "GET" {
            fail(node.line, "a WebSocket opens with a GET, so 'websocket: true' cannot go with 'method: \(method)'")
        }
        pattern.method = "GET"
        guard let upgrade = try? Pattern("(?i)(^|[ ,])websocket($|[ ,])") else { return }
        pattern.headers.append(("Upgrade", .matches(upgrade)))
    }

    /// `websocket`, `events` and `keepOpen` of a response.
    mutating func decodeRealtime(
        _ node: SourceNode, _ members: [(key: String, keyLine: Int, value: SourceNode)],
        into response: inout ResponseDefinition,
        scope: TemplateScope
    ) {
        var messageScope = scope
        messageScope.hasMessage = true
        if let websocket = node["websocket"] {
            response.websocket = decodeWebSocketScript(websocket, scope: messageScope)
            for member in members
            where ["body", "json", "bodyFile", "paginate", "events", "fault", "throttle"].contains(member.key) {
                fail(member.keyLine, "'websocket' plays messages on the socket; leave out '\(member.key)'")
            }
        }
        if let events = node["events"] {
            response.events = decodeEvents(events, keepOpen: node["keepOpen"])
            for member in members
            where ["body", "json", "bodyFile", "paginate", "template", "fault", "throttle"].contains(member.key) {
                fail(member.keyLine, "'events' makes the body as a stream of events; leave out '\(member.key)'")
            }
            if response.headers["Content-Type"] == nil { response.headers.add("Content-Type", "text/event-stream") }
            if response.headers["Cache-Control"] == nil { response.headers.add("Cache-Control", "no-cache") }
        } else if let keepOpen = node["keepOpen"] {
            fail(keepOpen.line, "'keepOpen' goes beside 'events', whose stream it keeps open")
        }
    }

    private mutating func decodeWebSocketScript(_ node: SourceNode, scope: TemplateScope) -> WebSocketScript? {
        guard case .object(let members) = node.value else {
            fail(node.line, "'websocket' must be a mapping with 'onOpen' and 'onMessage', not \(node.kindName)")
            return nil
        }
        checkKeys(members, allowed: Self.websocketKeys, in: "'websocket'")
        var onOpen: [WebSocketScript.Message] = []
        if let list = node["onOpen"] { onOpen = decodeMessages(list, "onOpen", scope: scope) }
        var rules: [WebSocketScript.Rule] = []
        if let list = node["onMessage"] {
            if case .array(let items) = list.value {
                rules = items.compactMap { decodeRule($0, scope: scope) }
            } else {
                fail(list.line, "'onMessage' must be a list of {match, reply, close}, not \(list.kindName)")
            }
        }
        return WebSocketScript(onOpen: onOpen, onMessage: rules, source: node.jsonValue.encoded)
    }

    private mutating func decodeRule(_ node: SourceNode, scope: TemplateScope) -> WebSocketScript.Rule? {
        guard case .object(let members) = node.value else {
            fail(
                node.line,
                "an 'onMessage' entry must be a mapping with 'match', 'reply' or 'close', not \(node.kindName)")
            return nil
        }
        checkKeys(members, allowed: Self.websocketRuleKeys, in: "an 'onMessage' entry")
        var rule = WebSocketScript.Rule()
        if let match = node["match"] { rule.match = bodyMatchers(match) }
        if let reply = node["reply"] { rule.reply = decodeMessages(reply, "reply", scope: scope) }
        if let close = node["close"] { rule.close = decodeClose(close) }
        return rule
    }

    /// A list of messages, or one message alone.
    private mutating func decodeMessages(_ node: SourceNode, _ what: String, scope: TemplateScope) -> [WebSocketScript
        .Message]
    {
        if case .array(let items) = node.value { return items.compactMap { decodeMessage($0, scope: scope) } }
        return decodeMessage(node, scope: scope).map { [$0] } ?? []
    }

    /// `{text}`, `{json}` or `{binary: base64}`, with `delay` and `template`; plain text is a text message.
    private mutating func decodeMessage(_ node: SourceNode, scope: TemplateScope) -> WebSocketScript.Message? {
        if let text = node.scalarText { return WebSocketScript.Message(isText: true, payload: Array(text.utf8)) }
        guard case .object(let members) = node.value else {
            fail(node.line, "a message must be text or a mapping with 'text', 'json' or 'binary', not \(node.kindName)")
            return nil
        }
        checkKeys(members, allowed: Self.websocketMessageKeys, in: "a message")
        checkExclusive(members, ["text", "json", "binary"])
        var isTemplate = false
        if let flag = node["template"] {
            if case .bool(let value) = flag.value {
                isTemplate = value
            } else {
                fail(flag.line, "'template' must be true or false")
            }
        }
        var message = WebSocketScript.Message(isText: true, payload: [])
        let compiler = TemplateCompiler(scope: scope)
        if let text = node["text"] {
            let value = string(text, "text") ?? ""
            if isTemplate {
                message.template = compile(value, compiler, line: text.line)
            } else {
                message.payload = Array(value.utf8)
            }
        } else if let json = node["json"] {
            if isTemplate {
                message.template = compileJSON(json, compiler)
            } else {
                message.payload = Array(json.jsonValue.encoded.utf8)
            }
        } else if let binary = node["binary"] {
            message.isText = false
            if isTemplate { fail(binary.line, "a 'binary' message cannot be a template; use 'text' or 'json'") }
            if let text = string(binary, "binary") {
                if let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) {
                    message.payload = Array(data)
                } else {
                    fail(binary.line, "'binary' must be base64")
                }
            }
        } else {
            fail(node.line, "a message needs 'text', 'json' or 'binary'")
            return nil
        }
        if let delay = node["delay"] {
            message.delayMilliseconds = integer(delay, "delay", range: 0...Delay.maximumMilliseconds) ?? 0
        }
        return message
    }

    /// `close: true`, a code alone, or `{code, reason}`.
    private mutating func decodeClose(_ node: SourceNode) -> WebSocketScript.Close? {
        switch node.value {
        case .bool(let flag):
            return flag ? WebSocketScript.Close() : nil
        case .number:
            return integer(node, "close", range: 1000...4999).flatMap { closeCode($0, line: node.line) }
        case .object(let members):
            checkKeys(members, allowed: Self.closeKeys, in: "'close'")
            var close = WebSocketScript.Close()
            if let code = node["code"], let value = integer(code, "code", range: 1000...4999),
                let valid = closeCode(value, line: code.line)
            {
                close.code = valid.code
            }
            if let reason = node["reason"], let text = string(reason, "reason") {
                if text.utf8.count > 123 { fail(reason.line, "a close 'reason' is at most 123 bytes of UTF-8") }
                close.reason = text
            }
            return close
        default:
            fail(node.line, "'close' must be true, a code, or {code, reason}, not \(node.kindName)")
            return nil
        }
    }

    private mutating func closeCode(_ value: Int, line: Int) -> WebSocketScript.Close? {
        guard WebSocketCloseCode.isValidOnTheWire(UInt16(value)) else {
            fail(line, "close code \(value) cannot be sent (use 1000-1003, 1007-1014 or 3000-4999)")
            return nil
        }
        return WebSocketScript.Close(code: UInt16(value))
    }

    private mutating func decodeEvents(_ node: SourceNode, keepOpen: SourceNode?) -> EventStreamScript? {
        guard case .array(let items) = node.value else {
            fail(node.line, "'events' must be a list of {event, data, id, retry, delay}, not \(node.kindName)")
            return nil
        }
        var events: [EventStreamScript.Event] = []
        for item in items {
            guard case .object(let members) = item.value else {
                fail(
                    item.line,
                    "an event must be a mapping with 'data' (and 'event', 'id', 'retry', 'delay'), not \(item.kindName)"
                )
                continue
            }
            checkKeys(members, allowed: Self.eventKeys, in: "an event")
            var event = EventStreamScript.Event(data: "")
            if let data = item["data"] {
                switch data.value {
                case .object, .array: event.data = data.jsonValue.encoded
                default: event.data = data.scalarText ?? ""
                }
            }
            if let name = item["event"], let text = string(name, "event") {
                if text.contains(where: \.isNewline) { fail(name.line, "an 'event' name cannot hold a line break") }
                event.event = text
            }
            if let id = item["id"], let text = string(id, "id") {
                if text.contains(where: \.isNewline) { fail(id.line, "an event 'id' cannot hold a line break") }
                event.id = text
            }
            if let retry = item["retry"] { event.retry = integer(retry, "retry", range: 0...86_400_000) }
            if let delay = item["delay"] {
                event.delayMilliseconds = integer(delay, "delay", range: 0...Delay.maximumMilliseconds) ?? 0
            }
            events.append(event)
        }
        var isOpen = false
        if let keepOpen {
            if case .bool(let flag) = keepOpen.value {
                isOpen = flag
            } else {
                fail(keepOpen.line, "'keepOpen' must be true or false")
            }
        }
        return EventStreamScript(events: events, keepOpen: isOpen)
    }
}
