import Foundation
import Testing

@testable import EndpointRouter

/// What the streaming docs promise beyond parsing: a cold sequence, redirects, the middlewares that
/// leave streams alone, and the rules of reconnection. Each test fails if its sentence breaks.
@Suite("Streaming responses: the documented guarantees", .timeLimit(.minutes(1)))
struct ResponseStreamGuaranteeTests {
    static func endpoint(_ transport: any HTTPTransport, _ middlewares: [any HTTPMiddleware], _ timeout: TimeInterval) -> TestEndpoint {
        ResponseStreamTests.endpoint(transport, middlewares: middlewares, timeout: timeout)
    }

    @Test func nothingIsSentBeforeTheFirstElementAndEachIterationSendsAgain() async throws {
        let transport = ScriptedStreamTransport { _, _ in [.piece("data: x\n\n")] }
        let stream = Self.endpoint(transport, [], 5).events()
        var iterator = stream.makeAsyncIterator()
        try await Task.sleep(for: .milliseconds(50))
        #expect(transport.requests.isEmpty, "creating the sequence or its iterator sent a request")
        #expect(try await iterator.next()?.data == "x")
        #expect(transport.requests.count == 1)
        var again: [String] = []
        for try await event in stream { again.append(event.data) }
        #expect(again == ["x"])
        #expect(transport.requests.count == 2, "a second iteration is a second request")
    }

    @Test(arguments: [RequestMethod.get, .post], [301, 302, 303, 307, 308])
    func aStreamFollowsEveryRedirectStatusForEveryMethod(_ method: RequestMethod, _ status: Int) async throws {
        let inner = ScriptedStreamTransport { request, _ in
            request.url.path == "/moved" ? [.piece("data: moved\n\n")] : [.piece("data: not followed\n\n")]
        }
        let transport = RedirectsFirstRequest(inner: inner, status: status, location: "/moved")
        var endpoint = Self.endpoint(transport, [], 5)
        endpoint.method = method
        if method == .post { endpoint.body = .json(["prompt": "hi"]) }
        var events: [String] = []
        for try await event in endpoint.events() { events.append(event.data) }

        #expect(events == ["moved"])
        let followed = try #require(inner.requests.first)
        #expect(followed.url.path == "/moved")
        #expect(followed.headers["Accept"] == "text/event-stream")
        // RFC 9110 §15.4: 303 turns any method but HEAD into GET; 301 and 302 turn POST into GET
        // (what every client does); 307 and 308 keep the method and the body.
        let becomesGet = status == 303 || (method == .post && (status == 301 || status == 302))
        #expect(followed.method == (becomesGet ? .get : method))
        #expect((followed.body != nil) == (method == .post && !becomesGet))
        #expect(transport.redirects == 1)
    }

    @Test func cachingAndDeduplicationLeaveStreamsAlone() async throws {
        // Lines, not events: `events()` sends `Cache-Control: no-cache`, which bypasses a cache by itself.
        let transport = ScriptedStreamTransport(headers: ["Content-Type": "text/plain", "Cache-Control": "max-age=600"]) {
            _, number in [.piece("\(number)\n")]
        }
        let middlewares: [any HTTPMiddleware] = [
            CachingMiddleware(cache: ResponseCache(memoryBudget: 1 << 20)), DeduplicationMiddleware(sharing: InFlightRequests()),
        ]
        let endpoint = Self.endpoint(transport, middlewares, 5)
        // The same middlewares do cache an ordinary call of that response: without the streaming
        // exception, the streams below would be answered from the cache.
        _ = try await endpoint.request(type: Data.self).get()
        _ = try await endpoint.request(type: Data.self).get()
        #expect(transport.requests.count == 1)

        var first: [String] = []
        for try await line in endpoint.lines() { first.append(line) }
        async let second = Self.endpoint(transport, middlewares, 5).lines().collect(upTo: 10)
        async let third = Self.endpoint(transport, middlewares, 5).lines().collect(upTo: 10)
        let together = try await [second, third]
        #expect(first == ["2"])
        #expect(Set(together.flatMap { $0 }) == ["3", "4"], "each concurrent stream got its own exchange")
        #expect(transport.requests.count == 4)
    }

