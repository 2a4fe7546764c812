import OrreryCore
import Testing

@testable import OrreryServer

/// Every kind of reply the pipeline gives, decided from request values with no port opened.
@Suite("Pipeline: reply kinds")
struct ReplyKindTests {
    static let files = [
        "plain.yaml": """
            - id: hello
              request: { method: GET, path: /hello }
              response: { body: hello }
            - request: { method: GET, path: /slow }
              response: { delay: 250, body: slow }
            """,
        "dynamic.yaml": """
            - request: { method: GET, path: "/users/{id}" }
              response:
                template: true
                headers: { X-User: "{{params.id}}" }
                json: { id: "{{params.id}}", q: "{{request.query.q}}" }
            - request: { method: GET, path: /reset }
              response: { fault: connectionReset }
            - request: { method: GET, path: /empty-response }
              response: { fault: emptyResponse }
            - request: { method: GET, path: /malformed }
              response: { fault: malformedResponse }
            - request: { method: GET, path: /silent }
              response: { fault: noResponse }
            - request: { method: GET, path: /truncated }
              response: { fault: truncatedBody, body: "0123456789abcdefghij" }
            - request: { method: GET, path: /throttled }
              response: { throttle: { bytesPerSecond: 2048 }, body: throttled }
            - request: { method: GET, path: /wait }
              response: { delay: { uniform: [100, 200] }, body: waited }
            """,
        "templates.yaml": """
        - request: { method: GET, path: "/cut/{id}" }
          response:
            template: true
            fault: truncatedBody
            body: "id={{params.id}}, q={{request.query.q}}"
        - request: { method: GET, path: "/slow-template/{id}" }
          response: { template: true, throttle: { bytesPerSecond: 1024 }, body: "id={{params.id}}" }
        """,
    ]

    static let hostMap = """
        { "configurations": [ {
            "canonical_host": "api.example.com", "canonical_protocol": "https",
            "prerelease_key": "QA", "release_key": "QA",
            "hosts": [ { "key": "QA", "host": "qa.api.example.com", "protocol": "https" }, { "key": "USER" } ] } ] }
        """

    @Test("a stub's prepared answer goes as it was prepared at load")
    func stubAnswer() throws {
        let harness = try PipelineHarness(files: Self.files)
        let decision = harness.decide("GET", "/hello")
        guard case .stub(let entry, let prepared) = decision.reply else { Issue.record("\(decision.reply)"); return }
        #expect(entry.stub.id == "hello")
        #expect(prepared.status == 200 && prepared.body.text == "hello" && prepared.dynamic == nil)
        // Sent as prepared at load: the very bytes encoded then.
        #expect(prepared.encoded(for: [:]).head.count == prepared.encoded.head.count)
        #expect(decision.session === harness.sessions.main)
    }

    @Test("a fixed delay and a drawn one travel with the answer; a throttle carries its rate")
    func delayAndThrottle() throws {
        let harness = try PipelineHarness(files: Self.files)
        guard case .stub(_, let slow) = harness.decide("GET", "/slow").reply,
            case .answer(let wait) = harness.decide("GET", "/wait").reply,
            case .answer(let throttled) = harness.decide("GET", "/throttled").reply
        else { Issue.record("not answers"); return }
        #expect(slow.delayMilliseconds == 250)
        #expect((100...200).contains(wait.delayMilliseconds) && wait.response.body.text == "waited")
        #expect(throttled.bytesPerSecond == 2048 && throttled.response.body.text == "throttled")
    }

