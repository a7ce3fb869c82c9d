import Foundation
import HTTPTestServer
import Testing

@testable import EndpointRouter

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Retry middleware")
struct RetryMiddlewareTests {
    /// A server answering the scripted responses in turn, then the last one for ever.
    static func server(_ responses: [ScriptedResponse]) throws -> TestServer {
        let served = Counter()
        return try TestServer { _ in
            let index = served.increment() - 1
            return responses[min(index, responses.count - 1)]
        }
    }

    static let unavailable = ScriptedResponse.status(503, body: "busy")

    @Test func honoursRetryAfterInSeconds() async throws {
        let server = try Self.server([Self.unavailable.adding(header: "Retry-After", "1"), .text("done")])
        defer { server.stop() }
        let waits = RecordedWaits()
        let endpoint = OptionedEndpoint(host: server.baseURL, middlewares: [RetryMiddleware(sleep: waits.sleep)])
        #expect(await endpoint.request(type: String.self) == .success("done"))
        #expect(waits.all == [.seconds(1)])
        #expect(server.requests.count == 2)
    }

    @Test func readsEveryHTTPDateFormAndRejectsNonsense() throws {
        let now = Date(timeIntervalSince1970: 784_111_767)  // Sun, 06 Nov 1994 08:49:27 GMT
        for value in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(RetryAfter.delay(value, now: now) == .seconds(10), "\(value)")
        }
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:17 GMT", now: now) == .zero)
        #expect(RetryAfter.delay(" 120 ", now: now) == .seconds(120))
        #expect(RetryAfter.delay("-1", now: now) == nil)
        #expect(RetryAfter.delay("soon", now: now) == nil)
        #expect(RetryAfter.delay("", now: now) == nil)
        #expect(RetryAfter.delay(String(repeating: "9", count: 40), now: now).map { $0 > .seconds(1_000_000) } == true)
    }

    @Test func aPostIsRetriedOnlyWhenTheEndpointOptsIn() async throws {
        let server = try Self.server([Self.unavailable, Self.unavailable, .text("done")])
        defer { server.stop() }
        let waits = RecordedWaits()
        var endpoint = OptionedEndpoint(
            host: server.baseURL, method: .post, body: .json(["a": 1]),
            middlewares: [RetryMiddleware(sleep: waits.sleep)])
        #expect(await endpoint.request(type: String.self).failure?.response?.statusCode == 503)
        #expect(server.requests.count == 1)
        endpoint.options.retryable = true
        #expect(await endpoint.request(type: String.self) == .success("done"))
        #expect(server.requests.count == 3)
        #expect(server.requests.allSatisfy { $0.bodyText == #"{"a":1}"# })
        endpoint.method = .get
        endpoint.body = nil
        endpoint.options.retryable = false
        let refusing = try Self.server([Self.unavailable, .text("done")])
        defer { refusing.stop() }
        endpoint.host = refusing.baseURL
        #expect(await endpoint.request(type: String.self).failure?.response?.statusCode == 503)
        #expect(refusing.requests.count == 1)
    }

    @Test func attemptsNeverExceedTheMaximum() async throws {
        let server = try Self.server([Self.unavailable])
        defer { server.stop() }
        let waits = RecordedWaits()
        let policy = RetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(100), maximumDelay: .milliseconds(300))
        let endpoint = OptionedEndpoint(host: server.baseURL, middlewares: [RetryMiddleware(policy: policy, sleep: waits.sleep)])
        #expect(await endpoint.request(type: String.self).failure?.response?.statusCode == 503)
        #expect(server.requests.count == 4)
        #expect(waits.all.count == 3)
        #expect(zip(waits.all, [100, 200, 300]).allSatisfy { wait, ceiling in wait >= .zero && wait <= .milliseconds(ceiling) })
    }

    @Test func theRemainingDeadlineCutsALongRetryAfter() async throws {
        let server = try Self.server([Self.unavailable.adding(header: "Retry-After", "40"), .text("done")])
        defer { server.stop() }
        let waits = RecordedWaits()
        let policy = RetryPolicy(maximumDelay: .seconds(120))
        let endpoint = OptionedEndpoint(
            host: server.baseURL, timeout: 20, middlewares: [RetryMiddleware(policy: policy, sleep: waits.sleep)])
        #expect(await endpoint.request(type: String.self).failure?.response?.statusCode == 503)
        #expect(waits.all.isEmpty)
        #expect(server.requests.count == 1)
    }

    @Test func aRetryAfterBeyondThePolicysCapIsNotWaitedFor() async throws {
        let server = try Self.server([Self.unavailable.adding(header: "Retry-After", "120"), .text("done")])
        defer { server.stop() }
        let waits = RecordedWaits()
        let endpoint = OptionedEndpoint(host: server.baseURL, timeout: 600, middlewares: [RetryMiddleware(sleep: waits.sleep)])
        #expect(await endpoint.request(type: String.self).failure?.response?.statusCode == 503)
        #expect(waits.all.isEmpty)
        #expect(server.requests.count == 1)
    }

    @Test func retriesOnlyTransientTransportErrors() async throws {
        let cases: [(HTTPClientError, Int)] = [
            (.transport(URLError(.networkConnectionLost)), 3),
            (.transport(URLError(.timedOut)), 3),
            (.transport(URLError(.notConnectedToInternet)), 3),
            (.transport(URLError(.cannotConnectToHost)), 3),
            (.transport(URLError(.cannotFindHost)), 3),
            (.transport(URLError(.badServerResponse)), 1),
            (.transport(URLError(.secureConnectionFailed)), 1),
            (.timedOut, 1),
            (.cancelled, 1),
            (.responseTooLarge(limit: 10), 1),
        ]
        for (error, expectedAttempts) in cases {
            let attempts = Counter()
            let transport = ClosureTransport { _ throws(HTTPClientError) in
                attempts.increment()
                throw error
            }
            let waits = RecordedWaits()
            let endpoint = OptionedEndpoint(
                host: "https://api.example.com", transport: transport,
                middlewares: [RetryMiddleware(sleep: waits.sleep)])
            let result = await endpoint.request(type: String.self)
            if error != .cancelled { #expect(result.failure == error) }
            #expect(attempts.count == expectedAttempts, "\(error)")
            #expect(waits.all.count == expectedAttempts - 1)
        }
    }

    @Test func aRefusedConnectionIsRetried() async throws {
        // A port kept bound and never listening: a stopped server's port could be taken by a server
        // of a suite running in parallel, which would then answer (a CI run failed so, here and in
        // the cache suite whose server got the port).
        let closedPort = "http://127.0.0.1:\(try RawServer.closedPort())"
        let waits = RecordedWaits()
        let endpoint = OptionedEndpoint(host: closedPort, middlewares: [RetryMiddleware(sleep: waits.sleep)])
        let result = await endpoint.request(type: String.self)
        guard case .failure(.transport(let error)) = result else {
            Issue.record("expected a transport error, got \(result)")
            return
        }
        #expect(error.code == .cannotConnectToHost)
        #expect(waits.all.count == 2)
    }

    @Test func retriesStatusesOfThePolicyOnly() async throws {
        for (status, expectedAttempts) in [(408, 2), (429, 2), (500, 2), (502, 2), (503, 2), (504, 2), (501, 1), (404, 1), (401, 1)] {
            let attempts = Counter()
            let transport = ClosureTransport { _ in
                IncomingResponse(statusCode: attempts.increment() == 1 ? status : 200)
            }
            let endpoint = OptionedEndpoint(
                host: "https://api.example.com", transport: transport,
                middlewares: [RetryMiddleware(sleep: RecordedWaits().sleep)])
            _ = await endpoint.request(type: EmptyResponse.self)
            #expect(attempts.count == expectedAttempts, "status \(status)")
        }
    }

    @Test func jitterStaysUnderTheCappedCeiling() {
        let policy = RetryPolicy(baseDelay: .milliseconds(100), maximumDelay: .seconds(2))
        let ceilings = (1...8).map(policy.backoffCeiling(beforeRetry:))
        #expect(
            ceilings == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800),
                .milliseconds(1600), .seconds(2), .seconds(2), .seconds(2),
            ])
        #expect(policy.backoffCeiling(beforeRetry: 10_000) == .seconds(2))
        for retry in 1...8 {
            let samples = (0..<300).map { _ in policy.backoff(beforeRetry: retry) }
            #expect(samples.allSatisfy { $0 >= .zero && $0 <= ceilings[retry - 1] })
            // Full jitter spreads over the whole range: some waits in each half (fails with odds 2^-299).
            #expect(samples.contains { $0 < ceilings[retry - 1] / 2 } && samples.contains { $0 > ceilings[retry - 1] / 2 })
        }
        let huge = RetryPolicy(baseDelay: .seconds(Int64.max / 4), maximumDelay: .seconds(Int64.max / 4))
        #expect(huge.backoff(beforeRetry: 60) >= .zero)
    }
}

