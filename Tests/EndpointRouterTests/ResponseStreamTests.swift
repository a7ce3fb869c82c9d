import Foundation
import Testing

@testable import EndpointRouter

/// A transport that plays a script of pieces into the sink, the way a pulling transport does: it
/// waits for demand before each piece (unless told not to), counts what it produced, and notes
/// whether its exchange ended by cancellation.
final class ScriptedStreamTransport: HTTPTransport, @unchecked Sendable {
    enum Step: Sendable {
        case piece(String)
        /// Bytes that need not be UTF-8.
        case raw([UInt8])
        case pause(Duration)
        case fail(HTTPClientError)
    }

    let status: Int
    let headers: HeaderFields
    let steps: @Sendable (OutgoingRequest, Int) -> [Step]
    /// After the script: keep producing `endlessPiece` for ever.
    let endlessPiece: String?
    let waitsForDemand: Bool
    private let counters = Locked((exchanges: 0, produced: 0, stopped: 0, active: 0, requests: [OutgoingRequest]()))

    init(
        status: Int = 200, headers: [String: String] = ["Content-Type": "text/event-stream"], endlessPiece: String? = nil,
        waitsForDemand: Bool = true, steps: @escaping @Sendable (OutgoingRequest, Int) -> [Step]
    ) {
        self.status = status
        self.headers = HeaderFields(headers)
        self.endlessPiece = endlessPiece
        self.waitsForDemand = waitsForDemand
        self.steps = steps
    }

    var produced: Int { counters.withLock { $0.produced } }
    /// Exchanges the stream stopped: their task was cancelled, or the sink they wrote to was closed.
    var stopped: Int { counters.withLock { $0.stopped } }
    var requests: [OutgoingRequest] { counters.withLock { $0.requests } }
    /// Exchanges still running: one left after every call ended is a stream nobody will ever read.
    var active: Int { counters.withLock { $0.active } }

    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        defer { counters.withLock { $0.active -= 1 } }
        let number = counters.withLock {
            $0.active += 1
            $0.exchanges += 1
            $0.requests.append(request)
            return $0.exchanges
        }
        do throws(HTTPClientError) {
            let head = ResponseHead(statusCode: status, headers: headers, url: request.url)
            let script = steps(request, number)
            // A script that starts with a failure fails the exchange before its head: a connection that
            // could not be made. Pauses before the first piece delay the head: a slow server.
            if case .fail(let error) = script.first { throw error }
            var headSent = false
            for step in script {
                switch step {
                case .piece, .raw:
                    if !headSent { try sink.receive(head) }
                    headSent = true
                case .pause, .fail: break
                }
                switch step {
                case .piece(let text): try await deliver(Data(text.utf8), into: sink)
                case .raw(let bytes): try await deliver(Data(bytes), into: sink)
                case .pause(let duration):
                    do { try await Task.sleep(for: duration) } catch { throw HTTPClientError.cancelled }
                case .fail(let error): throw error
                }
            }
            if !headSent { try sink.receive(head) }
            while let endlessPiece {
                try await deliver(Data(endlessPiece.utf8), into: sink)
                await Task.yield()
            }
            return head
        } catch {
            // The stream stops an exchange by closing the sink and cancelling the task, in that order:
            // a transport between the two sees the closed sink's error, not the cancellation (ASan's
            // timing caught one there), and it was stopped all the same.
            let sinkEnded = (sink as? StreamBodySink).map { (try? $0.hasRoom()) == nil } ?? false
            if error == .cancelled || Task.isCancelled || sinkEnded { counters.withLock { $0.stopped += 1 } }
            throw error
        }
    }

    private func deliver(_ data: Data, into sink: any ResponseBodySink) async throws(HTTPClientError) {
        if waitsForDemand { try await sink.waitForDemand() }
        if Task.isCancelled { throw .cancelled }
        counters.withLock { $0.produced += data.count }
        try sink.write(data)
    }
}

@Suite("Streaming responses: events, lines, JSON lines and bytes", .timeLimit(.minutes(1)))
struct ResponseStreamTests {
    // 30 s, not 5: no test here waits for this deadline, and in a plain `swift test` the throughput
    // suites beside these kept scripted streams waiting past 5 s on a loaded 2-core machine.
    static func endpoint(
        _ transport: any HTTPTransport, middlewares: [any HTTPMiddleware] = [], timeout: TimeInterval? = 30
    ) -> TestEndpoint {
        TestEndpoint(
            host: "https://stream.example.com", endpoint: "events", timeout: timeout, transport: transport, middlewares: middlewares)
    }

