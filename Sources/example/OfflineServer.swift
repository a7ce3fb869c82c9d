import EndpointRouter
import EndpointRouterTesting
import Foundation

/// A stub of JSONPlaceholder that answers from the files in `Fixtures/`, so the example runs
/// without a network.
enum OfflineServer {
    static let fixtures: URL = {
        let fromSource = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        if FileManager.default.fileExists(atPath: fromSource.path) { return fromSource }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Fixtures")
    }()

    static func makeTransport() -> StubTransport {
        let stub = StubTransport()
        stub.on(.get, "/todos", query: ["userId": "1", "completed": "true"]) { _ in
            filteredTodos(userId: 1, completed: true)
        }
        stub.on(.get, "/todos", respond: .fixture("todos.json", in: fixtures))
        stub.on(.get, "/todos/9999", respond: .fixture("error-404.json", in: fixtures, status: 404))
        stub.on(.get, "/todos/:id") { request in
            guard let id = request.parameters["id"].flatMap(Int.init), let todo = allTodos().first(where: { $0.id == id }) else {
                return .fixture("error-404.json", in: fixtures, status: 404)
            }
            return .json(todo)
        }
        stub.on(.post, "/todos") { request in
            guard let new = try? request.decodeBody(as: NewTodo.self) else {
                return .fixture("error-422.json", in: fixtures, status: 422)
            }
            return .json(Todo(userId: new.userId, id: 201, title: new.title, completed: new.completed), status: 201)
        }
        stub.on(.put, "/todos/:id") { request in
            .data(request.body, headers: ["Content-Type": "application/json"])
        }
        stub.on(.patch, "/todos/:id") { request in
            guard let id = request.parameters["id"].flatMap(Int.init), var todo = allTodos().first(where: { $0.id == id }) else {
                return .fixture("error-404.json", in: fixtures, status: 404)
            }
            todo.completed = true
            return .json(todo)
        }
        stub.on(.delete, "/todos/:id", respond: .json("{}"))
        return stub
    }

    private static func allTodos() -> [Todo] {
        guard let data = try? Data(contentsOf: fixtures.appendingPathComponent("todos.json")),
              let todos = try? JSONDecoder().decode([Todo].self, from: data) else { return [] }
        return todos
    }

    private static func filteredTodos(userId: Int, completed: Bool) -> StubResponse {
        .json(allTodos().filter { $0.userId == userId && $0.completed == completed })
    }
}
