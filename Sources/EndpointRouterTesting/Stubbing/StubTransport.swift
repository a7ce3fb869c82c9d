import EndpointRouter
import Foundation

/// A transport that answers from a table of routes, for tests: no network, no server.
///
/// ```swift
/// let stub = StubTransport()
///     .on(.get, "/todos/:id") { request in
///         .json(Todo(id: Int(request.parameters["id"] ?? "") ?? 0, title: "Stubbed"))
///     }
///     .on(.post, "/todos", body: { !$0.isEmpty }, respond: .json(Todo(id: 201, title: "New"), status: 201))
///
/// let todo = try await withTransport(stub) {
///     try await TodoAPI.todo(id: 7).request(type: Todo.self).get()
/// }
/// #expect(todo.title == "Stubbed")
/// #expect(stub.lastRequest?.path == "/todos/7")
/// ```
///
/// Routes are tried in the order they were registered and the first match answers. A request that
/// no route matches fails with a `.transport` error that names the request and says why each route
/// did not match: never a silent `404`. Every request that reaches the stub is recorded (see
/// ``RequestRecording``), matched or not, with its `CallContext`. Routes may be added while
/// requests are running; the transport is safe to share between tasks.
///
/// The stub stands where the network would be: the library's middlewares, request checks, redirects,
/// deadline and size limit all run above it exactly as in production, and a request the library
/// refuses never reaches it.
public final class StubTransport: HTTPTransport, RequestRecording {
    private let routes = Locked<[Route]>([])
    private let fallback: (@Sendable (StubbedRequest) async -> StubResponse)?
    private let log = RequestLog()

    /// Creates a stub with no routes; add them with `on(_:_:query:headers:body:respond:)`.
    public init() {
        fallback = nil
    }

    /// Creates a stub that answers every request with `handler`.
    ///
    /// Routes added with `on` are still tried first; the handler answers what none of them matches.
    /// It receives the request taken apart, with no ``StubbedRequest/parameters``.
    ///
    /// ```swift
    /// let stub = StubTransport { request in
    ///     request.path == "/health" ? .text("ok") : .status(503)
    /// }
    /// ```
    public init(_ handler: @escaping @Sendable (StubbedRequest) async -> StubResponse) {
        fallback = handler
    }

    /// Adds a route that answers with a fixed response.
    ///
    /// - Parameters:
    ///   - method: The method to match, or `nil` for any.
    ///   - pathPattern: The path, matched against the request's whole path. `:name` matches one
    ///     segment and captures it; `*`, only as the last segment, matches the rest (even nothing).
    ///     Segments compare percent-decoded. A query written here (`"/todos?userId=1"`) is added to `query`.
    ///   - query: Items the query must contain with exactly these (decoded) values; others may be present.
    ///   - headers: Headers the request must carry with exactly these values; names are case-insensitive.
    ///   - body: A test the in-memory request body must pass, such as `{ $0.isEmpty }`. A file upload
    ///     is not read, so the test sees no bytes; answer from ``StubbedRequest/bodyFile`` instead.
    ///   - response: The answer.
    /// - Returns: The stub itself, so routes can be chained.
    ///
    /// ```swift
    /// stub.on(.get, "/todos", query: ["userId": "1"], respond: .fixture("todos.json", in: fixtures))
    /// ```
    @discardableResult
    public func on(
        _ method: RequestMethod?,
        _ pathPattern: String,
        query: [String: String] = [:],
        headers: [String: String] = [:],
        body: (@Sendable (Data) -> Bool)? = nil,
        respond response: StubResponse
    ) -> StubTransport {
        on(method, pathPattern, query: query, headers: headers, body: body) { _ in response }
    }

    /// Adds a route that computes its answer from the request and the pattern's captures.
    ///
    /// Parameters are as in the fixed-response form; `respond` receives the request with
    /// `parameters["name"]` for each `:name` segment.
    ///
    /// ```swift
    /// stub.on(.delete, "/todos/:id") { request in
    ///     request.parameters["id"] == "1" ? .status(204) : .status(404)
    /// }
    /// ```
    @discardableResult
    public func on(
        _ method: RequestMethod?,
        _ pathPattern: String,
        query: [String: String] = [:],
        headers: [String: String] = [:],
        body: (@Sendable (Data) -> Bool)? = nil,
        respond: @escaping @Sendable (StubbedRequest) async -> StubResponse
    ) -> StubTransport {
        add(Route(method: method, pattern: pathPattern, query: query, headers: headers, body: body, answers: .handler(respond)))
    }

