import EndpointRouter
import EndpointRouterTesting
import Foundation
import HTTPTestServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The streaming calls (events(), lines(), jsonLines(of:)) over every transport that speaks HTTP, against
// the in-process server. Stubs and replays are left out: they cannot script a stream yet.
//
// Shared with Transports/AsyncHTTPClient through a symbolic link, like TransportConformanceTests.swift,
// so the same tests run against AsyncHTTPClientTransport there. Every test has its own server and each
// is bounded by a time limit and short timeouts, so a regression fails instead of hanging.
//
// The suite is serialized: run in parallel on Linux (2 cores), the fast URLSession streams starved the
// other URLSession tests (heads not in within 5 s, the 100,000-event reader falling 1 MiB behind), and
// the memory figure is the whole process's, so a neighbour's transfer would be counted as the soak's.

/// An endpoint on one test's server. The `timeout` bounds getting the response head: well under the
/// tests' time limit, yet long enough for a head that waits behind another suite's endless URLSession
/// body (corelibs' sessions share one queue; CI once saw a head miss a 5 s deadline that way).
struct StreamingEndpoint: HTTPClient, Sendable {
    var host: String
    var endpoint: String = "events"
    var timeout: TimeInterval? = 15
    var transport: any HTTPTransport
    var middlewares: [any HTTPMiddleware] = []
}

extension TransportUnderTest {
    /// The transports of ``all`` that speak HTTP (`.live`); only they can carry a served stream.
    static let liveOnly: [TransportUnderTest] = all.filter(\.isLive)

    /// Whether the engine is `.live`.
    var isLive: Bool {
        if case .live = engine { true } else { false }
    }

    /// Whether the transport waits for demand before it pulls each body piece, so a slow consumer
    /// holds the server back. Decided by name: AsyncHTTPClient pulls, CurlTransport pauses libcurl;
    /// URLSession's delegate pushes,
    /// and a consumer that falls `bufferSize` behind gets `.responseTooLarge` instead.
    var pullsBody: Bool {
        name.hasPrefix("AsyncHTTPClientTransport") || name == "CurlTransport"
    }

    /// Runs `body` with a new server answering with `handler` and a new transport of this kind; the
    /// server stops afterwards.
    func withStreamServer(
        isolation: isolated (any Actor)? = #isolation,
        _ handler: @escaping @Sendable (RecordedRequest) -> ScriptedResponse,
        _ body: (TestServer, any HTTPTransport) async throws -> Void
    ) async throws {
        guard case .live(let make) = engine else { throw TestFailure("\(name) does not speak HTTP") }
        let server = try TestServer(handler: handler)
        defer { server.stop() }
        try await withTemporaryDirectory { scratch in
            try await Self.usingRecordingsDone(make(scratch)) { transport in try await body(server, transport) }
        }
    }
}

/// Seconds in `duration`, for printing and comparing.
private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// How a test stops reading a stream early.
enum StreamStop: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// Cancels the task that runs the loop.
    case cancelTask
    /// Leaves the loop with `break`, which drops the iterator.
    case breakLoop

    var testDescription: String { rawValue }
}