    @Test func aNonAcceptableStatusOnAReconnectionThrowsIt() async throws {
        let inner = ScriptedStreamTransport { _, _ in
            [.piece("id: 1\ndata: one\n\n"), .fail(.transport(URLError(.networkConnectionLost)))]
        }
        let transport = StatusByAttempt(inner: inner, statuses: [2: 500])
        var events: [String] = []
        do {
            for try await event in Self.endpoint(transport, [], 5).events(
                reconnect: .automatic(maxAttempts: 5, initialDelay: .milliseconds(1), maximumDelay: .milliseconds(5)))
            {
                events.append(event.data)
            }
            Issue.record("expected the 500 of the reconnection to throw")
        } catch {
            guard case .unacceptableStatusCode(let response) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(response.statusCode == 500)
        }
        #expect(events == ["one"])
        #expect(inner.requests.count == 1, "no reconnection after the 500")
    }

    @Test func reconnectionDelaysDoubleAfterEachFailureUpToTheCap() {
        let policy = ReconnectPolicy.automatic(maxAttempts: 10, initialDelay: .milliseconds(100), maximumDelay: .seconds(1))
        let waits = (1...6).map { policy.delay(attempt: $0, requested: nil) }
        #expect(waits == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        // The server's `retry` replaces the initial delay, never the cap.
        #expect(policy.delay(attempt: 1, requested: .milliseconds(30)) == .milliseconds(30))
        #expect(policy.delay(attempt: 3, requested: .milliseconds(30)) == .milliseconds(120))
        #expect(policy.delay(attempt: 1, requested: .seconds(3600)) == .seconds(1))
        // A huge attempt count neither overflows nor loops for long.
        #expect(policy.delay(attempt: .max, requested: nil) == .seconds(1))
        #expect(ReconnectPolicy(maxAttempts: -3, initialDelay: .seconds(-1), maximumDelay: .seconds(-1)).maxAttempts == 0)
    }

