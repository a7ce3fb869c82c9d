import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Serialized {
    /// Simulated latency and failures: most tests bound a wall-clock time (a cancel within 5 s, a
    /// deadline before the latency), so they run with the figures, one at a time; in the parallel
    /// suite on a loaded 2-core machine a cancel was answered after 5.04 s.
    @Suite("Latency and simulated failures")
    struct LatencyAndFailureTests {
        private let todo = Todo(userId: 1, id: 1, title: "Slow", completed: false)

        @Test func latencyDelaysTheAnswer() async throws {
            let clock = VirtualClock()
            let stub = StubTransport().on(.get, "/todos/1", respond: .json(todo).delayed(by: 0.3))
            let result = await withOverride(TaskOverride(transport: stub, clock: clock)) {
                await TodoAPI.todo(id: 1).request(type: Todo.self)
            }
            #expect(try result.get() == todo)
            #expect(clock.waits == [.milliseconds(300)])
        }

        /// Without a clock in the override, latency is real: the default a virtual clock replaces.
        @Test func latencyIsRealWithoutAVirtualClock() async throws {
            let stub = StubTransport().on(.get, "/todos/1", respond: .json(todo).delayed(by: 0.05))
            let (result, seconds) = await measure {
                await withTransport(stub) { await TodoAPI.todo(id: 1).request(type: Todo.self) }
            }
            #expect(try result.get() == todo)
            #expect(seconds >= 0.05)
        }

        @Test func stubbedTimeoutIsTyped() async {
            let stub = StubTransport().on(.get, "/todos/1", respond: .failure(.timedOut))
            let result = await withTransport(stub) { await TodoAPI.todo(id: 1).request(type: Todo.self) }
            #expect(result == .failure(.timedOut))
        }

        @Test func urlErrorBecomesTransport() async {
            let stub = StubTransport().on(.get, "/todos/1", respond: .urlError(.notConnectedToInternet))
            let result = await withTransport(stub) { await TodoAPI.todo(id: 1).request(type: Todo.self) }
            guard case .failure(.transport(let error)) = result else {
                Issue.record("expected .transport, got \(result)")
                return
            }
            #expect(error.code == .notConnectedToInternet)
        }

        @Test func delayedFailureWaitsThenFails() async {
            let clock = VirtualClock()
            let stub = StubTransport().on(.get, "/todos/1", respond: .urlError(.networkConnectionLost).delayed(by: 0.2))
            let result = await withOverride(TaskOverride(transport: stub, clock: clock)) {
                await TodoAPI.todo(id: 1).request(type: Todo.self)
            }
            #expect(result.failureURLErrorCode == .networkConnectionLost)
            #expect(clock.elapsed == .milliseconds(200))
        }

        @Test func latencyBeyondTheEndpointTimeoutTimesOutAtTheDeadline() async {
            let clock = VirtualClock()
            let stub = StubTransport().on(.get, "/todos/1", respond: .json(todo).delayed(by: 10))
            let result = await withOverride(TaskOverride(transport: stub, clock: clock)) {
                await TodoAPI.slowTodo(id: 1, timeout: 0.3).request(type: Todo.self)
            }
            #expect(result == .failure(.timedOut))
            #expect(clock.elapsed == .milliseconds(300), "the deadline, not the latency, should end the wait")
        }

        @Test func calledDirectlyTheStubGivesUpAtTheContextDeadline() async throws {
            // Nothing above the stub enforces the deadline here: only the stub's own wait can end it.
            let stub = StubTransport().on(.get, "/todos/1", respond: .json(todo).delayed(by: 30))
            let request = try makeRequest(.get, "https://api.example.com/todos/1")
            let outcome = await bounded {
                await measure { await transportError(stub, request, context: makeContext(seconds: 0.05)) }
            }
            #expect(outcome?.result == .timedOut)
            #expect((outcome?.seconds ?? 0) >= 0.04, "the stub answers at the deadline, not before")
            #expect((outcome?.seconds ?? 10) < 5, "the deadline, not the latency, ends the wait")
        }

        @Test func latencyWithinTheTimeoutSucceeds() async throws {
            let clock = VirtualClock()
            let stub = StubTransport().on(.get, "/todos/1", respond: .json(todo).delayed(by: 0.1))
            let result = await withOverride(TaskOverride(transport: stub, clock: clock)) {
                await TodoAPI.slowTodo(id: 1, timeout: 5).request(type: Todo.self)
            }
            #expect(try result.get() == todo)
            #expect(clock.elapsed == .milliseconds(100))
        }

        @Test func cancellationDuringLatencyEndsPromptly() async {
            // A clock that never moves by itself: the latency lasts until the cancellation ends it.
            let clock = VirtualClock(.manually)
            let stub = StubTransport().on(.get, "/todos/1", respond: .json(todo).delayed(by: 10))
            let (result, seconds) = await measure {
                let task = Task {
                    await withOverride(TaskOverride(transport: stub, clock: clock)) { await TodoAPI.todo(id: 1).request(type: Todo.self) }
                }
                _ = await eventually { clock.pendingSleepers == 1 }
                task.cancel()
                return await task.value
            }
            #expect(result == .failure(.cancelled))
            #expect(seconds < 5)
            #expect(stub.requestCount == 1)
        }

        @Test func transportCancelledBeforeSendingAnswersCancelled() async throws {
            let stub = StubTransport { _ in .status(200) }
            let request = try makeRequest(.get, "https://api.example.com/x")
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await transportError(stub, request)
            }
            #expect(await task.value == .cancelled)
            #expect(stub.requestCount == 1)
        }

        @Test func errorStatusIsAResponseTheClientRejects() async throws {
            let stub = StubTransport().on(
                .get, "/todos/9999",
                respond: .fixture(
                    "error-404.json", in: TestPaths.fixtures,
                    status: 404))
            let result = await withTransport(stub) { await TodoAPI.todo(id: 9999).request(type: Todo.self) }
            guard case .failure(.unacceptableStatusCode(let response)) = result else {
                Issue.record("expected .unacceptableStatusCode, got \(result)")
                return
            }
            struct APIError: Decodable { let message: String }
            #expect(response.statusCode == 404)
            #expect(try response.decode(APIError.self).message == "No todo with id 9999")
        }

        @Test func unencodableJSONFailsWithEncodingFailed() async {
            struct Unencodable: Encodable, Sendable {
                func encode(to encoder: any Encoder) throws {
                    throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "refused"))
                }
            }
            let stub = StubTransport().on(.get, "/todos/1", respond: .json(Unencodable()))
            let result = await withTransport(stub) { await TodoAPI.todo(id: 1).request(type: Todo.self) }
            guard case .failure(.encodingFailed(let text)) = result else {
                Issue.record("expected .encodingFailed, got \(result)")
                return
            }
            #expect(text.contains("Unencodable"))
        }
    }
}

extension Result where Failure == HTTPClientError {
    var failureURLErrorCode: URLError.Code? {
        if case .failure(let error) = self { error.urlError?.code } else { nil }
    }
}