@Suite("Streaming conformance: every live transport", .serialized)
struct StreamingConformanceTests {
    /// Limits short enough that a stalled stream fails a test within its time limit; the idle bound has
    /// the head's margin, for the same reason (see ``StreamingEndpoint``).
    static let shortLimits = StreamLimits(idleTimeout: 15, totalTimeout: 50)

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.liveOnly)
    func aHundredThousandEventsArriveInOrderExactlyOnce(_ transport: TransportUnderTest) async throws {
        let count = 100_000
        let script = GeneratedEvents(lastID: count)
        // A pushing transport (URLSession) fails the stream once its consumer is `bufferSize` behind, and a
        // debug-build consumer does fall 1 MiB behind this burst; a buffer holding all of it (about 3.4 MB)
        // keeps this test about order and completeness. The soak test covers the limit itself.
        let limits = transport.pullsBody ? Self.shortLimits : StreamLimits(bufferSize: 16 * 1_048_576, idleTimeout: 15, totalTimeout: 50)
        let handler: @Sendable (RecordedRequest) -> ScriptedResponse = { .events(script, resumingFrom: $0) }
        try await transport.withStreamServer(handler) { server, live in
            let endpoint = StreamingEndpoint(host: server.baseURL, transport: live)
            var next = 1
            var wrong = 0
            let (_, elapsed) = try await measure {
                for try await event in endpoint.events(limits: limits) {
                    // Checked as they come rather than kept, so the test's own memory stays flat.
                    if event.id != String(next) || event.data != script.payload(for: next) {
                        if wrong == 0 { Issue.record("event \(next) arrived as id \(event.id ?? "nil"), data \(event.data.prefix(40))") }
                        wrong += 1
                    }
                    next += 1
                }
            }
            #expect(wrong == 0)
            #expect(next - 1 == count)
            print(
                "[streaming] \(transport.name): \(next - 1) events in \(String(format: "%.2f", elapsed)) s, "
                    + "\(Int(Double(next - 1) / elapsed)) events/s")
        }
    }

    /// Default 10 s; `STREAM_SOAK_SECONDS` sets it (the issue's soak is 300). The time limit leaves room for that.
    @Test(.timeLimit(.minutes(7)), arguments: TransportUnderTest.liveOnly)
    func anEndlessFastStreamReadSlowlyKeepsMemoryBounded(_ transport: TransportUnderTest) async throws {
        let soakSeconds = ProcessInfo.processInfo.environment["STREAM_SOAK_SECONDS"].flatMap(Double.init) ?? 10
        // About 4 KiB per event and no end: the server could send hundreds of MiB in the run. A pushing
        // transport gets 16 MB (still 16 times its buffer, so it overflows as it must): corelibs reads an
        // abandoned body to its end on the one queue every URLSession of the process shares, and an
        // endless one starved every other URLSession test running beside this one.
        let script = transport.pullsBody ? GeneratedEvents(padding: 4000) : GeneratedEvents(lastID: 4000, padding: 4000)
        let limits = StreamLimits(bufferSize: 1_048_576, maxElementSize: 64 * 1024, idleTimeout: 10)
        let slack = 16 * 1_048_576
        let handler: @Sendable (RecordedRequest) -> ScriptedResponse = { .events(script, resumingFrom: $0) }
        try await transport.withStreamServer(handler) { server, live in
            let endpoint = StreamingEndpoint(host: server.baseURL, transport: live)
            await MemorySampler.settle()
            let sampler = MemorySampler()
            sampler.start()
            let clock = ContinuousClock()
            let end = clock.now + .milliseconds(Int(soakSeconds * 1000))
            var received = 0
            var consumedBytes = 0
            var outcome: HTTPClientError?
            do throws(HTTPClientError) {
                for try await event in endpoint.events(limits: limits) {
                    received += 1
                    consumedBytes += event.data.utf8.count
                    if event.id != String(received) {
                        Issue.record("event \(received) arrived as id \(event.id ?? "nil")")
                        break
                    }
                    if clock.now >= end { break }
                    // About 1 ms per 4 KiB event: a few MiB/s, far slower than the server writes.
                    try? await Task.sleep(for: .milliseconds(1))
                }
            } catch {
                outcome = error
            }
            let memory = sampler.stop()
            let growth = max(0, memory.peakBytes - memory.baselineBytes)
            let sent = server.connections.first?.bodyBytesSent ?? 0
            print(
                "[streaming] \(transport.name) soak: \(received) events (\(consumedBytes / 1024) KiB of data) read, "
                    + "server sent \(sent / 1024) KiB, peak RSS growth \(growth / 1024) KiB "
                    + "(bound \((limits.bufferSize + slack) / 1024) KiB), outcome \(outcome.map { "\($0)" } ?? "ran to the end")")
            // The process's resident memory says something only with nothing running beside this test:
            // CI runs this suite alone and says so with ENDPOINTROUTER_ALONE; a plain `swift test` runs
            // every suite in one process, where other suites' bodies grew it by 69-130 MB. The bound per
            // stream, what the server sent ahead of the reader, is checked below in every run.
            let alone = ProcessInfo.processInfo.environment["ENDPOINTROUTER_ALONE"] != nil
            if transport.pullsBody {
                if alone { #expect(growth <= limits.bufferSize + slack) }
            } else if alone {
                // Seen once in four runs on Linux: RecordingTransport(URLSessionTransport) grew 97 MiB (the
                // server had sent 283 MiB) before the `.responseTooLarge` ended it; alone it stayed at 13 MiB.
                // Not understood yet, so recorded rather than hidden.
                withKnownIssue("a pushing transport's memory can overshoot the bound before .responseTooLarge", isIntermittent: true) {
                    #expect(growth <= limits.bufferSize + slack)
                }
            }
            if transport.pullsBody {
                #expect(outcome == nil)
                #expect(clock.now >= end)
                // Back-pressure reaches the server: it sent at most the buffer and the socket buffers ahead.
                #expect(sent <= Int64(consumedBytes + limits.bufferSize + slack))
            } else if let outcome, !(received == 0 && outcome == .timedOut) {
                #expect(outcome == .responseTooLarge(limit: limits.bufferSize))
            }
            // Beside the rest of the suite, corelibs' one queue can be busy with other tests' bodies for
            // longer than the head's deadline: a stream that never started (no event, `.timedOut`) says
            // nothing about the buffer, and its memory is still checked above.
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.liveOnly)
    func anOversizedEventFailsTheStreamAndClosesTheConnection(_ transport: TransportUnderTest) async throws {
        // Endless events of 8 KiB against a 1 KiB limit: only closing the connection stops the server.
        // A pushing transport gets 16 MB, for the reason the soak above gives.
        let script = transport.pullsBody ? GeneratedEvents(padding: 8 * 1024) : GeneratedEvents(lastID: 2000, padding: 8 * 1024)
        let handler: @Sendable (RecordedRequest) -> ScriptedResponse = { .events(script, resumingFrom: $0) }
        try await transport.withStreamServer(handler) { server, live in
            let endpoint = StreamingEndpoint(host: server.baseURL, transport: live)
            var received = 0
            do throws(HTTPClientError) {
                for try await _ in endpoint.events(limits: StreamLimits(maxElementSize: 1024, idleTimeout: 15)) { received += 1 }
                Issue.record("the stream ended without an error")
            } catch {
                #expect(error == .responseTooLarge(limit: 1024))
            }
            #expect(received == 0)
            // A pushing transport's finite body may be read whole before the refusal reaches it, and then
            // its connection goes back to the pool, open: only a pulling transport's close is certain.
            if transport.pullsBody {
                let ended = await server.waitForConnectionEnd(index: 1, timeout: 10)
                #expect(ended != nil, "the server never saw the connection end")
            }
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.liveOnly, StreamStop.allCases)
    func stoppingMidStreamClosesTheConnectionPromptly(_ transport: TransportUnderTest, stop: StreamStop) async throws {
        // An event every 20 ms: the server waits between events watching for the client's close, so
        // it notices at once, and the measured time is the client's.
        let dripping = GeneratedEvents(interval: 0.02)
        let finite = GeneratedEvents(lastID: 3)
        let handler: @Sendable (RecordedRequest) -> ScriptedResponse = { request in
            .events(request.path == "/finite" ? finite : dripping, resumingFrom: request)
        }
        try await transport.withStreamServer(handler) { server, live in
            let endpoint = StreamingEndpoint(host: server.baseURL, transport: live)
            let stream = endpoint.events(limits: Self.shortLimits)
            let stoppedAt: ContinuousClock.Instant
            switch stop {
            case .cancelTask:
                let (started, startedSignal) = AsyncStream<Void>.makeStream()
                let reader = Task {
                    // Finishing the signal whatever happens keeps the test from waiting for it forever.
                    defer { startedSignal.finish() }
                    var received = 0
                    do throws(HTTPClientError) {
                        for try await _ in stream {
                            received += 1
                            if received == 5 { startedSignal.yield() }
                        }
                        return (received, HTTPClientError?.none)
                    } catch {
                        return (received, error)
                    }
                }
                var iterator = started.makeAsyncIterator()
                _ = await iterator.next()
                stoppedAt = .now
                reader.cancel()
                let (received, error) = await reader.value
                #expect(received >= 5, "ended with \(String(describing: error)) after \(received) events")
                // Cancelling either ends the loop or throws `.cancelled`; anything else is a failure.
                #expect(error == nil || error == .cancelled, "ended with \(String(describing: error))")
            case .breakLoop:
                var received = 0
                for try await _ in stream {
                    received += 1
                    if received == 5 { break }
                }
                stoppedAt = .now
                #expect(received == 5)
            }
            let ended = try #require(await server.waitForConnectionEnd(index: 1, timeout: 15), "the server never saw the close")
            let latency = max(0, seconds(stoppedAt.duration(to: ended)))
            print("[streaming] \(transport.name) \(stop.rawValue): connection closed \(String(format: "%.3f", latency)) s after the stop")
            #expect(latency <= (transport.pullsBody ? 1 : 10))

            // The transport is still good for the next stream.
            var next = StreamingEndpoint(host: server.baseURL, transport: live)
            next.endpoint = "finite"
            var ids: [String?] = []
            for try await event in next.events(limits: Self.shortLimits) { ids.append(event.id) }
            #expect(ids == ["1", "2", "3"])
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.liveOnly)
    func aDroppedStreamReconnectsWithLastEventIDAndResumesWithoutGapOrDuplicate(_ transport: TransportUnderTest) async throws {
        let perConnection = 250
        let drops = 3
        let total = perConnection * (drops + 1)
        // Each connection carries `perConnection` events, then the server closes it mid-body (chunked,
        // no last chunk); after the last event it answers 204, which ends the sequence.
        let script = GeneratedEvents(lastID: total, dropAfter: perConnection)
        let handler: @Sendable (RecordedRequest) -> ScriptedResponse = { .events(script, resumingFrom: $0) }
        try await transport.withStreamServer(handler) { server, live in
            let endpoint = StreamingEndpoint(host: server.baseURL, transport: live)
            let policy = ReconnectPolicy.automatic(maxAttempts: 3, initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200))
            var ids: [Int] = []
            var wrongData = 0
            for try await event in endpoint.events(limits: Self.shortLimits, reconnect: policy) {
                let id = Int(event.id ?? "") ?? -1
                if event.data != script.payload(for: id) { wrongData += 1 }
                ids.append(id)
            }
            #expect(ids == Array(1...total), "first difference at index \(ids.indices.first { ids[$0] != $0 + 1 } ?? ids.count)")
            #expect(wrongData == 0)
            let requests = server.requests
            // The first connection, one per drop, and the one answered 204.
            #expect(requests.count == drops + 2)
            #expect(requests.first?.header("Last-Event-ID") == nil)
            let resumedFrom = requests.dropFirst().map { $0.header("Last-Event-ID") }
            #expect(resumedFrom == (1...(drops + 1)).map { String($0 * perConnection) })
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.liveOnly)
    func aRejectedCredentialIsRefreshedOnceThenEventsFlow(_ transport: TransportUnderTest) async throws {
        let script = GeneratedEvents(lastID: 5)
        let handler: @Sendable (RecordedRequest) -> ScriptedResponse = { request in
            request.header("Authorization") == "Bearer fresh" ? .events(script, resumingFrom: request) : .status(401)
        }
        try await transport.withStreamServer(handler) { server, live in
            let refreshes = Locked(0)
            let store = CredentialStore(
                credential: { .bearer("stale") },
                refresh: { _ in
                    refreshes.withLock { $0 += 1 }
                    return .refreshed(.bearer("fresh"))
                })
            let endpoint = StreamingEndpoint(
                host: server.baseURL, transport: live, middlewares: [AuthorizationMiddleware(store, host: server.baseURL)])
            var ids: [String?] = []
            for try await event in endpoint.events(limits: Self.shortLimits) { ids.append(event.id) }
            #expect(ids == ["1", "2", "3", "4", "5"])
            #expect(refreshes.withLock { $0 } == 1)
            #expect(server.requests.map { $0.header("Authorization") } == ["Bearer stale", "Bearer fresh"])
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.liveOnly)
    func aSilentServerTimesOutAfterTheIdleTimeout(_ transport: TransportUnderTest) async throws {
        // One event, then a 30 s silence.
        let script = GeneratedEvents(interval: 30)
        let handler: @Sendable (RecordedRequest) -> ScriptedResponse = { .events(script, resumingFrom: $0) }
        try await transport.withStreamServer(handler) { server, live in
            let endpoint = StreamingEndpoint(host: server.baseURL, transport: live)
            var ids: [String?] = []
            var firstEventAt: ContinuousClock.Instant?
            var failure: HTTPClientError?
            do throws(HTTPClientError) {
                for try await event in endpoint.events(limits: StreamLimits(idleTimeout: 0.5, totalTimeout: 20)) {
                    ids.append(event.id)
                    firstEventAt = firstEventAt ?? .now
                }
            } catch {
                failure = error
            }
            let silence = firstEventAt.map { seconds($0.duration(to: .now)) } ?? -1
            print("[streaming] \(transport.name): idle timeout of 0.5 s fired \(String(format: "%.3f", silence)) s after the event")
            #expect(ids == ["1"])
            #expect(failure == .timedOut)
            #expect(silence >= 0.4 && silence <= 3)
            #expect(await server.waitForConnectionEnd(index: 1, timeout: 10) != nil, "the timed-out connection stayed open")
        }
    }

    /// A JSON line as `jsonLines(of:)` decodes it.
    struct Row: Codable, Equatable, Sendable {
        var id: Int
        var name: String
    }

    @Test(.timeLimit(.minutes(1)), arguments: TransportUnderTest.liveOnly)
    func linesAndJSONLinesReadAChunkedBodyWithCRLFLineEnds(_ transport: TransportUnderTest) async throws {
        let rows = (1...500).map { Row(id: $0, name: "row \($0)") }
        let lines = rows.map { #"{"id":\#($0.id),"name":"\#($0.name)"}"# }
        let text = Data((lines.joined(separator: "\r\n") + "\r\n").utf8)
        // 37-byte chunks, so chunk boundaries fall everywhere, between CR and LF too.
        var body = Data()
        var offset = 0
        while offset < text.count {
            let piece = text[offset..<min(offset + 37, text.count)]
            body.append(Data((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Data("\r\n".utf8))
            offset += piece.count
        }
        body.append(Data("0\r\n\r\n".utf8))
        let response = ScriptedResponse.status(
            200, headers: [("Content-Type", "application/x-ndjson"), ("Transfer-Encoding", "chunked")], body: body)
        let handler: @Sendable (RecordedRequest) -> ScriptedResponse = { _ in response }
        try await transport.withStreamServer(handler) { server, live in
            let endpoint = StreamingEndpoint(host: server.baseURL, endpoint: "rows", transport: live)
            var received: [String] = []
            for try await line in endpoint.lines(limits: Self.shortLimits) { received.append(line) }
            #expect(received == lines)
            var decoded: [Row] = []
            for try await row in endpoint.jsonLines(of: Row.self, limits: Self.shortLimits) { decoded.append(row) }
            #expect(decoded == rows)
            #expect(server.requests.count == 2)
        }
    }
}
