import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

/// One rule for the test clock: a stub's latency and pauses go through the clock the call chose
/// (`CallContext.clock`), the one its deadline is on. A `TaskOverride`'s clock reaches them only
/// through that choice, so a stub wrapped in a transport that is not simulated keeps real time
/// with the call's deadline, and a stub given directly waits on the test's virtual clock.
@Suite("A stub waits on the call's clock", .timeLimit(.minutes(1)))
struct StubClockRuleTests {
    static let todo = Todo(userId: 1, id: 1, title: "t", completed: false)

    /// A stream's pause on a manual clock is a wait the caller's cancel ends: at once, with
    /// `.cancelled`, and nothing after the pause is written.
    @Test func aCancelDuringAStreamsPauseEndsIt() async throws {
        let stub = StubTransport().on(.get, "/feed", respond: .stream([.chunk("before"), .pause(60), .chunk("after")]))
        let clock = VirtualClock(.manually)
        let context = CallContext(endpointName: "Test.direct", deadline: clock.now + .seconds(600), clock: clock)
        let sink = RefusingSink(limit: 1 << 20)
        let request = try makeRequest(.get, "https://api.example.com/feed")
        let streaming = Task { await sendError(stub, request, into: sink, context: context) }
        let limit = ContinuousClock.now + .seconds(5)
        while clock.pendingSleepers == 0 && ContinuousClock.now < limit { try await Task.sleep(for: .milliseconds(1)) }
        #expect(clock.pendingSleepers == 1)
        let cancelled = ContinuousClock.now
        streaming.cancel()
        #expect(await bounded { await streaming.value } == .some(.cancelled))
        #expect(ContinuousClock.now - cancelled < .seconds(1))
        #expect(String(decoding: sink.accepted, as: UTF8.self) == "before")
        #expect(clock.pendingSleepers == 0)
    }

    @Test func aStubInsideARealWrapperTimesOutOnTheRealDeadline() async {
        let clock = VirtualClock()
        let stub = StubTransport().on(.get, "/todos/1", respond: StubResponse.json(Self.todo).delayed(by: 30))
        let outcome = await bounded {
            await withOverride(TaskOverride(transport: RealWrapper(stub), clock: clock)) {
                await TodoAPI.slowTodo(id: 1, timeout: 0.2).request(type: Todo.self)
            }
        }
        #expect(outcome == .failure(.timedOut))
        // The stub waited in real time, as the deadline ran: the virtual clock saw no wait.
        #expect(clock.waits.isEmpty)
    }

    @Test func aRecordedStubTakesItsLatencyInRealTime() async {
        let clock = VirtualClock()
        let stub = StubTransport().on(.get, "/todos/1", respond: StubResponse.json(Self.todo).delayed(by: 0.3))
        let measured = await bounded {
            await withTemporaryDirectory { recordings in
                let recorder = RecordingTransport(wrapping: stub, directory: recordings)
                let measured = await measure {
                    await withOverride(TaskOverride(transport: recorder, clock: clock)) {
                        await TodoAPI.todo(id: 1).request(type: Todo.self)
                    }
                }
                await recorder.waitForRecordings()
                return measured
            }
        }
        #expect(measured.map { (try? $0.result.get()) == Self.todo } == true)
        // A lower bound only: a real sleep never ends early, however loaded the machine.
        #expect(measured.map { $0.seconds >= 0.3 } == true, "\(String(describing: measured?.seconds)) s")
        #expect(clock.waits.isEmpty)
    }

    @Test func aStreamsPausesInsideARealWrapperAreReal() async throws {
        let clock = VirtualClock()
        let stub = StubTransport().on(.get, "/chat", respond: .stream([.chunk("a"), .pause(0.2), .chunk("b")]))
        let request = try makeRequest(.get, "https://chat.example.com/chat")
        // `exchange` makes the context a call on the wrapper would have: the real clock.
        let body = await bounded {
            await withOverride(TaskOverride(clock: clock)) { try? await RealWrapper(stub).exchange(request).body }
        }
        #expect(body == Data("ab".utf8))
        #expect(clock.waits.isEmpty)
    }

    @Test func aStubCalledDirectlyWaitsOnTheClockOfTheContext() async throws {
        let clock = VirtualClock()
        let stub = StubTransport().on(.get, "/todos/1", respond: StubResponse.status(204).delayed(by: 30))
        let request = try makeRequest(.get, "https://jsonplaceholder.typicode.com/todos/1")
        // No override: only the context says the call is on a virtual clock.
        let context = CallContext(endpointName: "direct", deadline: clock.now + .seconds(60), clock: clock)
        let status = await bounded(5) { try? await stub.exchange(request, context: context).statusCode }
        #expect(status == 204)
        #expect(clock.waits == [.seconds(30)])
    }
}

extension Serialized {
    /// The ordinary case the rule keeps: a stub given directly waits on the override's clock.
    @Suite("A stub under a virtual clock takes no real time")
    struct StubClockRuleFigures {
        @Test func thirtySecondsOfLatencyEndInWellUnderASecond() async {
            let clock = VirtualClock()
            let stub = StubTransport().on(.get, "/todos/1", respond: StubResponse.json(StubClockRuleTests.todo).delayed(by: 30))
            let measured = await bounded {
                await measure {
                    await withOverride(TaskOverride(transport: stub, clock: clock)) {
                        await TodoAPI.slowTodo(id: 1, timeout: 60).request(type: Todo.self)
                    }
                }
            }
            #expect(measured.map { (try? $0.result.get()) == StubClockRuleTests.todo } == true)
            #expect(measured.map { $0.seconds < 1 } == true, "30 s of virtual latency took \(String(describing: measured?.seconds)) s")
            #expect(clock.waits == [.seconds(30)])
        }
    }
}

/// A transport of an app's own around another, which does not say it is simulated: a call on it
/// keeps the real clock, whatever it wraps.
private struct RealWrapper: HTTPTransport {
    let wrapped: any HTTPTransport

    init(_ wrapped: any HTTPTransport) {
        self.wrapped = wrapped
    }

    func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        try await wrapped.send(request, context: context, sink: sink)
    }
}
