import EndpointRouter
import EndpointRouterTesting
import Foundation

// `swift run example` talks to a stub of JSONPlaceholder built from Fixtures/;
// `swift run example --host https://jsonplaceholder.typicode.com` talks to a real server.

func show<T>(_ label: String, _ result: Result<T, HTTPClientError>, _ describe: (T) -> String) {
    switch result {
    case .success(let value): print("✔ \(label)\n    \(describe(value))")
    case .failure(let error): print("✘ \(label)\n    \(error.localizedDescription)")
    }
}

func runDemo() async -> Bool {
    var succeeded = true
    func check<T>(_ result: Result<T, HTTPClientError>) -> Result<T, HTTPClientError> {
        if case .failure = result { succeeded = false }
        return result
    }

    show("GET /todos", check(await JSONPlaceholder.todos.request(type: [Todo].self))) { todos in
        "\(todos.count) todos; \(todos.filter(\.completed).count) completed"
    }
    show("GET /todos/3", check(await JSONPlaceholder.todo(id: 3).request(type: Todo.self))) { todo in
        "#\(todo.id) \"\(todo.title)\" completed: \(todo.completed)"
    }
    show("GET /todos?completed=true&userId=1", check(await JSONPlaceholder.filteredTodos(userId: 1, completed: true)
        .request(type: [Todo].self))) { todos in
        "\(todos.count) completed todos of user 1: ids \(todos.map(\.id))"
    }
    let new = NewTodo(userId: 1, title: "Try EndpointRouter", completed: false)
    show("POST /todos", check(await JSONPlaceholder.createTodo(new).response(type: Todo.self))) { response in
        "status \(response.statusCode), created #\(response.value.id) \"\(response.value.title)\""
    }
    let replacement = Todo(userId: 1, id: 1, title: "Replaced title", completed: true)
    show("PUT /todos/1", check(await JSONPlaceholder.replaceTodo(replacement).request(type: Todo.self))) { todo in
        "#\(todo.id) is now \"\(todo.title)\""
    }
    show("PATCH /todos/2", check(await JSONPlaceholder.completeTodo(id: 2).request(type: Todo.self))) { todo in
        "#\(todo.id) completed: \(todo.completed)"
    }
    show("DELETE /todos/1", check(await JSONPlaceholder.deleteTodo(id: 1).response(type: EmptyResponse.self))) { response in
        "status \(response.statusCode)"
    }

    // A typed error: the API's error payload is read from the failed response.
    print("— A typed error —")
    switch await JSONPlaceholder.todo(id: 9999).request(type: Todo.self) {
    case .success(let todo):
        print("  GET /todos/9999 unexpectedly found #\(todo.id)")
    case .failure(.unacceptableStatusCode(let response)):
        let message = (try? response.decode(APIError.self)).map { "\($0.error): \($0.message)" } ?? "no error payload"
        print("  GET /todos/9999 → .unacceptableStatusCode(\(response.statusCode)) — \(message)")
    case .failure(.decodingFailed(let response, let reason)):
        print("  GET /todos/9999 → .decodingFailed (status \(response.statusCode)): \(reason)")
    case .failure(let error):
        print("  GET /todos/9999 → \(error)")
    }
    return succeeded
}

// Read the arguments before anything else, so a bad one stops the demo before it prints or sends.
_ = Settings.host
print("EndpointRouter example — \(Settings.isOnline ? "online against \(Settings.host)" : "offline, answering from Fixtures/")\n")
let succeeded: Bool
if Settings.isOnline {
    succeeded = await runDemo()
} else {
    let stub = OfflineServer.makeTransport()
    succeeded = await withTransport(stub) { await runDemo() }
    print("\n— What went over the (stubbed) wire —")
    for request in stub.capturedRequests {
        let body = request.bodyText.map { $0.isEmpty ? "" : "  body: \($0)" } ?? ""
        print("  \(request.context.endpointName): \(request.method.rawValue) \(request.url.absoluteString)\(body)")
    }
}
exit(succeeded ? 0 : 1)
