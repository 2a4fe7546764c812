import Testing
@testable import OrreryCore

/// The connection as a value: bytes in, actions out. Inputs are fed whole, cut at every byte boundary, a byte at a time
/// and at pairs of cuts, and must lead to the same actions and the same state each time.
@Suite("The HTTP/1.1 connection")
struct HTTP1ConnectionStateMachineTests {
    private let get = "GET / HTTP/1.1\r\nHost: h\r\n\r\n"

    // MARK: - One request

    @Test("A request is dispatched with its context; the connection then waits for the next")
    func oneRequest() {
        let driver = runEveryWay("GET /a?b=1 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n")
        #expect(driver.events == [.dispatch("GET", "/a?b=1", ["Host: h", "Accept: */*"], "", ResponseContext())])
        #expect(driver.machine.state == .idle && driver.machine.timeout == .idle && driver.machine.isReading)
    }

    @Test("Each well-formed request is dispatched once, whole or in pieces", arguments: wellFormedRequests)
    func wellFormed(text: String) {
        let driver = runEveryWay(text, ending: true) { $0.connectTakesOver = false }
        #expect(driver.routes.count == 1 && !driver.events.contains(.reject(400)), "\(driver.events)")
        #expect(driver.events.last == .close)
    }

    @Test("Each request form is dispatched and keeps the connection", arguments: [
        ("GET /a HTTP/1.1\r\nHost: h\r\n\r\n", "GET /a"),
        ("GET http://api.example.com/a?b HTTP/1.1\r\nHost: api.example.com\r\n\r\n", "GET http://api.example.com/a?b"),
        ("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", "OPTIONS *"),
        ("HEAD /a HTTP/1.1\r\nHost: h\r\n\r\n", "HEAD /a"),
    ])
    func requestForms(text: String, route: String) {
        let twice = runEveryWay(text + text)
        #expect(twice.routes == [route, route])
        #expect(twice.machine.state == .idle)
        #expect(twice.events.first?.context?.isHead == route.hasPrefix("HEAD"))
    }

    @Test("A HEAD in any case is answered as HEAD, as the pipeline (which upper-cases methods) routes it")
    func headInAnyCase() throws {
        for method in ["HEAD", "head", "HEaD"] {
            let driver = runEveryWay("\(method) /a HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try #require(driver.events.first?.context).isHead, "\(method)")
            #expect(driver.routes == ["HEAD /a"])
        }
        #expect(runEveryWay("HEADER /a HTTP/1.1\r\nHost: h\r\n\r\n").events.first?.context?.isHead == false)
    }

    @Test("CONNECT hands the connection over with the bytes that followed the request, however they arrived")
    func connectTakeOver() {
        let connect = "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n"
        let tunnelled: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x05, 0x0D, 0x0A, 0x00, 0xFF] + Array("GET / HTTP/1.1\r\n".utf8)
        let bytes = Array(connect.utf8) + tunnelled
        for cuts in cutsOf(count: bytes.count) {
            let driver = runConnection(bytes, cuts: cuts) {
                $0.connectTakesOver = false
                $0.answersAtOnce = false
            }
            var taken = driver
            #expect(taken.events.compactMap(\.route) == ["CONNECT api.example.com:443"])
            #expect(taken.machine.takeOver() == tunnelled, "cut at \(cuts.prefix(8))")
            #expect(taken.machine.state == .closed && !taken.machine.isReading)
        }
        let atOnce = runConnection(bytes)
        #expect(atOnce.events.last == .takenOver(tunnelled))
        #expect(runConnection(Array(connect.utf8)).events.last == .takenOver([]))
    }

    // MARK: - Persistence

