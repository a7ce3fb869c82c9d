// The app enum of the testing guide (after `models`).
enum TodoAPI: HTTPClient {
    case list(userId: Int?)
    case todo(id: Int)
    case create(NewTodo)

    var host: String { "https://jsonplaceholder.typicode.com" }
    var endpoint: String {
        switch self {
        case .list, .create: "todos"
        case .todo(let id): "todos/\(segment: id)"
        }
    }
    var method: RequestMethod { if case .create = self { .post } else { .get } }
    var parameters: [String: Any]? { if case .list(let userId?) = self { ["userId": userId] } else { nil } }
    var body: EndpointBody? { if case .create(let todo) = self { .json(todo) } else { nil } }
}

/// App code that calls the API, as a view model or repository would.
struct TodoListModel {
    private(set) var todos: [Todo] = []

    mutating func load() async throws(HTTPClientError) {
        todos = try await TodoAPI.list(userId: nil).request(type: [Todo].self).get()
    }
}
