import Foundation
import Testing

@testable import EndpointRouter

/// Every time interval, size and count the public API takes, at the values a caller can pass by
/// mistake: NaN, ±infinity, zero, negative, the largest. Each gives a typed error naming the value
/// or a documented clamp, never a trap (a trap here ends the whole test process, so the suite
/// fails). `StreamLimits(idleTimeout: .nan)` trapped before ("Double value cannot be converted to Int64").
@Suite("Hostile numbers: NaN, infinities, zero, negatives and extremes in the public API")
struct HostileNumberTests {
    static let notPositiveSeconds: [TimeInterval] = [.nan, -.nan, .infinity, -.infinity, 0, -0.0, -1, -.greatestFiniteMagnitude]
    static let notPositiveSizes: [Int] = [0, -1, .min]

    /// The stream's first element throws `error`; `nil` if it threw nothing.
    static func firstError(of stream: ResponseStream<ServerSentEvent>) async -> HTTPClientError? {
        do {
            for try await _ in stream {}
            return nil
        } catch {
            return error
        }
    }

    static func expectRefused(_ limits: StreamLimits, naming name: String) async {
        let transport = ScriptedStreamTransport { _, _ in [.piece("data: x\n\n")] }
        let error = await firstError(of: ResponseStreamTests.endpoint(transport).events(limits: limits))
        guard case .encodingFailed(let text) = error else {
            Issue.record("expected .encodingFailed for \(limits), got \(String(describing: error))")
            return
        }
        #expect(text.contains("StreamLimits.\(name)"), "\(text)")
        #expect(transport.requests.isEmpty, "nothing is sent with limits that cannot be used")
    }

    @Test(arguments: notPositiveSeconds)
    func aStreamTimeoutThatIsNotPositiveAndFiniteIsRefusedBeforeSending(_ seconds: TimeInterval) async {
        await Self.expectRefused(StreamLimits(idleTimeout: seconds), naming: "idleTimeout")
        await Self.expectRefused(StreamLimits(totalTimeout: seconds), naming: "totalTimeout")
    }

    @Test(arguments: notPositiveSizes)
    func aStreamSizeThatIsNotPositiveIsRefusedBeforeSending(_ size: Int) async {
        await Self.expectRefused(StreamLimits(bufferSize: size), naming: "bufferSize")
        await Self.expectRefused(StreamLimits(maxElementSize: size), naming: "maxElementSize")
    }

    @Test func theLargestStreamLimitsAreCappedAndTheStreamWorks() async throws {
        let transport = ScriptedStreamTransport { _, _ in [.piece("data: x\n\n")] }
        let limits = StreamLimits(
            bufferSize: .max, maxElementSize: .max, idleTimeout: .greatestFiniteMagnitude, totalTimeout: 1e300)
        var events: [String] = []
        for try await event in ResponseStreamTests.endpoint(transport).events(limits: limits) { events.append(event.data) }
        #expect(events == ["x"])
    }

