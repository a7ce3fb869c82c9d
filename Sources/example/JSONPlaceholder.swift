import EndpointRouter
import Foundation

/// The JSONPlaceholder API (https://jsonplaceholder.typicode.com) as one enum: one case per endpoint.
enum JSONPlaceholder: HTTPClient {
    case todos
    case todo(id: Int)
    case filteredTodos(userId: Int, completed: Bool)
    case createTodo(NewTodo)
    case replaceTodo(Todo)
    case completeTodo(id: Int)
    case deleteTodo(id: Int)

    var host: String { Settings.host }

    var endpoint: String {
        switch self {
        case .todos, .filteredTodos, .createTodo: "todos"
        case .todo(let id), .completeTodo(let id), .deleteTodo(let id): "todos/\(segment: id)"
        case .replaceTodo(let todo): "todos/\(segment: todo.id)"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .todos, .todo, .filteredTodos: .get
        case .createTodo: .post
        case .replaceTodo: .put
        case .completeTodo: .patch
        case .deleteTodo: .delete
        }
    }

    var parameters: [String: Any]? {
        switch self {
        case .filteredTodos(let userId, let completed): ["userId": userId, "completed": completed]
        case .completeTodo: ["completed": true]
        default: nil
        }
    }

    var body: RequestBody? {
        switch self {
        case .createTodo(let todo): .json(todo)
        case .replaceTodo(let todo): .json(todo)
        default: nil
        }
    }

    var timeout: TimeInterval? { 10 }
}

struct Todo: Codable, Sendable {
    let userId: Int
    let id: Int
    var title: String
    var completed: Bool
}

struct NewTodo: Codable, Sendable {
    let userId: Int
    let title: String
    let completed: Bool
}

/// JSONPlaceholder answers unknown ids with `{}`; our offline stub answers with an error payload
/// like most real APIs do.
struct APIError: Decodable, Sendable {
    let error: String
    let message: String
}

/// What the command line chose; read once at start-up.
enum Settings {
    static let arguments = CommandLine.arguments
    static let host: String = {
        if let index = arguments.firstIndex(of: "--host"), arguments.indices.contains(index + 1) {
            return arguments[index + 1]
        }
        return "https://jsonplaceholder.typicode.com"
    }()
    static var isOnline: Bool { arguments.contains("--host") }
}
