import EndpointRouter
import EndpointRouterTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Scripted routes (`respondInOrder:`): the sequences issue 40 (item 3) found needing a hand-written
/// lock-guarded counter, each through the library's own middleware or reconnection, with nothing
/// sleeping (zero backoff, zero reconnection delay).
@Suite("Scripted stub routes")
struct ScriptedStubTests {
    static let todo = Todo(userId: 1, id: 1, title: "Scripted", completed: false)
    /// Retries at once: a zero backoff ceiling draws a zero wait.
    static let retry = RetryMiddleware(policy: RetryPolicy(baseDelay: .zero))
    static let reconnect = ReconnectPolicy(maxAttempts: 2, initialDelay: .zero, maximumDelay: .zero)

    @Test func fiveHundredThreeThenTwoHundredThroughRetry() async throws {
        let stub = StubTransport().on(.get, "/todos/1", respondInOrder: [.status(503), .json(Self.todo)])
        let result = await withTransport(stub) { await TodoAPI.todo(id: 1).request(type: Todo.self, middlewares: [Self.retry]) }
        #expect(try result.get() == Self.todo)
        #expect(stub.capturedRequests.map(\.context.attempt) == [1, 2])
    }

    @Test func fourHundredOneRefreshThenTwoHundredThroughAuthorization() async throws {
        let stub = StubTransport().on(.get, "/todos/1", respondInOrder: [.status(401), .json(Self.todo)])
        let store = CredentialStore(credential: { .bearer("stale") }, refresh: { _ in .refreshed(.bearer("fresh")) })
        let auth = AuthorizationMiddleware(store, host: TodoAPI.todo(id: 1).host)
        let result = await withTransport(stub) { await TodoAPI.todo(id: 1).request(type: Todo.self, middlewares: [auth]) }
        #expect(try result.get() == Self.todo)
        #expect(stub.capturedRequests.map { $0.headers["Authorization"] } == ["Bearer stale", "Bearer fresh"])
    }

    @Test func aStreamDropsAfterThreeEventsThenResumesWithLastEventID() async throws {
        let events = (1...4).map { ServerSentEvent(data: "event \($0)", id: String($0)) }
        let dropped = StubStreamStep.events(Array(events[..<3])) + [.drop(.networkConnectionLost)]
        let stub = StubTransport().on(
            .get, "/chat",
            respondInOrder: [.stream(dropped, headers: ["Content-Type": "text/event-stream"]), .events([events[3]]), .status(204)])
        let ids = await bounded {
            await withTransport(stub) { try? await ChatAPI.chat.events(reconnect: Self.reconnect).collect().map(\.id) }
        }
        #expect(ids == .some(["1", "2", "3", "4"]))
        #expect(stub.capturedRequests.map { $0.headers["Last-Event-ID"] } == [nil, "3", "4"])
    }