    /// Adds a route that answers the requests it matches with `answers`, one each, in order: a
    /// scripted sequence such as "503, then 200" or "401, then 200 once the token is refreshed".
    ///
    /// ```swift
    /// stub.on(.get, "/todos/1", respondInOrder: [.status(503), .json(#"{"userId": 1, "id": 1, "title": "a", "completed": false}"#)])
    /// let retry = RetryMiddleware(policy: RetryPolicy(baseDelay: .zero))   // retries at once
    /// let todo = try await withTransport(stub) {
    ///     try await TodoAPI.todo(id: 1).request(type: Todo.self, middlewares: [retry]).get()
    /// }
    /// ```
    ///
    /// An answer is any ``StubResponse``: a status, a body, a delay (``StubResponse/delayed(by:)``),
    /// a failure such as a lost connection (``StubResponse/urlError(_:)``), or a stream that drops
    /// part-way (``StubResponse/stream(_:status:headers:)`` ending in ``StubStreamStep/drop(_:)``).
    /// Every request the route matches takes the next answer (each attempt of a retried call, each
    /// reconnection of a stream), in the order the requests reach the stub; each route has a script
    /// of its own. A request cancelled before it reaches the stub takes no answer; one cancelled
    /// while its answer's delay runs has taken it, as a server that got a request has answered it
    /// whether or not the client stayed. What happens once all were given is `end`'s choice: by default the next request
    /// fails with a `.transport` error naming the route and how many answers it had, so a test
    /// that makes more requests than it scripted finds out.
    ///
    /// - Parameters:
    ///   - method: The method to match, or `nil` for any.
    ///   - pathPattern: The path, matched as in `on(_:_:query:headers:body:respond:)`: `:name` matches
    ///     one segment, a final `*` the rest.
    ///   - query: Items the query must contain with exactly these (decoded) values.
    ///   - headers: Headers the request must carry with exactly these values.
    ///   - body: A test the in-memory request body must pass.
    ///   - answers: The answers, first to last.
    ///   - end: What follows the last answer: ``StubScriptEnd/fail`` (the default) or
    ///     ``StubScriptEnd/repeatLast``.
    /// - Returns: The stub itself, so routes can be chained.
    @discardableResult
    public func on(
        _ method: RequestMethod?,
        _ pathPattern: String,
        query: [String: String] = [:],
        headers: [String: String] = [:],
        body: (@Sendable (Data) -> Bool)? = nil,
        respondInOrder answers: [StubResponse],
        then end: StubScriptEnd = .fail
    ) -> StubTransport {
        let script = StubScript(answers, then: end)
        return add(Route(method: method, pattern: pathPattern, query: query, headers: headers, body: body, answers: .script(script)))
    }

    private func add(_ route: Route) -> StubTransport {
        routes.withLock { $0.append(route) }
        return self
    }

    /// Removes every route; recorded requests are kept.
    public func removeAllRoutes() {
        routes.withLock { $0.removeAll() }
    }

    /// Records `request` with its `context`, finds its answer and delivers it into `sink` after the
    /// answer's latency: the head, then the body in pieces of 64 KiB.
    ///
    /// When the answer is a response, the request body's upload progress is reported first, as a
    /// network transport reports it: the bytes sent after each piece of 64 KiB, the last report the
    /// whole body, with the total known (a file body's size on disk; the file is not read). A body
    /// of no bytes reports nothing, and neither does an answer that is a failure (the connection
    /// never carried the body).
    ///
    /// - Throws: the stubbed failure; `.cancelled` when the task is cancelled; `.timedOut` when the
    ///   latency reaches past `context.deadline`; what `sink` throws (then nothing more is written);
    ///   `.transport` when no route matches or a fixture file cannot be read.
    public func send(_ request: OutgoingRequest, context: CallContext, sink: any ResponseBodySink) async throws(HTTPClientError)
        -> ResponseHead
    {
        let captured = log.append(request, context: context)
        if Task.isCancelled { throw .cancelled }
        let response = try await answer(for: captured)
        // A failure stands for a connection that never carried the body: no upload progress.
        if case .respond = response.outcome {
            try await SimulatedUpload.send(request.body, context: context)
        }
        return try await response.serve(to: request, context: context, sink: sink)
    }

    /// The requests received so far, oldest first.
    public var capturedRequests: [CapturedRequest] { log.all }

    /// Forgets the requests received so far; routes are kept.
    public func removeAllCapturedRequests() { log.removeAll() }

    private func answer(for captured: CapturedRequest) async throws(HTTPClientError) -> StubResponse {
        let routes = self.routes.withLock { $0 }
        for (index, route) in routes.enumerated() {
            if let problem = route.pattern.problem {
                throw StubDiagnostics.invalidRoute(route, problem: problem, number: index + 1, request: captured)
            }
        }
        var rejections: [String] = []
        for (index, route) in routes.enumerated() {
            switch route.evaluate(captured) {
            case .matched(let parameters):
                switch route.answers {
                case .handler(let respond):
                    return await respond(StubbedRequest(captured, parameters: parameters))
                case .script(let script):
                    switch script.take() {
                    case .answer(let response): return response
                    case .exhausted(let answers, let request):
                        throw StubDiagnostics.scriptExhausted(
                            route, number: index + 1, answers: answers, requestNumber: request, request: captured)
                    }
                }
            case .rejected(let reason):
                rejections.append(reason)
            }
        }
        if let fallback { return await fallback(StubbedRequest(captured, parameters: [:])) }
        throw StubDiagnostics.unmatched(captured, routes: zip(routes, rejections).map { ($0.summary, $1) })
    }
}