    @Test("a template is rendered into the answer and what the journal keeps")
    func template() throws {
        let harness = try PipelineHarness(files: Self.files)
        // Sent and journaled as a prepared answer is: no answer object made for it.
        guard
            case .rendered(let entry, let encoded, let headers, let body, let delay) = harness.decide(
                "GET", "/users/7?q=red"
            ).reply
        else { Issue.record("not rendered"); return }
        let json = try JSONValue.parse(encoded.body.text)
        #expect(json["id"]?.stringValue == "7" && json["q"]?.stringValue == "red")
        #expect(entry.stub.request.url.pathTemplate?.source == "/users/{id}" && delay == 0 && encoded.status == 200)
        #expect(
            headers["X-User"] == "7" && String(decoding: encoded.head.bytes, as: UTF8.self).contains("X-User: 7\r\n"))
        #expect(body.text == encoded.body.text)
    }

    @Test("faults are values: what goes wrong, and the stub it is journaled under", arguments: [
        ("/reset", Fault.connectionReset), ("/empty-response", .emptyResponse), ("/malformed", .malformedResponse),
        ("/silent", .noResponse),
    ])
    func faults(path: String, expected: Fault) throws {
        let harness = try PipelineHarness(files: Self.files)
        guard case .fault(let fault, let delay, let outcome) = harness.decide("GET", path).reply else {
            Issue.record("\(path) is not a fault")
            return
        }
        #expect(fault == expected && delay == 0)
        guard case .stub = outcome else { Issue.record("not journaled as a stub's"); return }
    }

    @Test("truncatedBody is the whole head and half the body; the journal keeps what was sent")
    func truncated() throws {
        let harness = try PipelineHarness(files: Self.files)
        guard case .answer(let answer) = harness.decide("GET", "/truncated").reply else { Issue.record("no answer"); return }
        #expect(answer.truncatedBodyBytes == 10)
        #expect(answer.response.body.count == 20)
        #expect(answer.record?.body.text == "0123456789" && answer.record?.fault == "truncatedBody")
    }

    @Test("a template with a fault or a bandwidth limit is rendered into an answer that carries them")
    func templateWithFaultOrThrottle() throws {
        let harness = try PipelineHarness(files: Self.files)
        guard case .answer(let cut) = harness.decide("GET", "/cut/42?q=abcdef").reply,
            case .answer(let slow) = harness.decide("GET", "/slow-template/7").reply
        else { Issue.record("not answers"); return }
        #expect(cut.response.body.text == "id=42, q=abcdef" && cut.truncatedBodyBytes == 7)
        #expect(cut.record?.body.text == "id=42, " && cut.record?.fault == "truncatedBody")
        guard case .stub = cut.record?.outcome else { Issue.record("not journaled as the stub's"); return }
        #expect(slow.response.body.text == "id=7" && slow.bytesPerSecond == 1024 && slow.record?.body.text == "id=7")
    }

    @Test("a miss is a 404 naming the closest stub and what differed, journaled as unmatched")
    func miss() throws {
        let harness = try PipelineHarness(files: Self.files)
        guard case .answer(let answer) = harness.decide("POST", "/hello").reply else { Issue.record("no answer"); return }
        #expect(answer.response.status == 404)
        let json = try JSONValue.parse(answer.response.body.text)
        #expect(json["message"]?.stringValue?.contains("Closest: ") == true)
        let closest = json["closestStubs"]
        guard case .array(let stubs)? = closest, let first = stubs.first else { Issue.record("no closest stubs"); return }
        #expect(first["id"]?.stringValue == "hello")
        guard case .unmatched? = answer.record?.outcome else { Issue.record("not journaled as unmatched"); return }
    }

    @Test("with a host map a miss is forwarded to the environment's upstream")
    func forward() throws {
        let harness = try PipelineHarness(files: Self.files, hostMap: Self.hostMap)
        guard case .forward(let plan) = harness.decide("GET", "https://api.example.com/v1/things").reply else {
            Issue.record("not forwarded")
            return
        }
        #expect(plan.upstream.origin.contains("qa.api.example.com"))
        // A stub still wins over the upstream.
        #expect(harness.answer("/hello").text == "hello")
    }

    @Test("CONNECT: tunnelled with a host map, a 400 without a port, a 404 when nothing is forwarded")
    func connect() throws {
        let forwarding = try PipelineHarness(files: Self.files, hostMap: Self.hostMap)
        guard case .tunnel(let target) = forwarding.decide("CONNECT", "api.example.com:443").reply else {
            Issue.record("not tunnelled")
            return
        }
        #expect(target.host == "api.example.com" && target.port == 443)
        #expect(forwarding.answer("CONNECT", "api.example.com").status == 400)
        let closed = try PipelineHarness(files: Self.files)
        let refused = closed.answer("CONNECT", "api.example.com:443")
        #expect(refused.status == 404 && refused.text.contains("not tunnelled"))
    }

    @Test("the admin API answers as values, not journaled; its event stream is a stream reply")
    func admin() throws {
        let harness = try PipelineHarness(files: Self.files)
        let health = harness.decide("GET", "/__admin/health")
        guard case .answer(let answer) = health.reply else { Issue.record("no answer"); return }
        #expect(answer.response.status == 200 && answer.record == nil)
        #expect(try JSONValue.parse(answer.response.body.text)["stubs"]?.intValue == 12)
        guard case .stream = harness.decide("GET", "/__admin/requests/stream").reply else {
            Issue.record("the event stream is not a stream")
            return
        }
        #expect(harness.answer("GET", "/__admin/nothing").status == 404)
        #expect(harness.answer("PATCH", "/__admin/stubs").status == 405)
    }

    @Test("a session the daemon does not have is a 404 naming it, before any session was opened and after")
    func unknownSession() throws {
        let harness = try PipelineHarness(files: Self.files)
        let before = harness.decide("GET", "/hello", session: "nope")
        #expect(before.session == nil)
        let answer = harness.answer("/hello", session: "nope")
        #expect(answer.status == 404 && answer.text.contains("'nope'"))
        _ = try harness.openSession()
        #expect(harness.answer("/hello", session: "nope").status == 404)
        #expect(harness.answer("/__admin/health", session: "nope").status == 404)
    }

    @Test("the session header is found however it is spelled, and only a request that has it leaves the main session")
    func sessionHeaderSpelling() throws {
        let harness = try PipelineHarness(files: Self.files)
        let (id, _) = try harness.openSession()
        let lower = harness.decide("GET", "/hello", headers: ["x-orrery-session": id])
        #expect(lower.session?.id == id)
        #expect(harness.decide("GET", "/hello", headers: ["X-Orrery-Sessions": id]).session === harness.sessions.main)
    }

    @Test("inside an intercepted tunnel the request is the absolute https URL it is for, default port left out")
    func interceptedRequest() {
        let request = HTTPRequest(method: "GET", target: "/v1?x=1", headers: ["Host": "api.example.com"])
        let inside = PipelineRequest(
            request, scheme: "https", intercepted: InterceptedOrigin(authority: "api.example.com:443"))
        #expect(inside.head.target == "https://api.example.com/v1?x=1" && inside.head.isAbsoluteForm)
        let otherPort = PipelineRequest(
            request, scheme: "https", intercepted: InterceptedOrigin(authority: "api.example.com:8443"))
        #expect(otherPort.head.target == "https://api.example.com:8443/v1?x=1")
        #expect(PipelineRequest(request).head.target == "/v1?x=1")
        // Rewritten in place, the request reads as the same one parsed again from its absolute target.
        for (target, authority) in [
            ("/v1?x=1", "api.example.com:443"), ("/a%20b/c?q=%C3%A9&r", "h.example:8443"), ("/", "h.example:443"),
            ("/p#frag", "h.example:443"), ("/s?", "h.example:80"),
        ] {
            let head = PipelineRequest(
                HTTPRequest(method: "GET", target: target, headers: ["Host": "ignored"]),
                intercepted: InterceptedOrigin(authority: authority)
            ).head
            let parsed = HTTPRequest(method: "GET", target: head.target, headers: ["Host": "ignored"])
            #expect(
                head.host == parsed.host && head.path == parsed.path && head.rawQuery == parsed.rawQuery, "\(target)")
            #expect(
                head.query == parsed.query && head.originForm == parsed.originForm && head.isAbsoluteForm, "\(target)")
        }
    }
}