    @Test func runningOutFailsNamingTheRouteAndHowManyAnswersItHad() async throws {
        let stub = StubTransport().on(.post, "/todos", respond: .status(201))
            .on(.get, "/todos/1", respondInOrder: [.status(503), .json(Self.todo)])
        let request = try makeRequest(.get, "https://api.example.com/todos/1")
        for _ in 1...2 { #expect(await transportError(stub, request) == nil) }
        let error = try #require(await transportError(stub, request))
        #expect(error.urlError?.code == .resourceUnavailable)
        #expect(error.localizedDescription.contains("route 2 (GET /todos/1 [script]) matched GET /todos/1, its request 3"))
        #expect(error.localizedDescription.contains("its script had 2 answers and they have all been given"))
        #expect(error.localizedDescription.contains("then: .repeatLast"))
    }

    @Test func aScriptWithoutAnswersFailsItsFirstRequest() async throws {
        let stub = StubTransport().on(.get, "/todos/1", respondInOrder: [], then: .repeatLast)
        let error = try #require(await transportError(stub, makeRequest(.get, "https://api.example.com/todos/1")))
        #expect(error.localizedDescription.contains("its request 1, but its script has no answers"))
    }

    @Test func repeatLastKeepsAnsweringWithTheLastAnswer() async throws {
        let stub = StubTransport().on(.get, "/health", respondInOrder: [.text("starting", status: 503), .text("ok")], then: .repeatLast)
        var bodies: [String] = []
        for _ in 1...4 {
            let response = try await stub.exchange(makeRequest(.get, "https://api.example.com/health"))
            bodies.append("\(response.statusCode) \(String(decoding: response.body, as: UTF8.self))")
        }
        #expect(bodies == ["503 starting", "200 ok", "200 ok", "200 ok"])
    }

    /// A request another route answers, or that the scripted route does not match, takes nothing from the script.
    @Test func onlyRequestsTheRouteMatchesTakeAnAnswer() async throws {
        let stub = StubTransport().on(.get, "/todos/1", headers: ["X-Step": "yes"], respondInOrder: [.text("first"), .text("second")])
            .on(.get, "/todos/1", respond: .text("plain"))
        let plain = try makeRequest(.get, "https://api.example.com/todos/1")
        let stepped = try makeRequest(.get, "https://api.example.com/todos/1", headers: ["X-Step": "yes"])
        var bodies: [String] = []
        for request in [plain, stepped, plain, stepped] {
            bodies.append(String(decoding: try await stub.exchange(request).body, as: UTF8.self))
        }
        #expect(bodies == ["plain", "first", "plain", "second"])
    }

    /// A delay in a script is the stub's simulated latency: the call's deadline ends it.
    @Test func aDelayedAnswerIsCutByTheDeadline() async throws {
        let stub = StubTransport().on(.get, "/todos/1", respondInOrder: [StubResponse.json(Self.todo).delayed(by: 3600)])
        let result = await bounded { await withTransport(stub) { await TodoAPI.slowTodo(id: 1, timeout: 0.03).request(type: Todo.self) } }
        #expect(throws: HTTPClientError.timedOut) { try result?.get() }
    }

    /// Two routes' scripts, taken by 2 × 20 calls at once: each answer of each script is given
    /// exactly once, to a request of its own route, and both run out independently.
    @Test func routesKeepScriptsOfTheirOwnUnderParallelCalls() async throws {
        let count = 20
        let stub = StubTransport()
            .on(.get, "/a", respondInOrder: (0..<count).map { .text("a\($0)") })
            .on(.get, "/b", respondInOrder: (0..<count).map { .text("b\($0)") })
        let bodies = await withTaskGroup(of: String?.self) { group in
            for index in 0..<(2 * count) {
                let path = index.isMultiple(of: 2) ? "a" : "b"
                group.addTask {
                    guard let request = try? makeRequest(.get, "https://api.example.com/\(path)") else { return nil }
                    return (try? await stub.exchange(request)).map { String(decoding: $0.body, as: UTF8.self) }
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        let expected = (0..<count).map { "a\($0)" } + (0..<count).map { "b\($0)" }
        #expect(bodies.compactMap { $0 }.sorted() == expected.sorted())
        #expect(await transportError(stub, try makeRequest(.get, "https://api.example.com/a")) != nil)
        #expect(await transportError(stub, try makeRequest(.get, "https://api.example.com/b")) != nil)
    }

    /// A request whose task is cancelled before it reaches the stub takes no answer: the next
    /// request gets the first one. The stub still records it, as it records every request.
    @Test func aRequestCancelledBeforeItArrivesTakesNoAnswer() async throws {
        let stub = StubTransport().on(.get, "/todos/1", respondInOrder: [.text("first"), .text("second")])
        let request = try makeRequest(.get, "https://api.example.com/todos/1")
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await transportError(stub, request)
        }
        #expect(await cancelled.value == .cancelled)
        #expect(String(decoding: try await stub.exchange(request).body, as: UTF8.self) == "first")
        #expect(stub.capturedRequests.count == 2)
    }

    /// A request cancelled while its answer's delay runs has taken that answer, as a server that
    /// got a request has answered it whether or not the client stayed: the next request gets the
    /// second. The delay waits on a manual clock, so the cancel lands while it is running.
    @Test func aRequestCancelledDuringItsAnswersDelayHasTakenIt() async throws {
        let stub = StubTransport().on(.get, "/todos/1", respondInOrder: [StubResponse.text("first").delayed(by: 60), .text("second")])
        let request = try makeRequest(.get, "https://api.example.com/todos/1")
        let clock = VirtualClock(.manually)
        let context = CallContext(endpointName: "Test.direct", deadline: clock.now + .seconds(600), clock: clock)
        let waiting = Task { await transportError(stub, request, context: context) }
        let limit = ContinuousClock.now + .seconds(5)
        while clock.pendingSleepers == 0 && ContinuousClock.now < limit { try await Task.sleep(for: .milliseconds(1)) }
        #expect(clock.pendingSleepers == 1)
        waiting.cancel()
        #expect(await bounded { await waiting.value } == .some(.cancelled))
        #expect(String(decoding: try await stub.exchange(request).body, as: UTF8.self) == "second")
    }
}
