import EndpointRouter
import Foundation

/// The JSONPlaceholder API (https://jsonplaceholder.typicode.com) as one enum: one case per
/// endpoint, as in the tutorials this example answers (a `RestManager` class, a RESTAPI `API`
/// object, a protocol with `host`, `endpoint`, `method`, `parameters`).
enum JSONPlaceholder: HTTPClient {
    case todos
    case todo(id: Int)
    case filteredTodos(userId: Int, completed: Bool)
    case createTodo(NewTodo)
    case replaceTodo(Todo)
    case completeTodo(id: Int)
    case deleteTodo(id: Int)
    /// A post sent as an HTML form would send it (`application/x-www-form-urlencoded`).
    case createPost(title: String, body: String, userId: Int)

    var host: String { Settings.host }

    var endpoint: String {
        switch self {
        case .todos, .filteredTodos, .createTodo: "todos"
        case .todo(let id), .completeTodo(let id), .deleteTodo(let id): "todos/\(segment: id)"
        case .replaceTodo(let todo): "todos/\(segment: todo.id)"
        case .createPost: "posts"
        }
    }

    var method: RequestMethod {
        switch self {
        case .todos, .todo, .filteredTodos: .get
        case .createTodo, .createPost: .post
        case .replaceTodo: .put
        case .completeTodo: .patch
        case .deleteTodo: .delete
        }
    }

    /// Query parameters for GET, a JSON body for PATCH (`.automatic` encoding).
    var parameters: [String: Any]? {
        switch self {
        case .filteredTodos(let userId, let completed): ["userId": userId, "completed": completed]
        case .completeTodo: ["completed": true]
        default: nil
        }
    }

    var body: EndpointBody? {
        switch self {
        case .createTodo(let todo): .json(todo)
        case .replaceTodo(let todo): .json(todo)
        case .createPost(let title, let body, let userId): .form(["title": title, "body": body, "userId": String(userId)])
        default: nil
        }
    }

    /// JSONPlaceholder answers 200, or 201 for a creation; anything else (a 404 for an unknown id)
    /// is `.unacceptableStatusCode`, carrying the response so its error payload can be read.
    var acceptableStatusCodes: Set<Int> { [200, 201] }

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

/// What `POST /posts` answers. Only the fields every server sends back the same way: a form carries
/// text, so JSONPlaceholder echoes `userId` as the string `"1"`.
struct CreatedPost: Decodable, Sendable {
    let id: Int
    let title: String
}

/// The error payload of the offline server, shaped as most real APIs shape theirs. JSONPlaceholder
/// itself answers an unknown id with `{}`.
struct APIError: Decodable, Sendable {
    let error: String
    let message: String
}