    @Test("Whether the connection is kept after the answer", arguments: [
        ("GET / HTTP/1.1\r\nHost: h\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false),
        ("GET http://h/ HTTP/1.1\r\nHost: h\r\nProxy-Connection: close\r\n\r\n", false),
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
        ("GET http://h/ HTTP/1.0\r\nProxy-Connection: keep-alive\r\n\r\n", true),
        ("POST / HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false),
    ])
    func persistence(text: String, isKept: Bool) throws {
        let driver = runEveryWay(text + get)
        let context = try #require(driver.events.first?.context)
        #expect(context.isKeepAlive == isKept)
        if isKept {
            #expect(driver.routes.count == 2 && driver.machine.state == .idle)
        } else {
            // The request after it is never read.
            #expect(driver.routes.count == 1 && driver.events.last == .close && driver.machine.state == .closing)
        }
    }

    @Test("An HTTP/1.0 request's context says so, for the answer's Connection field")
    func http10Context() throws {
        let driver = runEveryWay("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(try #require(driver.events.first?.context) == ResponseContext(isHead: false, minorVersion: 0, isKeepAlive: true))
    }

    @Test("An answer that says Connection: close ends a kept connection")
    func answerCloses() {
        let driver = runEveryWay("GET /close HTTP/1.1\r\nHost: h\r\n\r\n" + get) { $0.answerCloses = { $0 == "/close" } }
        #expect(driver.routes == ["GET /close"] && driver.events.last == .close && driver.machine.state == .closing)
    }

    @Test("closesAfterResponse tells the answer to say Connection: close")
    func closesAfterResponse() {
        var waiting = ConnectionDriver()
        waiting.answersAtOnce = false
        waiting.feed(get)
        #expect(!waiting.machine.closesAfterResponse(closesConnection: false))
        #expect(waiting.machine.closesAfterResponse(closesConnection: true))
        var closing = ConnectionDriver()
        closing.answersAtOnce = false
        closing.feed("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        #expect(closing.machine.closesAfterResponse(closesConnection: false))
    }

    // MARK: - Pipelining

    @Test("Pipelined requests are answered one at a time, in order")
    func pipelined() {
        let requests = (1...4).map { "GET /\($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined()
            + "POST /5 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
            + "POST /6 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n"
            + "\r\nGET /7 HTTP/1.1\r\nHost: h\r\n\r\n"
        let atOnce = runEveryWay(requests)
        #expect(atOnce.routes == (1...7).map { "\($0 == 5 || $0 == 6 ? "POST" : "GET") /\($0)" })

        // Answered later: nothing more is dispatched until the answer is queued.
        var driver = ConnectionDriver()
        driver.answersAtOnce = false
        driver.feed(requests)
        for count in 1...7 {
            #expect(driver.routes.count == count)
            #expect(driver.machine.state == .waitingForResponse && driver.machine.timeout == nil && driver.machine.isBusy)
            driver.answer()
        }
        #expect(driver.machine.state == .idle && driver.routes.count == 7)
        if case .dispatch(_, _, _, let body, _) = driver.events[5] { #expect(body == "de") }
    }

    @Test("A pipelined request after one that closes is never dispatched")
    func pipelinedAfterClose() {
        let driver = runEveryWay("GET /1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(driver.routes == ["GET /1"] && driver.events.last == .close)
    }

    @Test("Reading pauses while too much waits behind the request being answered, and resumes after the answer")
    func backpressure() {
        var driver = ConnectionDriver(configuration: .init(maximumBufferedBytes: 64))
        driver.answersAtOnce = false
        driver.feed(get)
        driver.feed(String(repeating: get, count: 2))
        #expect(!driver.isPaused && driver.machine.isReading)
        driver.feed(String(repeating: get, count: 2))
        #expect(driver.isPaused && !driver.machine.isReading)
        driver.answer()
        // The next request is taken from the buffer; reading resumes once what remains is under the limit.
        #expect(driver.routes.count == 2 && !driver.machine.isReading)
        driver.answer()
        #expect(driver.routes.count == 3 && driver.machine.isReading)
        for _ in 0..<2 { driver.answer() }
        #expect(driver.routes.count == 5 && driver.machine.state == .waitingForResponse)
        driver.answer()
        #expect(driver.machine.state == .idle)
    }

    @Test("A large answer being written holds the next request until it drains")
    func backlog() {
        var driver = ConnectionDriver()
        driver.answersAtOnce = false
        driver.feed(get + get)
        driver.answer(isBacklogged: true)
        #expect(driver.machine.state == .writing && driver.machine.timeout == .send && driver.routes.count == 1)
        #expect(driver.machine.isBusy)
        driver.outputDrained()
        #expect(driver.routes.count == 2 && driver.machine.state == .waitingForResponse)
        driver.answer(isBacklogged: true)
        driver.outputDrained()
        #expect(driver.machine.state == .idle)
    }

    @Test("Output waiting while the answer is still made (a stream) runs the send timeout, which closes")
    func streamedOutputWaiting() {
        var driver = ConnectionDriver()
        driver.answersAtOnce = false
        driver.feed(get + get)
        // A stream whose output the socket takes as it comes: the pipeline's deadline, none of the connection's.
        #expect(driver.machine.timeout == nil)
        driver.machine.outputWaiting()
        #expect(driver.machine.state == .waitingForResponse && driver.machine.timeout == .send)
        // The client caught up: no deadline again, and the request behind still waits for the answer's end.
        driver.outputDrained()
        #expect(driver.machine.timeout == nil && driver.routes.count == 1)
        driver.machine.outputWaiting()
        driver.timeOut()
        #expect(driver.events.last == .close && driver.machine.state == .closed && driver.routes.count == 1)

        // Output waiting is the answer's: the next request does not inherit it.
        var finished = ConnectionDriver()
        finished.answersAtOnce = false
        finished.feed(get + get)
        finished.machine.outputWaiting()
        finished.answer()
        #expect(finished.machine.state == .waitingForResponse && finished.machine.timeout == nil)
        // Outside an answer being made it means nothing: idle keeps its own deadline.
        finished.answer()
        finished.machine.outputWaiting()
        #expect(finished.machine.state == .idle && finished.machine.timeout == .idle)
    }

    // MARK: - Empty lines

    @Test("Empty lines before a request, and between pipelined ones, are skipped")
    func emptyLines() {
        let driver = runEveryWay("\r\n\n\r\n" + get + "\r\n" + get + "\r\n\r\n")
        #expect(driver.routes == ["GET /", "GET /"])
    }

    // MARK: - Bodies

    @Test("Content-Length and chunked bodies reach the pipeline whole")
    func bodies() {
        let driver = runEveryWay(
            "PUT /a HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world"
                + "PATCH /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 1\r\n\r\n")
        #expect(
            driver.events == [
                .dispatch("PUT", "/a", ["Host: h", "Content-Length: 11"], "hello world", ResponseContext()),
                .dispatch("PATCH", "/b", ["Host: h", "Transfer-Encoding: chunked"], "hello world", ResponseContext()),
            ])
        var waiting = ConnectionDriver()
        waiting.feed("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nab")
        #expect(waiting.machine.state == .readingBody && waiting.machine.timeout == .body && waiting.machine.isBusy)
    }

    // MARK: - Expect

    @Test("Expect: 100-continue gets 100 Continue before the body is read")
    func continueBeforeBody() {
        let driver = runEveryWay("POST /a HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 5\r\n\r\nhello" + get)
        #expect(driver.events.count == 3)
        #expect(driver.events.first == .sendContinue)
        #expect(driver.routes == ["POST /a", "GET /"])

        var waiting = ConnectionDriver()
        waiting.feed("POST /a HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        #expect(waiting.events == [.sendContinue] && waiting.machine.state == .readingBody)
        waiting.feed("hello")
        #expect(waiting.routes == ["POST /a"])

        let chunked = runEveryWay("POST /a HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n")
        #expect(chunked.events.first == .sendContinue && chunked.routes == ["POST /a"])
    }

    @Test("Expect: 100-continue on a request without a body, or on HTTP/1.0, sends no 100")
    func noContinue() {
        #expect(runEveryWay("GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n\r\n").events.first?.route == "GET /")
        #expect(runEveryWay("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n").events.count == 1)
        let old = runEveryWay("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nab")
        #expect(old.events.count == 2 && old.routes == ["POST /"] && old.events.last == .close)
    }

    @Test("A declared body over the limit is refused at once with 413, without 100 Continue")
    func earlyTooLarge() {
        let driver = runEveryWay(
            "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 17\r\n\r\n", configuration: .init(limits: smallLimits))
        #expect(driver.events == [.reject(413)] && driver.machine.state == .closing)
    }

    @Test("Another expectation is 417 on HTTP/1.1 and ignored on HTTP/1.0")
    func otherExpectation() {
        for text in [
            "POST / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\nab",
            "GET / HTTP/1.1\r\nHost: h\r\nExpect: x\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue, x\r\nContent-Length: 2\r\n\r\nab",
        ] {
            let driver = runEveryWay(text + get)
            #expect(driver.events == [.reject(417)], "\(text)")
        }
        let old = runEveryWay("POST / HTTP/1.0\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\nab")
        #expect(old.routes == ["POST /"])
    }

    // MARK: - Refusals

    @Test("Malformed requests are answered 400 and never dispatched, even behind a good one", arguments: malformedRequests)
    func malformed(problem: String, text: String) {
        let alone = runEveryWay(text + get)
        #expect(alone.events == [.reject(400)], "\(problem)")
        #expect(alone.machine.state == .closing && alone.machine.timeout == nil)
        let behind = runEveryWay(get + text + get)
        #expect(behind.events.count == 2 && behind.routes == ["GET /"] && behind.events.last == .reject(400), "\(problem)")
    }

    @Test("A transfer coding before chunked is 501")
    func unsupportedCoding() {
        let driver = runEveryWay("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + get)
        #expect(driver.events == [.reject(501)])
    }

    @Test("Limits: 414 for the target, 431 for the head, 413 for a body of either framing", arguments: [
        ("GET /\(String(repeating: "a", count: 40)) HTTP/1.1\r\nHost: h\r\n\r\n", 414),
        ("GET /\(String(repeating: "a", count: 200))", 414),
        ("GET / HTTP/1.1\r\nHost: h\r\nX-A: \(String(repeating: "v", count: 120))\r\n\r\n", 431),
        ("GET / HTTP/1.1\r\nHost: h\r\nX-A: \(String(repeating: "v", count: 200))", 431),
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 17\r\n\r\n", 413),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n\(String(repeating: "b", count: 16))\r\n1\r\nx\r\n0\r\n\r\n", 413),
    ])
    func limits(text: String, status: Int) {
        let driver = runEveryWay(get + text, configuration: .init(limits: smallLimits))
        #expect(driver.events == [.dispatch("GET", "/", ["Host: h"], "", ResponseContext()), .reject(status)])
    }

    @Test("After a refusal the connection reads and drops what still comes, and closes when the client does")
    func afterRefusal() {
        var driver = ConnectionDriver()
        driver.feed("GET / HTTP/9.9\r\n\r\n")
        #expect(driver.events == [.reject(400)])
        let action = Array(get.utf8).withUnsafeBytes { driver.machine.received($0) }
        guard case .readMore = action else {
            Issue.record("bytes after a refusal: \(action)")
            return
        }
        #expect(driver.machine.isReading && driver.machine.state == .closing)
        guard case .close = driver.machine.receivedEnd() else {
            Issue.record("the end of input after a refusal did not close")
            return
        }
        #expect(driver.machine.state == .closed && !driver.machine.isReading)
    }

    // MARK: - Timeouts

    @Test("Which deadline applies in each state")
    func deadlines() {
        var driver = ConnectionDriver()
        driver.answersAtOnce = false
        #expect(driver.machine.timeout == .idle)
        driver.feed("\r\n")
        driver.feed("GET / HT")
        #expect(driver.machine.timeout == .head && driver.machine.state == .readingHead && !driver.machine.isBusy)
        driver.feed("TP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n")
        #expect(driver.machine.timeout == .body)
        driver.feed("ab")
        #expect(driver.machine.timeout == nil)
        driver.answer(isBacklogged: true)
        #expect(driver.machine.timeout == .send)
        driver.outputDrained()
        #expect(driver.machine.timeout == .idle)
    }

    @Test("A head or body that does not arrive in time is 408; an idle connection just closes")
    func timeouts() {
        var idle = runConnection(Array(get.utf8))
        idle.timeOut()
        #expect(idle.events.last == .close && idle.machine.state == .closed)

        var fresh = ConnectionDriver()
        fresh.timeOut()
        #expect(fresh.events == [.close])

        var head = runConnection(Array("GET / HTTP/1.1\r\nHo".utf8))
        head.timeOut()
        #expect(head.events == [.reject(408)] && head.machine.state == .closing)

        var body = runConnection(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nab".utf8))
        body.timeOut()
        #expect(body.events == [.reject(408)])

        var chunked = runConnection(Array("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab".utf8))
        chunked.timeOut()
        #expect(chunked.events == [.reject(408)])

        // While the pipeline answers, the deadline is the pipeline's, not the connection's.
        var waiting = ConnectionDriver()
        waiting.answersAtOnce = false
        waiting.feed(get)
        waiting.timeOut()
        #expect(waiting.events.count == 1 && waiting.machine.state == .waitingForResponse)

        // A client that does not read a large answer.
        var writing = ConnectionDriver()
        writing.answersAtOnce = false
        writing.feed(get)
        writing.answer(isBacklogged: true)
        writing.timeOut()
        #expect(writing.events.last == .close && writing.machine.state == .closed)
    }

    // MARK: - The end of input

    @Test("The end of input in each state", arguments: [
        // Between requests, and before any.
        ("", [ConnectionEvent.close]),
        // In a head: the request is cut short, there is no one to answer.
        ("GET / HTTP/1.1\r\nHo", [.close]),
        ("GET / HTTP/1.1\r\nHost: h\r\n", [.close]),
        ("\r\n", [.close]),
        // In a body of either framing.
        ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nab", [.close]),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", [.close]),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", [.close]),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", [.close]),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n", [.close]),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n", [.close]),
        // In the middle of a chunk line or a trailer line.
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5", [.close]),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r", [.close]),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r", [.close]),
        ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T", [.close]),
        ("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n", [.sendContinue, .close]),
    ])
    func endOfInput(text: String, events: [ConnectionEvent]) {
        let driver = runEveryWay(text, ending: true)
        #expect(driver.events == events)
        #expect(driver.machine.state == .closed && !driver.machine.isReading)
    }

    @Test("A client that half-closes after its request still gets the answer, then the connection closes")
    func halfClose() {
        let atOnce = runEveryWay(get, ending: true)
        #expect(atOnce.routes == ["GET /"] && atOnce.events.last == .close)

        var driver = ConnectionDriver()
        driver.answersAtOnce = false
        driver.feed(get)
        driver.end()
        #expect(driver.isPaused && !driver.machine.isReading && driver.events.count == 1)
        // The answer is sent with Connection: close.
        #expect(driver.machine.closesAfterResponse(closesConnection: false))
        driver.answer()
        #expect(driver.events.last == .close && driver.machine.state == .closing)
    }

    @Test("Pipelined requests that all arrived before the end of input are all answered when answers come at once")
    func pipelinedThenEnd() {
        let driver = runEveryWay(get + get + "GET /3 HTTP/1.1\r\nHost: h\r\n\r\n", ending: true)
        #expect(driver.routes == ["GET /", "GET /", "GET /3"] && driver.events.last == .close)
    }

    // MARK: - Stopping

    @Test("A stopping server closes an idle connection now and a busy one after its answer")
    func shutdown() {
        var idle = ConnectionDriver()
        idle.process(idle.machine.beginShutdown())
        #expect(idle.events == [.close] && idle.machine.state == .closed)

        var busy = ConnectionDriver()
        busy.answersAtOnce = false
        busy.feed(get + get)
        busy.process(busy.machine.beginShutdown())
        #expect(busy.events.count == 1 && busy.machine.closesAfterResponse(closesConnection: false))
        busy.answer()
        #expect(busy.routes.count == 1 && busy.events.last == .close)

        var reading = ConnectionDriver()
        reading.feed("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\na")
        reading.process(reading.machine.beginShutdown())
        reading.feed("b")
        #expect(reading.routes == ["POST /"] && reading.events.last == .close)
    }
}
