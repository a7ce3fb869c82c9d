import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// Issue 40: every wait the library makes goes through the call's clock, so a test on a
/// `VirtualClock` sees the waits, their order and the server's `Retry-After` without taking them.
@Suite("Virtual time")
struct VirtualTimeTests {
    /// 503 for the first `failures` attempts, then a todo; each attempt's virtual time is noted.
    static func flaky(failures: Int, clock: VirtualClock, headers: [String: String] = [:], seen: Locked<[Duration]>) -> StubTransport {
        StubTransport { request in
            seen.withLock { $0.append(clock.elapsed) }
            return request.context.attempt <= failures
                ? .status(503, headers: headers) : .json(Todo(userId: 1, id: 1, title: "t", completed: false))
        }
    }

    @Test func aBackoffOfSecondsTakesNoTimeAndKeepsItsOrder() async {
        let clock = VirtualClock()
        let seen = Locked<[Duration]>([])
        let stub = Self.flaky(failures: 2, clock: clock, seen: seen)
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .seconds(2))
        let todo = await bounded {
            await withOverride(TaskOverride(transport: stub, clock: clock)) {
                await TodoAPI.todo(id: 1).request(type: Todo.self, middlewares: [RetryMiddleware(policy: policy)])
            }
        }
        #expect((try? todo?.get())?.title == "t")
        let waits = clock.waits
        #expect(waits.count == 2)
        // Full jitter: each wait is at most its ceiling, 2 s then 4 s.
        #expect(waits.first.map { $0 <= .seconds(2) } == true)
        #expect(waits.last.map { $0 <= .seconds(4) } == true)
        // Each attempt came after the waits before it, in virtual time.
        #expect(seen.withLock { $0 } == [.zero, waits[0], waits[0] + waits[1]])
    }

    @Test func retryAfterInSecondsIsHonoured() async {
        let clock = VirtualClock()
        let seen = Locked<[Duration]>([])
        let stub = Self.flaky(failures: 1, clock: clock, headers: ["Retry-After": "2"], seen: seen)
        _ = await withOverride(TaskOverride(transport: stub, clock: clock)) {
            await RetryingTodoAPI.todo(id: 1).request(type: Todo.self)
        }
        #expect(clock.waits == [.seconds(2)])
        #expect(seen.withLock { $0 } == [.zero, .seconds(2)])
    }

    @Test func retryAfterAsAnHTTPDateIsReadOnTheClocksDate() async {
        // Tue, 14 Nov 2023 22:13:20 GMT; the server asks for two minutes later.
        let clock = VirtualClock(date: Date(timeIntervalSince1970: 1_700_000_000))
        let seen = Locked<[Duration]>([])
        let stub = Self.flaky(failures: 1, clock: clock, headers: ["Retry-After": "Tue, 14 Nov 2023 22:15:20 GMT"], seen: seen)
        let retry = RetryMiddleware(policy: RetryPolicy(maximumDelay: .seconds(300)))
        _ = await withOverride(TaskOverride(transport: stub, clock: clock)) {
            // A deadline beyond the wait: a wait past it would not be taken.
            await TodoAPI.slowTodo(id: 1, timeout: 600).request(type: Todo.self, middlewares: [retry])
        }
        #expect(clock.waits == [.seconds(120)])
        #expect(clock.date == Date(timeIntervalSince1970: 1_700_000_120))
    }

    @Test func aRetryAfterPastTheDeadlineIsNotWaitedFor() async {
        let clock = VirtualClock()
        let stub = StubTransport().on(.get, "/todos/1", respond: .status(503, headers: ["Retry-After": "10"]))
        let outcome = await withOverride(TaskOverride(transport: stub, clock: clock)) {
            await TodoAPI.slowTodo(id: 1, timeout: 5).request(type: Todo.self, middlewares: [RetryMiddleware()])
        }
        #expect(throws: HTTPClientError.self) { try outcome.get() }
        #expect(clock.waits.isEmpty)
        #expect(stub.requestCount == 1)
    }

    @Test func aStubsLatencyPassesInVirtualTimeUpToTheDeadline() async {
        let clock = VirtualClock()
        let stub = StubTransport()
            .on(.get, "/todos/1", respond: StubResponse.json(Todo(userId: 1, id: 1, title: "t", completed: false)).delayed(by: 2))
            .on(.get, "/todos/2", respond: StubResponse.status(200).delayed(by: 30))
        let (fast, slow) = await withOverride(TaskOverride(transport: stub, clock: clock)) {
            (await TodoAPI.todo(id: 1).request(type: Todo.self), await TodoAPI.slowTodo(id: 2, timeout: 10).request(type: Todo.self))
        }
        #expect((try? fast.get()) != nil)
        #expect(slow == .failure(.timedOut))
        #expect(clock.waits == [.seconds(2), .seconds(10)])
        #expect(clock.elapsed == .seconds(12))
    }

    @Test func aWaitPastTheDeadlineEndsTheCallAtTheDeadline() async {
        let clock = VirtualClock()
        let stub = StubTransport().on(.get, "/todos/1", respond: .status(204))
        let outcome = await withOverride(TaskOverride(transport: stub, clock: clock)) {
            await TodoAPI.slowTodo(id: 1, timeout: 10).request(type: EmptyResponse.self, middlewares: [Pause(.seconds(120))])
        }
        // The caller is answered at the deadline, whatever the cancelled work does after it.
        #expect(outcome == .failure(.timedOut))
    }

    @Test func advancingPastTheDeadlineEndsTheCall() async {
        let clock = VirtualClock(.manually)
        let stub = StubTransport().on(.get, "/todos/1", respond: .status(204))
        let call = Task {
            await withOverride(TaskOverride(transport: stub, clock: clock)) {
                await TodoAPI.slowTodo(id: 1, timeout: 10).request(type: EmptyResponse.self, middlewares: [Pause(.seconds(120))])
            }
        }
        #expect(await eventually { clock.pendingSleepers == 1 })
        clock.advance(by: .seconds(11))
        #expect(await bounded { await call.value } == .failure(.timedOut))
        #expect(await eventually { clock.pendingSleepers == 0 })
    }

    @Test func aManualClockHoldsAWaitUntilItIsAdvanced() async {
        let clock = VirtualClock(.manually)
        let stub = StubTransport().on(.get, "/todos/1", respond: StubResponse.status(204).delayed(by: 5))
        let call = Task {
            await withOverride(TaskOverride(transport: stub, clock: clock)) { await TodoAPI.todo(id: 1).request(type: EmptyResponse.self) }
        }
        #expect(await eventually { clock.pendingSleepers == 1 })
        clock.advance(by: .seconds(4))
        #expect(clock.pendingSleepers == 1)
        clock.advance(by: .seconds(1))
        let outcome = await bounded { await call.value }
        #expect(outcome.map { (try? $0.get()) != nil } == true)
    }

    @Test func advancingWakesOnlyTheSleepersWhoseTimeHasCome() async {
        let clock = VirtualClock(.manually)
        let woken = Locked<[Int]>([])
        let sleepers = [3, 1].map { seconds in
            Task {
                try? await clock.sleep(for: .seconds(seconds))
                woken.withLock { $0.append(seconds) }
            }
        }
        #expect(await eventually { clock.pendingSleepers == 2 })
        clock.advance(by: .seconds(2))
        #expect(await eventually { woken.withLock { $0 } == [1] })
        #expect(clock.pendingSleepers == 1)
        clock.advance(by: .seconds(1))
        #expect(await eventually { woken.withLock { $0 } == [1, 3] })
        #expect(clock.elapsed == .seconds(3))
        for sleeper in sleepers { await sleeper.value }
    }

    @Test func cancellingASleeperEndsItsWaitAtOnce() async {
        let clock = VirtualClock(.manually)
        let sleeper = Task { () async -> HTTPClientError? in
            do throws(HTTPClientError) {
                try await clock.sleep(for: .seconds(3600))
                return nil
            } catch {
                return error
            }
        }
        #expect(await eventually { clock.pendingSleepers == 1 })
        sleeper.cancel()
        let outcome = await bounded { await sleeper.value }
        #expect(outcome == .some(.cancelled))
        #expect(clock.pendingSleepers == 0)
    }

    @Test func aCachedResponseAgesOnTheClock() async {
        let clock = VirtualClock()
        let stub = StubTransport().on(
            .get, "/todos/1",
            respond: .json(Todo(userId: 1, id: 1, title: "t", completed: false), headers: ["Cache-Control": "max-age=60"]))
        let caching = CachingMiddleware(cache: ResponseCache())
        await withOverride(TaskOverride(transport: stub, clock: clock)) {
            _ = await TodoAPI.todo(id: 1).request(type: Todo.self, middlewares: [caching])
            _ = await TodoAPI.todo(id: 1).request(type: Todo.self, middlewares: [caching])
            #expect(stub.requestCount == 1)
            clock.advance(by: .seconds(61))
            _ = await TodoAPI.todo(id: 1).request(type: Todo.self, middlewares: [caching])
        }
        #expect(stub.requestCount == 2)
    }

    @Test func aStreamReconnectsAfterItsWaitsWithoutTakingThem() async throws {
        let clock = VirtualClock()
        let stub = StubTransport { request in
            switch request.headers["Last-Event-ID"] {
            case nil: .stream(StubStreamStep.events([ServerSentEvent(data: "a", id: "1")]) + [.drop()])
            case "1": .stream(StubStreamStep.events([ServerSentEvent(data: "b", id: "2", retry: 10_000)]) + [.drop()])
            default: .status(204)
            }
        }
        let data = await bounded {
            await withOverride(TaskOverride(transport: stub, clock: clock)) {
                var data: [String] = []
                let events = FeedStreamAPI.feed.events(reconnect: .automatic(initialDelay: .seconds(3)))
                do { for try await event in events { data.append(event.data) } } catch { data.append("\(error)") }
                return data
            }
        }
        #expect(data == ["a", "b"])
        // The policy's 3 s, then the server's `retry: 10000`.
        #expect(clock.waits == [.seconds(3), .seconds(10)])
    }

    @Test func aRealTransportKeepsTheRealClock() async {
        let clock = VirtualClock()
        let real = NetworkLikeTransport()
        let retry = RetryMiddleware(policy: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1)))
        _ = await withOverride(TaskOverride(transport: real, clock: clock)) {
            await TodoAPI.todo(id: 1).request(type: Todo.self, middlewares: [retry])
        }
        #expect(real.requests.withLock { $0 } == 2)
        #expect(clock.waits.isEmpty)
    }
}