extension Serialized {
    @Suite("Retry middleware in real time")
    struct RetryTimingTests {
        // Real time: the wait is what is left of a date 20 s ahead when the middleware reads it, so a
        // machine that takes 5 s between the server and the middleware (TSan beside the parallel
        // suite did) fails the 15 s floor. Alone, it holds.
        @Test func honoursRetryAfterAsAnHTTPDate() async throws {
            // Dated when the server answers, 20 s ahead: the recorded wait is what is left of it, however
            // slowly a loaded machine gets there.
            let served = Counter()
            let server = try TestServer { _ in
                guard served.increment() == 1 else { return .text("done") }
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "GMT")
                formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
                return ScriptedResponse.status(503).adding(header: "Retry-After", formatter.string(from: Date().addingTimeInterval(20)))
            }
            defer { server.stop() }
            let waits = RecordedWaits()
            let endpoint = OptionedEndpoint(host: server.baseURL, timeout: 60, middlewares: [RetryMiddleware(sleep: waits.sleep)])
            #expect(await endpoint.request(type: String.self) == .success("done"))
            let wait = try #require(waits.all.first)
            #expect(wait > .seconds(15) && wait <= .milliseconds(20_001), "waited \(wait)")
        }

        @Test func waitsTheRetryAfterSecond() async throws {
            let served = Counter()
            let server = try TestServer { _ in
                served.increment() == 1 ? ScriptedResponse.status(503).adding(header: "Retry-After", "1") : .text("done")
            }
            defer { server.stop() }
            let endpoint = OptionedEndpoint(host: server.baseURL, middlewares: [RetryMiddleware()])
            let started = ContinuousClock.now
            #expect(await endpoint.request(type: String.self) == .success("done"))
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .seconds(1) && elapsed < .seconds(3), "took \(elapsed)")
            #expect(server.requests.count == 2)
        }

        @Test func aRetryAfterPastTheDeadlineReturnsTheResponseAtOnce() async throws {
            let server = try TestServer(response: ScriptedResponse.status(503).adding(header: "Retry-After", "5"))
            defer { server.stop() }
            let endpoint = OptionedEndpoint(host: server.baseURL, timeout: 3, middlewares: [RetryMiddleware()])
            let started = ContinuousClock.now
            #expect(await endpoint.request(type: String.self).failure?.response?.statusCode == 503)
            let elapsed = ContinuousClock.now - started
            #expect(elapsed < .seconds(1), "took \(elapsed)")
            #expect(server.requests.count == 1)
        }

        @Test func cancellingEndsABackoffAtOnce() async throws {
            let middleware = RetryMiddleware()
            let sent = Counter()
            let next: HTTPMiddleware.Next = { _, _ in
                sent.increment()
                return IncomingResponse(statusCode: 503, headers: ["Retry-After": "5"])
            }
            let request = OutgoingRequest(url: try #require(URL(string: "https://api.example.com/x")))
            let task = Task { () -> (Result<IncomingResponse, HTTPClientError>, ContinuousClock.Instant) in
                let result = await Deadline.capture { () throws(HTTPClientError) in
                    try await middleware.intercept(request, context: testContext(seconds: 30), next: next)
                }
                return (result, ContinuousClock.now)
            }
            #expect(await eventually { sent.count == 1 })
            try await Task.sleep(for: .milliseconds(50))
            let cancelled = ContinuousClock.now
            task.cancel()
            let (result, ended) = await task.value
            #expect(result.failure == .cancelled)
            #expect(ended - cancelled < .milliseconds(100), "returned \(ended - cancelled) after cancel")
            #expect(sent.count == 1)
        }

        @Test func cancellingACallDuringBackoffReturnsAtOnce() async throws {
            let server = try TestServer(response: ScriptedResponse.status(503).adding(header: "Retry-After", "5"))
            defer { server.stop() }
            let endpoint = OptionedEndpoint(host: server.baseURL, timeout: 30, middlewares: [RetryMiddleware()])
            let task = Task { () -> (Result<String, HTTPClientError>, ContinuousClock.Instant) in
                (await endpoint.request(type: String.self), ContinuousClock.now)
            }
            #expect(await server.received(1))
            try await Task.sleep(for: .milliseconds(100))
            let cancelled = ContinuousClock.now
            task.cancel()
            let (result, ended) = await task.value
            #expect(result.failure == .cancelled)
            #expect(ended - cancelled < .milliseconds(100), "returned \(ended - cancelled) after cancel")
            #expect(server.requests.count == 1)
        }
    }
}