    @Test func eventsArriveParsedInOrderWithTheSSERequestHeaders() async throws {
        let transport = ScriptedStreamTransport { _, _ in
            [
                .piece("event: greeting\ndata: hel"), .piece("lo\ndata: world\nid: 1\n\n: comment\n\ndata: second\n\n"),
                .piece("data: dropped"),
            ]
        }
        var events: [ServerSentEvent] = []
        for try await event in Self.endpoint(transport).events() { events.append(event) }
        #expect(
            events == [
                ServerSentEvent(event: "greeting", data: "hello\nworld", id: "1"), ServerSentEvent(data: "second", id: "1"),
            ])
        let sent = try #require(transport.requests.first)
        #expect(sent.headers["Accept"] == "text/event-stream")
        #expect(sent.headers["Cache-Control"] == "no-cache")
    }

    @Test func anUnacceptableStatusThrowsBeforeTheFirstElementWithABoundedPreview() async throws {
        let transport = ScriptedStreamTransport(status: 503, endlessPiece: String(repeating: "e", count: 4096)) { _, _ in
            [.piece("{\"error\":\"busy\"}")]
        }
        var received = 0
        do {
            for try await _ in Self.endpoint(transport).lines() { received += 1 }
            Issue.record("expected a failure")
        } catch {
            guard case .unacceptableStatusCode(let response) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(response.statusCode == 503)
            #expect(response.data.starts(with: Data("{\"error\":\"busy\"}".utf8)))
            #expect(response.data.count == StreamBodySink.previewLimit)
        }
        #expect(received == 0)
        // The endless error body was closed after the preview: the transport was stopped.
        try await waitUntil { transport.stopped == 1 }
    }

    @Test func linesAndJSONLinesSplitOnLFAndCRLF() async throws {
        let transport = ScriptedStreamTransport(headers: [:]) { _, _ in
            [.piece("{\"id\":1}\r\n\n{\"id\""), .piece(":2}\r"), .piece("\n{\"id\":3}")]
        }
        var lines: [String] = []
        for try await line in Self.endpoint(transport).lines() { lines.append(line) }
        #expect(lines == ["{\"id\":1}", "", "{\"id\":2}", "{\"id\":3}"])

        struct Row: Decodable, Equatable, Sendable { let id: Int }
        var rows: [Row] = []
        for try await row in Self.endpoint(transport).jsonLines(of: Row.self) { rows.append(row) }
        #expect(rows == [Row(id: 1), Row(id: 2), Row(id: 3)])
    }

    @Test func aJSONLineThatDoesNotDecodeNamesItsNumberNeverItsContent() async throws {
        let transport = ScriptedStreamTransport(headers: [:]) { _, _ in
            [.piece("{\"id\":1}\n\n{\"id\":\"secret-token-value\"}\n{\"id\":4}\n")]
        }
        struct Row: Decodable, Sendable { let id: Int }
        var rows = 0
        do {
            for try await _ in Self.endpoint(transport).jsonLines(of: Row.self) { rows += 1 }
            Issue.record("expected a decoding failure")
        } catch {
            guard case .decodingFailed(_, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("line 3"))
            #expect(reason.contains("type mismatch at 'id': expected Int"), "\(reason)")
            #expect(!reason.contains("secret-token-value"))
            #expect(!error.localizedDescription.contains("secret-token-value"))
        }
        #expect(rows == 1)
    }

    /// A dictionary key is a line's content too (`{"sk_live_…": "x"}` as `[String: Int]`).
    @Test func aJSONLineErrorNeverQuotesADictionaryKey() async throws {
        let transport = ScriptedStreamTransport(headers: [:]) { _, _ in [.piece("{\"a\":1}\n{\"sk_live_SECRET\":\"x\"}\n")] }
        do {
            for try await _ in Self.endpoint(transport).jsonLines(of: [String: Int].self) {}
            Issue.record("expected a decoding failure")
        } catch {
            guard case .decodingFailed(_, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("line 2") && reason.contains("'[<key>]'"), "\(reason)")
            #expect(!reason.contains("SECRET") && !error.localizedDescription.contains("SECRET"), "\(reason)")
        }
    }

    @Test func aSlowConsumerHoldsAPullingTransportToTheBuffer() async throws {
        let transport = ScriptedStreamTransport(endlessPiece: String(repeating: "x", count: 16 * 1024)) { _, _ in [] }
        let limits = StreamLimits(bufferSize: 256 * 1024)
        var taken = 0
        for try await piece in Self.endpoint(transport).bytes(limits: limits) {
            taken += piece.count
            try await Task.sleep(for: .milliseconds(2))
            if taken >= 2 * 1024 * 1024 { break }
        }
        // Produced at most what was taken plus the buffer and one piece in hand.
        #expect(transport.produced <= taken + 256 * 1024 + 2 * 16 * 1024)
        try await waitUntil { transport.stopped == 1 }
    }

    @Test func aPushingTransportThatOutrunsTheConsumerFailsInsteadOfGrowing() async throws {
        let transport = ScriptedStreamTransport(endlessPiece: String(repeating: "x", count: 16 * 1024), waitsForDemand: false) { _, _ in []
        }
        let limits = StreamLimits(bufferSize: 128 * 1024)
        var taken = 0
        do {
            for try await piece in Self.endpoint(transport).bytes(limits: limits) {
                taken += piece.count
                try await Task.sleep(for: .milliseconds(50))
            }
            Issue.record("expected .responseTooLarge")
        } catch let error as HTTPClientError {
            #expect(error == .responseTooLarge(limit: 128 * 1024))
        }
        #expect(transport.produced <= taken + 128 * 1024 + 16 * 1024 * 2)
    }

    @Test func leavingTheLoopEarlyCancelsTheExchange() async throws {
        let transport = ScriptedStreamTransport(endlessPiece: "data: tick\n\n") { _, _ in [] }
        var count = 0
        for try await _ in Self.endpoint(transport).events() {
            count += 1
            if count == 3 { break }
        }
        #expect(count == 3)
        try await waitUntil { transport.stopped == 1 }
    }

    @Test func anOversizedEventEndsTheStreamWithResponseTooLarge() async throws {
        let transport = ScriptedStreamTransport(endlessPiece: "data: " + String(repeating: "z", count: 8 * 1024) + "\n") { _, _ in
            [.piece("data: small\n\n")]
        }
        var events = 0
        do {
            for try await _ in Self.endpoint(transport).events(limits: StreamLimits(maxElementSize: 64 * 1024)) { events += 1 }
            Issue.record("expected .responseTooLarge")
        } catch {
            #expect(error == .responseTooLarge(limit: 64 * 1024))
        }
        #expect(events == 1)
        try await waitUntil { transport.stopped == 1 }
    }

    @Test func middlewaresSeeTheHeadAndMetricsReportOnceWhenTheStreamEnds() async throws {
        let transport = ScriptedStreamTransport { _, _ in (1...5).map { .piece("id: \($0)\ndata: \($0)\n\n") } }
        let reports = Locked<[CallMetrics]>([])
        let metrics = CallMetricsMiddleware { metrics in reports.withLock { $0.append(metrics) } }
        var events = 0
        for try await _ in Self.endpoint(transport, middlewares: [metrics]).events() { events += 1 }
        #expect(events == 5)
        let reported = reports.withLock { $0 }
        #expect(reported.count == 1)
        #expect(reported.first?.elements == 5)
        #expect(reported.first?.statusCode == 200)
        #expect(reported.first?.error == nil)
        #expect(reported.first?.bytesReceived == Int64((1...5).map { "id: \($0)\ndata: \($0)\n\n".utf8.count }.reduce(0, +)))
    }

    @Test func aRetryHappensOnTheHeadBeforeAnyElement() async throws {
        let transport = ScriptedStreamTransport { _, number in
            number == 1 ? [.fail(.transport(URLError(.networkConnectionLost)))] : [.piece("data: after retry\n\n")]
        }
        var events: [String] = []
        for try await event in Self.endpoint(transport, middlewares: [RetryMiddleware()]).events() { events.append(event.data) }
        #expect(events == ["after retry"])
    }

    @Test func reconnectionResumesWithLastEventIDAndStopsOn204() async throws {
        let transport = ScriptedStreamTransport { request, number in
            switch number {
            case 1: [.piece("id: 1\ndata: one\n\nretry: 10\n\nid: 2\ndata: two\n\n"), .fail(.transport(URLError(.networkConnectionLost)))]
            case 2: [.piece("id: 3\ndata: three\n\n")]
            default: []
            }
        }
        var events: [String] = []
        for try await event in Self.endpoint(transport).events(reconnect: .automatic(maxAttempts: 3, maximumDelay: .milliseconds(50))) {
            events.append(event.data)
            if events.count == 3 { break }
        }
        #expect(events == ["one", "two", "three"])
        #expect(transport.requests.count == 2)
        #expect(transport.requests.last?.headers["Last-Event-ID"] == "2")
    }

    @Test func aStatusOf204StopsReconnection() async throws {
        let transport = ScriptedStreamTransport(status: 204) { _, _ in [] }
        var events = 0
        for try await _ in Self.endpoint(transport).events(reconnect: .automatic(maxAttempts: 3, maximumDelay: .milliseconds(10))) {
            events += 1
        }
        #expect(events == 0)
        #expect(transport.requests.count == 1)
    }

    @Test func aDeadlineRacingTheHeadNeverLeavesAStreamRunning() async throws {
        // Heads arrive after 0–15 ms, deadlines fall after 1–15 ms: every instant of the head phase
        // is cut somewhere, including just after an acceptable head was offered.
        let transport = ScriptedStreamTransport(endlessPiece: "data: x\n\n") { _, number in
            [.pause(.microseconds((number * 7919) % 15_000))]
        }
        var outcomes: [String: Int] = [:]
        for index in 0..<300 {
            let endpoint = TestEndpoint(
                host: "https://stream.example.com", endpoint: "events", timeout: Double(1 + index % 15) / 1000, transport: transport)
            var iterator = endpoint.events().makeAsyncIterator()
            do {
                _ = try await iterator.next()
                outcomes["event", default: 0] += 1
            } catch {
                outcomes[error.caseName, default: 0] += 1
            }
        }
        print("deadline racing the head, 300 calls: \(outcomes)")
        #expect(outcomes.keys.allSatisfy { ["event", "timedOut"].contains($0) })
        try await waitUntil { transport.active == 0 }
    }

    @Test func loggingInsideARetryLogsEachAttemptAndTheStreamEndOnce() async throws {
        let transport = ScriptedStreamTransport { _, _ in [.piece("data: a\n\ndata: b\n\n")] }
        let statusByAttempt = StatusByAttempt(inner: transport, statuses: [1: 503])
        let lines = Locked<[String]>([])
        let logging = LoggingMiddleware(sink: LogSink { _, message, _ in lines.withLock { $0.append(message) } })
        let endpoint = Self.endpoint(statusByAttempt, middlewares: [RetryMiddleware(), logging])
        var events = 0
        for try await _ in endpoint.events() { events += 1 }
        #expect(events == 2)
        let logged = lines.withLock { $0 }
        #expect(logged.filter { $0.hasPrefix("← ") && $0.contains(" 503 ") && $0.contains("bytes") }.count == 1)
        #expect(logged.filter { $0.hasPrefix("← ") && $0.hasSuffix("streaming") }.count == 1)
        #expect(logged.filter { $0.contains("stream ended") }.count == 1)
        #expect(logged.contains { $0.contains("stream ended after") && $0.contains("2 elements") })
    }

    @MainActor @Test func aStreamIsReadOnTheMainActorAndSentToAnotherTask() async throws {
        let transport = ScriptedStreamTransport { _, _ in [.piece("data: a\n\ndata: b\n\n")] }
        let stream = Self.endpoint(transport).events()
        var onMain: [String] = []
        for try await event in stream {
            MainActor.assertIsolated()
            onMain.append(event.data)
        }
        // The same value, sent to another task, sends the request again there.
        let elsewhere = try await Task.detached { try await stream.collect().map(\.data) }.value
        #expect(onMain == ["a", "b"])
        #expect(elsewhere == ["a", "b"])
        #expect(transport.requests.count == 2)
    }

    @Test func aConsumerThatNeverCatchesUpHoldsNoPieceItHasTaken() async throws {
        // The producer refills as soon as there is room, so the queue never drains: taken pieces must
        // still leave it (they once stayed, and memory grew by every byte read).
        let sink = StreamBodySink(capacity: 4 * 1024)
        try sink.receive(ResponseHead(statusCode: 200))
        let piece = Data(repeating: 0x61, count: 1024)
        for _ in 0..<4 { try sink.write(piece) }
        var largest = 0
        for _ in 0..<10_000 {
            let taken = try await sink.next()
            #expect(taken?.count == 1024)
            try await sink.waitForDemand()
            try sink.write(piece)
            largest = max(largest, sink.queuedSlots)
        }
        #expect(largest <= 2 * 64 + 4)
        sink.close(.cancelled)
    }

    /// Polls `condition` for up to 5 s.
    func waitUntil(_ condition: @Sendable () -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(5)
        while !condition() {
            guard ContinuousClock.now < end else {
                Issue.record("condition not met within 5 s")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// Answers the given attempts with another status (and an empty body), the others as `inner` does.
final class StatusByAttempt: HTTPTransport, Sendable {
    let inner: ScriptedStreamTransport
    let statuses: [Int: Int]
    private let count = Locked(0)

    init(inner: ScriptedStreamTransport, statuses: [Int: Int]) {
        self.inner = inner
        self.statuses = statuses
    }

    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        let attempt = count.withLock {
            $0 += 1
            return $0
        }
        guard let status = statuses[attempt] else { return try await inner.send(request, context: context, sink: sink) }
        let head = ResponseHead(statusCode: status, headers: ["Retry-After": "0"], url: request.url)
        try sink.receive(head)
        return head
    }
}
