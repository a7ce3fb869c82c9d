// A test around a block of #expect lines on the recorded context (after `models`, `todo-api`,
// `testing`): one create sent through a middleware that calls `next` twice.
struct SendTwice: HTTPMiddleware {
    func intercept(_ request: OutgoingRequest, context: CallContext, next: Next) async throws(HTTPClientError) -> IncomingResponse {
        _ = try await next(request, context)
        return try await next(request, context)
    }
}

@Test func recordedRequestsCarryTheirContext() async throws {
    let stub = StubTransport().on(.post, "/todos", respond: .json(Todo(userId: 1, id: 201, title: "a", completed: false), status: 201))
    let draft = NewTodo(userId: 1, title: "a", completed: false)
    _ = try await withTransport(stub) {
        try await TodoAPI.create(draft).request(type: Todo.self, middlewares: [SendTwice()]).get()
    }
    // @snippet
}