    @Test func reconnectionWaitsAreCappedWhateverThePolicyOrTheServerAsks() {
        let huge = ReconnectPolicy(maxAttempts: .max, initialDelay: .seconds(Int64.max), maximumDelay: .seconds(Int64.max))
        for attempt in [Int.min, -1, 0, 1, 2, 16, .max] {
            for requested in [nil, Duration.seconds(Int64.max), .milliseconds(Int64.max), .zero, .seconds(-5)] as [Duration?] {
                let delay = huge.delay(attempt: attempt, requested: requested)
                #expect(
                    delay >= .zero && delay <= ReconnectPolicy.longestDelay, "attempt \(attempt), asked \(String(describing: requested))")
            }
        }
        let negative = ReconnectPolicy(maxAttempts: .min, initialDelay: .seconds(-1), maximumDelay: .seconds(-1))
        #expect(negative.maxAttempts == 0)
        #expect(negative.delay(attempt: 3, requested: .seconds(9)) == .zero)
    }

    @Test func retryBackoffStaysWithinItsCeilingAtTheExtremes() {
        let delays: [Duration] = [.seconds(Int64.max), .seconds(Int64.min), .zero, .nanoseconds(1), .seconds(-1)]
        for base in delays {
            for maximum in delays {
                for attempts in [Int.min, 0, 1, .max] {
                    let policy = RetryPolicy(maximumAttempts: attempts, baseDelay: base, maximumDelay: maximum)
                    for retry in [Int.min, -1, 0, 1, 64, .max] {
                        let ceiling = policy.backoffCeiling(beforeRetry: retry)
                        let backoff = policy.backoff(beforeRetry: retry)
                        #expect(ceiling >= .zero && backoff >= .zero && backoff <= ceiling)
                        let failure = Result<IncomingResponse, HTTPClientError>.failure(.transport(URLError(.timedOut)))
                        if let delay = policy.delay(after: failure, attempt: retry) { #expect(delay >= .zero) }
                    }
                }
            }
        }
    }

    @Test func redirectHopsAndConnectionCountsAreClamped() {
        #expect(RedirectPolicy(maximumHops: .min).maximumHops == 0)
        #expect(RedirectPolicy(maximumHops: .max).maximumHops == .max)
        for connections in [Int.min, -1, 0, .max] {
            let transport = URLSessionTransport(configuration: .init(maximumConnectionsPerHost: connections))
            transport.shutdown()
        }
    }

    /// A body limit of zero or less refuses any body; the error names the limit as 0.
    @Test(arguments: [0, -1, Int.min])
    func aResponseSizeLimitOfZeroOrLessRefusesTheBody(_ limit: Int) async {
        var endpoint = TestEndpoint(transport: ClosureTransport { _ in IncomingResponse(statusCode: 200, body: Data("x".utf8)) })
        endpoint.maxResponseSize = limit
        #expect(await endpoint.request(type: Data.self).failure == .responseTooLarge(limit: 0))
    }

    @Test func countsOfZeroOrLessTakeNothing() async throws {
        let transport = ScriptedStreamTransport { _, _ in [.piece("data: x\n\n")] }
        for count in [Int.min, -1, 0] {
            #expect(try await ResponseStreamTests.endpoint(transport).events().collect(upTo: count).isEmpty)
        }
        #expect(transport.requests.isEmpty)
        let pagesTransport = ClosureTransport { _ in IncomingResponse(statusCode: 200, body: Data("[1]".utf8)) }
        for count in [Int.min, -1, 0] {
            var pages = 0
            for try await _ in TestEndpoint(transport: pagesTransport).pages(of: [Int].self, maxPages: count) { pages += 1 }
            #expect(pages <= 1, "maxPages \(count) fetched \(pages) pages")
        }
    }

    @Test func budgetsRefreshLimitsAndParserSizesAtTheExtremes() throws {
        let cache = ResponseCache(memoryBudget: .min, directory: nil, diskBudget: .min)
        #expect(cache.memoryBudget == 0 && cache.diskBudget == 0)
        _ = CredentialStore(maximumRefreshes: .min, per: .seconds(Int64.min), credential: { nil }, refresh: { _ in .failed })
        for size in [Int.min, -1, 0] {
            var parser = ServerSentEventParser(maxEventSize: size)
            do {
                _ = try parser.parse(Data("data: x\n\n".utf8))
            } catch {
                guard case .responseTooLarge = error else {
                    Issue.record("maxEventSize \(size): \(error)")
                    continue
                }
            }
        }
        for completed in [Int64.min, -1, 0, .max] {
            for expected in [Int64.min, -1, 0, 1, .max] as [Int64?] + [nil] {
                let fraction = TransferProgress(completedBytes: completed, expectedBytes: expected).fractionCompleted
                #expect(fraction.map { (0...1).contains($0) } ?? true, "\(completed)/\(String(describing: expected))")
            }
        }
        let context = CallContext(endpointName: "x", attempt: .min, deadline: .now - .seconds(1_000_000))
        #expect(context.remainingTime <= .zero)
    }

    @Test(arguments: [Int.min, -1, 0, 99, 600, .max])
    func anyStatusCodeATransportReportsIsATypedAnswer(_ status: Int) async {
        let endpoint = TestEndpoint(transport: ClosureTransport { _ in IncomingResponse(statusCode: status, body: Data("{}".utf8)) })
        switch await endpoint.request(type: EmptyResponse.self) {
        case .failure(.unacceptableStatusCode(let response)): #expect(response.statusCode == status)
        case let other: Issue.record("status \(status): \(other)")
        }
    }
}