/// Waits on the call's clock before passing the request on, as a middleware of an app's might.
private struct Pause: HTTPMiddleware {
    let duration: Duration

    init(_ duration: Duration) {
        self.duration = duration
    }

    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        try await context.clock.sleep(for: duration)
        return try await next(request, context)
    }
}

/// A transport that says it is not simulated, as a network transport does; it answers 503.
private struct NetworkLikeTransport: HTTPTransport {
    let requests = Locked(0)

    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        requests.withLock { $0 += 1 }
        let head = ResponseHead(statusCode: 503, headers: [:], url: request.url)
        try sink.receive(head)
        return head
    }
}

/// A Server-Sent Events endpoint.
enum FeedStreamAPI: HTTPClient {
    case feed

    var host: String { "https://feed.example.com" }
    var endpoint: String { "feed" }
}

extension Serialized {
    /// The figure behind virtual time: waits that would take seconds take milliseconds of real time.
    @Suite("Virtual time takes no real time")
    struct VirtualTimeFigures {
        @Test func retriesWithSecondsOfBackoffAndLatencyEndInMilliseconds() async {
            let clock = VirtualClock()
            let stub = StubTransport { request in
                request.context.attempt < 3 ? .status(503, headers: ["Retry-After": "2"]) : StubResponse.status(204).delayed(by: 5)
            }
            let (result, seconds) = await measure {
                await withOverride(TaskOverride(transport: stub, clock: clock)) {
                    await RetryingTodoAPI.todo(id: 1).request(type: EmptyResponse.self)
                }
            }
            #expect((try? result.get()) != nil)
            #expect(clock.elapsed == .seconds(9))
            #expect(seconds < 0.5, "9 s of virtual waits took \(seconds) s")
        }
    }
}
