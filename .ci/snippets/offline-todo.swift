// Runs a block that declares TodoAPI and fetches `todo` (after `models`) offline: the whole block,
// declarations included, inside withTransport with a stub; then checks what it fetched.
import EndpointRouterTesting

struct UnexpectedResult: Error { let what: String }

let stub = StubTransport().on(.get, "/todos/:id", respond: .json(Todo(userId: 1, id: 1, title: "Offline", completed: false)))
try await withTransport(stub) {
    // @snippet
    guard todo.id == 1, stub.lastRequest?.path == "/todos/1" else { throw UnexpectedResult(what: "fetched \(todo)") }
}
