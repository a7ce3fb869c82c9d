// A test around a block that starts a request with a completion handler inside withTransport
// (after `models`, `todo-api`, `testing`): `stub` and `continuation` are what the block uses.
@Test func completionHandlerInsideTheSynchronousOverload() async throws {
    let stub = StubTransport().on(.get, "/todos/:id", respond: .json(Todo(userId: 1, id: 1, title: "a", completed: false)))
    let result: Result<Todo, HTTPClientError> = await withCheckedContinuation { continuation in
        // @snippet
    }
    #expect(try result.get().id == 1)
}