    @Test func reconnectionsWaitLongerAfterEachFailedAttempt() async throws {
        // Attempt 1 delivers an event then loses the connection; 2, 3 and 4 cannot connect; 5 works.
        let times = Locked<[ContinuousClock.Instant]>([])
        let transport = ScriptedStreamTransport { _, number in
            times.withLock { $0.append(.now) }
            switch number {
            case 1: return [.piece("retry: 20\nid: 1\ndata: one\n\n"), .fail(.transport(URLError(.networkConnectionLost)))]
            case 2, 3, 4: return [.fail(.transport(URLError(.cannotConnectToHost)))]
            default: return [.piece("data: two\n\n")]
            }
        }
        var events: [String] = []
        for try await event in Self.endpoint(transport, [], 10).events(
            reconnect: .automatic(maxAttempts: 5, maximumDelay: .seconds(1)))
        {
            events.append(event.data)
            if events.count == 2 { break }
        }
        #expect(events == ["one", "two"])
        let stamps = times.withLock { $0 }
        try #require(stamps.count == 5)
        let gaps = zip(stamps.dropFirst(), stamps).map { $0 - $1 }
        // 20, 40, 80 and 160 ms asked: without the doubling the later gaps would be about 20 ms. Lower
        // bounds only, so a slow machine cannot fail it.
        for (gap, asked) in zip(gaps, [20, 40, 80, 160]) { #expect(gap >= .milliseconds(asked), "waited \(gap), asked \(asked) ms") }
        #expect(transport.requests.last?.headers["Last-Event-ID"] == "1")
    }

    /// A POST stream (a chat completion) is not sent again on its own, whether its body ends or its
    /// connection is lost: the rule of retries (`RetryPolicy`, RFC 9110 §9.2.2) holds for reconnection.
    @Test(arguments: [RequestMethod.post, .patch], [false, true])
    func aNonIdempotentStreamIsNeverSentAgain(_ method: RequestMethod, _ connectionLost: Bool) async throws {
        let transport = ScriptedStreamTransport { _, _ in
            [.piece("data: answer\n\n")] + (connectionLost ? [.fail(.transport(URLError(.networkConnectionLost)))] : [])
        }
        var endpoint = Self.endpoint(transport, [], 5)
        endpoint.method = method
        endpoint.body = .json(["prompt": "hi"])
        var events: [String] = []
        var thrown: HTTPClientError?
        do {
            for try await event in endpoint.events(reconnect: .automatic(maxAttempts: 5, initialDelay: .milliseconds(5))) {
                events.append(event.data)
            }
        } catch {
            thrown = error
        }
        #expect(events == ["answer"])
        #expect(transport.requests.count == 1, "\(method) sent \(transport.requests.count) times")
        #expect(thrown == (connectionLost ? .transport(URLError(.networkConnectionLost)) : nil))
    }

    /// An endpoint that says its POST may be repeated (it carries an idempotency key) reconnects.
    @Test func aPOSTStreamTheEndpointMarksRetryableReconnects() async throws {
        let transport = ScriptedStreamTransport { _, number in [.piece("data: \(number)\n\n")] }
        var endpoint = MiddlewareEndpoint(host: "https://stream.example.com", endpoint: "events", transport: transport)
        endpoint.method = .post
        endpoint.body = .json(["prompt": "hi"])
        endpoint.options.retryable = true
        var events: [String] = []
        for try await event in endpoint.events(reconnect: .automatic(maxAttempts: 2, initialDelay: .milliseconds(5))) {
            events.append(event.data)
            if events.count == 3 { break }
        }
        #expect(events == ["1", "2", "3"])
        #expect(transport.requests.count == 3)
    }

    /// A server that answers 2xx and ends at once, again and again, is met with waits that double and
    /// then `maxAttempts`, not a loop: a head alone does not reset the count (20 POSTs in 2 s before).
    @Test func aStreamThatEndsAtOnceEveryTimeStopsAfterMaxAttemptsWithGrowingWaits() async throws {
        let times = Locked<[ContinuousClock.Instant]>([])
        let transport = ScriptedStreamTransport { _, _ in
            times.withLock { $0.append(.now) }
            return []
        }
        var events = 0
        let started = ContinuousClock.now
        for try await _ in Self.endpoint(transport, [], 10).events(
            reconnect: .automatic(maxAttempts: 3, initialDelay: .milliseconds(20), maximumDelay: .seconds(1)))
        {
            events += 1
        }
        #expect(events == 0)
        let stamps = times.withLock { $0 }
        #expect(stamps.count == 4, "the first request and 3 reconnections, then the end")
        let gaps = zip(stamps.dropFirst(), stamps).map { $0 - $1 }
        for (gap, asked) in zip(gaps, [20, 40, 80]) { #expect(gap >= .milliseconds(asked), "waited \(gap), asked \(asked) ms") }
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// Each connection that brings an event resets the count: a GET feed that delivers and closes goes
    /// on past `maxAttempts`, as an `EventSource` does.
    @Test func anEventResetsTheReconnectionCount() async throws {
        let transport = ScriptedStreamTransport { _, number in [.piece("id: \(number)\ndata: \(number)\n\n")] }
        var events: [String] = []
        for try await event in Self.endpoint(transport, [], 10).events(
            reconnect: .automatic(maxAttempts: 1, initialDelay: .milliseconds(5)))
        {
            events.append(event.data)
            if events.count == 4 { break }
        }
        #expect(events == ["1", "2", "3", "4"])
        #expect(transport.requests.last?.headers["Last-Event-ID"] == "3")
    }

    @Test func anEmptyIDStopsSendingLastEventID() async throws {
        let transport = ScriptedStreamTransport { _, number in
            switch number {
            case 1: [.piece("retry: 1\nid: 7\ndata: one\n\n"), .fail(.transport(URLError(.networkConnectionLost)))]
            case 2: [.piece("id\ndata: two\n\n"), .fail(.transport(URLError(.networkConnectionLost)))]
            default: [.piece("data: three\n\n")]
            }
        }
        var events: [ServerSentEvent] = []
        for try await event in Self.endpoint(transport, [], 5).events(reconnect: .automatic(maxAttempts: 3)) {
            events.append(event)
            if events.count == 3 { break }
        }
        #expect(events.map(\.data) == ["one", "two", "three"])
        #expect(events.map(\.id) == ["7", nil, nil])
        let sent = transport.requests.map { $0.headers["Last-Event-ID"] }
        #expect(sent == [nil, "7", nil], "the reset ID must not be resent from the previous reconnection")
    }

    @Test(arguments: ["a\u{01}b", "tab\tin", "del\u{7F}"])
    func anIDThatCannotBeAHeaderValueEndsTheStreamInsteadOfReplayingIt(_ id: String) async throws {
        let transport = ScriptedStreamTransport { _, number in
            number == 1
                ? [.piece("retry: 1\nid: \(id)\ndata: one\n\n"), .fail(.transport(URLError(.networkConnectionLost)))]
                : [.piece("data: again\n\n")]
        }
        var events: [String] = []
        do {
            for try await event in Self.endpoint(transport, [], 5).events(reconnect: .automatic(maxAttempts: 3)) {
                events.append(event.data)
                if events.count == 2 { break }
            }
            // A tab is a legal header value: that reconnection goes through, with the ID as sent.
            #expect(id.contains("\t"))
            #expect(transport.requests.last?.headers["Last-Event-ID"] == id)
        } catch {
            guard case .invalidHeader(let message) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(!id.contains("\t"))
            #expect(message.contains("server's last event ID"))
            #expect(!message.contains(id), "the message quotes the server's ID")
            #expect(transport.requests.count == 1, "it must not resume from the start")
        }
        #expect(events.first == "one")
    }

    @Test func invalidUTF8InALineBecomesTheReplacementCharacter() async throws {
        let transport = ScriptedStreamTransport { _, _ in
            // A lone continuation byte, a truncated 3-byte sequence split across two pieces, and an
            // overlong encoding of "/".
            [.raw([0x61, 0x80, 0x62, 0x0A, 0xE2, 0x82]), .raw([0x0A, 0xC0, 0xAF, 0x0A])]
        }
        var lines: [String] = []
        for try await line in Self.endpoint(transport, [], 5).lines() { lines.append(line) }
        #expect(lines == ["a\u{FFFD}b", "\u{FFFD}", "\u{FFFD}\u{FFFD}"])
    }
}

/// Answers the first request with a redirect (and a short body, as servers send), the others as
/// `inner` does.
final class RedirectsFirstRequest: HTTPTransport, Sendable {
    let inner: ScriptedStreamTransport
    let status: Int
    let location: String
    private let count = Locked(0)

    init(inner: ScriptedStreamTransport, status: Int, location: String) {
        self.inner = inner
        self.status = status
        self.location = location
    }

    var redirects: Int { count.withLock { min($0, 1) } }

    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        let first = count.withLock {
            $0 += 1
            return $0 == 1
        }
        guard first else { return try await inner.send(request, context: context, sink: sink) }
        let head = ResponseHead(
            statusCode: status, headers: ["Location": location, "Content-Type": "text/html"], url: request.url)
        try sink.receive(head)
        try sink.write(Data("<a href=\"\(location)\">moved</a>".utf8))
        return head
    }
}
